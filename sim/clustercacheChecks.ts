/**
 * The end of a ClusterCache reconcile in the simulation: the checks of seed 000's promises on
 * what the reconcile did (the failure threshold, the 401 disconnect, one event per connect and
 * per disconnect, no accessor for a deleted Cluster, no 0 ms requeue), then its requeue, and its
 * rows written to the trace. `clustercache.ts` runs the Reconciler and calls `finishCache` when a
 * reconcile ends.
 *
 * @module
 */
import type { ReconcilerDesired } from "../core/clustercache/index.ts"
import type { RowId } from "../core/krtt/index.ts"
import { F_CONNECTED, F_DIRTY, H_FAILURES, H_FLAGS } from "./engine.ts"
import { RecordKind, UNKNOWN_ROW } from "./trace.ts"
import { CacheRun, type Slot } from "./world.ts"
import { WorldEngine } from "./worldEvents.ts"

export abstract class ClusterCacheChecks extends WorldEngine {
  /** The ClusterCache reconcile in progress (a waiting one is copied to its slot). */
  protected readonly run = new CacheRun()

  protected slot(i: number): Slot {
    return this.slots[i] as Slot
  }

  /** The end of a ClusterCache reconcile: the checks of seed 000's promises, then the requeue. */
  protected finishCache(i: number, now: number): void {
    this.traceCache(i, now)
    const run = this.run
    const hot = this.hot
    const h = this.hi(i)
    if (run.probe === 0) hot[h + H_FAILURES] = 0
    else if (run.probe > 0) this.probeFailed(i)
    if (run.disconnected) {
      this.measurements.totals.disconnects++
      const d = this.measurements.series.disconnects
      d[this.bucket] = (d[this.bucket] as number) + 1
    }
    this.checkEvents(i)
    const accessor = this.accessors[this.li(i)]
    const desired = run.desired as ReconcilerDesired
    if (desired.cluster._tag === "NotFound" && accessor !== undefined)
      this.violation(
        this.slot(i),
        "no-accessor-for-deleted-cluster",
        run.rowList(),
        "the Cluster is gone but its accessor was kept",
      )
    const connected = accessor?.connected === true
    // Only for a provisioned Cluster: Reconciler row 3 (infrastructure not provisioned) ends
    // without a requeue by design, the Cluster's next update reconciles it. A connected accessor
    // meets that row when a Cluster is re-created under the same name before the ClusterCache
    // saw it gone (its reconcile waited on a probe): requests are by name, as upstream's are.
    if (
      connected &&
      run.requeueAfter < 0 &&
      desired.cluster._tag === "Found" &&
      desired.cluster.infrastructureProvisioned
    )
      this.violation(
        this.slot(i),
        "probe-interval",
        run.rowList(),
        "a connected accessor's reconcile ended without a requeue: it will not be probed again",
      )
    let after = run.requeueAfter
    if (after === 0) {
      // Loops fail, never hang: a 0 ms requeue would reconcile again at this very instant, forever.
      this.violation(
        this.slot(i),
        "no-reconcile-storm",
        run.rowList(),
        "requeued after 0 ms: the reconcile would run again at the same instant forever",
      )
      after = 1_000
    }
    if (after >= 0)
      this.cacheAt(
        i,
        now + after,
        after === this.ccConfig.healthProbe.interval
          ? 0
          : after === this.ccConfig.connectionCreationRetryInterval
            ? 1
            : -1,
      )
    let flags = hot[h + H_FLAGS] as number
    if (connected !== ((flags & F_CONNECTED) !== 0)) {
      flags ^= F_CONNECTED
      this.connected += connected ? 1 : -1
    }
    if ((flags & F_DIRTY) !== 0) {
      flags &= ~F_DIRTY
      hot[h + H_FLAGS] = flags
      this.cacheAt(i, now)
    } else hot[h + H_FLAGS] = flags
  }

  /** A probe failed: the failure threshold and the 401 handling (Reconciler rows 9-11). */
  protected probeFailed(i: number): void {
    const run = this.run
    const c = this.ccConfig
    const totals = this.measurements.totals
    const h = this.hi(i) + H_FAILURES
    const failures = (this.hot[h] as number) + 1
    this.hot[h] = run.disconnected ? 0 : failures
    totals.probeFailures++
    const pf = this.measurements.series.probeFailures
    pf[this.bucket] = (pf[this.bucket] as number) + 1
    const retry = c.connectionCreationRetryInterval
    const threshold = c.healthProbe.failureThreshold
    if (run.probe === 1) {
      const expected = failures >= threshold
      if (run.disconnected !== expected)
        this.violation(
          this.slot(i),
          "failure-threshold",
          run.rowList(),
          expected
            ? `still connected after ${failures} consecutive failed probes (threshold ${threshold})`
            : `disconnected after ${failures} consecutive failed probes, before the threshold ${threshold}`,
        )
      else if (expected && run.requeueAfter !== retry)
        this.violation(
          this.slot(i),
          "failure-threshold",
          run.rowList(),
          `requeued after ${run.requeueAfter} ms instead of the retry interval ${retry} ms after the threshold disconnect`,
        )
      return
    }
    totals.probeUnauthorized++
    if (!run.disconnected)
      this.violation(
        this.slot(i),
        "unauthorized-disconnect",
        run.rowList(),
        "still connected after a 401 from the probe",
      )
    else if (run.requeueAfter !== c.unauthorizedRequeueAfter)
      this.violation(
        this.slot(i),
        "unauthorized-disconnect",
        run.rowList(),
        `requeued after ${run.requeueAfter} ms instead of ${c.unauthorizedRequeueAfter} ms after a 401`,
      )
  }

  /** A failed connect's requeue; one event per connect and per disconnect (Reconciler rows 6 and 12). */
  protected checkEvents(i: number): void {
    const run = this.run
    const retry = this.ccConfig.connectionCreationRetryInterval
    if (run.connect === 3 && run.requeueAfter !== retry)
      this.violation(
        this.slot(i),
        "retry-interval",
        run.rowList(),
        `a failed connect requeued after ${run.requeueAfter} ms instead of ${retry} ms`,
      )
    const connects = run.connect === 2 ? 1 : 0
    const disconnects = run.disconnected && run.probe > 0 ? 1 : 0
    if (run.connectEvents !== connects || run.disconnectEvents !== disconnects)
      this.violation(
        this.slot(i),
        "connect-disconnect-events",
        run.rowList(),
        `${run.connectEvents} connect and ${run.disconnectEvents} disconnect events for ${connects} connect and ${disconnects} disconnect`,
      )
  }

  /** Writes the rows of the reconcile not yet in the trace, and counts them. */
  protected traceCache(i: number, now: number): void {
    const run = this.run
    const codes = run.codes
    const n = run.n
    const counts = this.measurements.rowCodes
    for (let k = run.traced; k < n; k++) {
      const code = codes[k] as number
      if (code === UNKNOWN_ROW) this.countOther(run.rows[k] as RowId)
      else counts[code] = (counts[code] as number) + 1
    }
    if (n > run.traced) this.writer.rows(now, i, RecordKind.ClusterCache, codes, run.traced, n)
    run.traced = n
  }

  protected countOther(row: RowId): void {
    const other = this.measurements.otherRows
    other[row] = (other[row] ?? 0) + 1
  }
}
