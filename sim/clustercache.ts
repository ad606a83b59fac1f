import type {
  AccessorState,
  AccessorTrigger,
  ClusterSource,
  ReconcilerDesired,
  ReconcilerTrigger,
  SendEventAction,
} from "../core/clustercache/index.ts"
import type { RowId } from "../core/krtt/index.ts"
import {
  CLUSTER_SOURCE,
  Engine,
  Ev,
  F_BUSY,
  F_CONNECTED,
  F_DIRTY,
  F_ROTATED,
  F_SERVER_UP,
  H_DOWN,
  H_FAILURES,
  H_FLAGS,
  H_LATENCY,
  H_PROBED,
  H_SLOW,
  type SimulationOptions,
  VIEW_SHIFT,
} from "./engine.ts"
import { RecordKind, rowCode, UNKNOWN_ROW } from "./trace.ts"
import { CacheRun, CLUSTER_VIEWS, type Slot } from "./world.ts"

const RECONCILE: ReconcilerTrigger = { _tag: "Reconcile" }
const PROBE_TRIGGERS: ReadonlyArray<ReconcilerTrigger> = [
  { _tag: "ProbeFinished", outcome: "success" },
  { _tag: "ProbeFinished", outcome: "failure" },
  { _tag: "ProbeFinished", outcome: "unauthorized" },
]
const CONNECT_OK: ReconcilerTrigger = { _tag: "ConnectFinished", ok: true }
const CONNECT_FAILED: ReconcilerTrigger = { _tag: "ConnectFinished", ok: false }
const CONNECT_STEPS = ["createConnection", "createClients", "cacheSync"] as const
const STEP_DONE: ReadonlyArray<AccessorTrigger> = [
  { _tag: "ConnectionCreated" },
  { _tag: "CacheStarted" },
  { _tag: "CacheSynced" },
]
const A_CONNECT: AccessorTrigger = { _tag: "Connect" }
/** Reconciler transitions one ClusterCache reconcile may take (no documented path takes more than 4). */
const MAX_TRANSITIONS = 32
const ACCESSOR_DESIRED = { clientCertificatePrivateKey: "disabled" } as const
const NO_ACCESSOR: AccessorState = {
  connected: false,
  consecutiveFailures: 0,
  watches: [],
  lastEventSent: {},
  privateKeyGenerated: false,
}

export abstract class ClusterCacheSimulation extends Engine {
  protected readonly sources: ReadonlyArray<ClusterSource>
  protected readonly desired: ReadonlyArray<ReconcilerDesired>
  /** The Reconciler's input, reused from call to call. */
  protected readonly ccInput: {
    observed: { accessor: AccessorState | undefined }
    desired: ReconcilerDesired
    trigger: ReconcilerTrigger
    now: number
  }
  /** The ClusterCache reconcile in progress (a waiting one is copied to its slot). */
  protected readonly run = new CacheRun()

  constructor(options: SimulationOptions) {
    super(options)
    this.sources = [
      {
        name: CLUSTER_SOURCE,
        probeFailureDurations: [options.config.clusterController.remoteConnectionGracePeriod],
      },
    ]
    this.desired = CLUSTER_VIEWS.map((cluster) => ({ cluster, sources: this.sources }))
    this.ccInput = {
      observed: { accessor: undefined },
      desired: this.desired[0] as ReconcilerDesired,
      trigger: RECONCILE,
      now: 0,
    }
  }

  // ---------------------------------------------------------------------------------------------
  // The ClusterCache: the Reconciler and clusterAccessor tables, their I/O answered by the world.

  protected reconcileCache(i: number, now: number): void {
    const hot = this.hot
    const h = this.hi(i) + H_FLAGS
    const flags = hot[h] as number
    if ((flags & F_BUSY) !== 0) {
      // One reconcile per Cluster at a time: run again when this one ends.
      hot[h] = flags | F_DIRTY
      return
    }
    const run = this.run
    run.reset(now)
    run.desired = this.desired[flags >>> VIEW_SHIFT] as ReconcilerDesired
    this.measurements.totals.clusterCacheReconciles++
    const reconciles = this.measurements.series.reconciles
    reconciles[this.bucket] = (reconciles[this.bucket] as number) + 1
    this.cacheLoop(i, RECONCILE, now)
  }

  /** Feeds the Reconciler trigger after trigger until the reconcile ends or waits for I/O. */
  protected cacheLoop(i: number, first: ReconcilerTrigger, now: number): void {
    const run = this.run
    const input = this.ccInput
    input.desired = run.desired as ReconcilerDesired
    input.now = this.epoch + now
    const reconciler = this.cores.reconciler
    const totals = this.measurements.totals
    let trigger: ReconcilerTrigger | undefined = first
    for (let n = 0; trigger !== undefined; n++) {
      if (n === MAX_TRANSITIONS) {
        // Loops fail, never hang: the Reconciler went on past the bound without ending its reconcile.
        this.violation(
          this.slot(i),
          "no-reconcile-storm",
          run.rowList(),
          `a reconcile did not end within ${MAX_TRANSITIONS} transitions`,
        )
        break
      }
      input.observed.accessor = this.accessors[this.li(i)]
      input.trigger = trigger
      const r = reconciler(input, this.ccConfig)
      totals.transitions++
      run.push(r.row, rowCode(r.row))
      this.accessors[this.li(i)] = r.status.accessor
      trigger = undefined
      const actions = r.actions
      for (let k = 0; k < actions.length; k++) {
        const a = actions[k] as (typeof actions)[number]
        switch (a._tag) {
          case "Continue":
            trigger = a.trigger
            break
          case "Requeue":
            run.requeueAfter = a.after
            break
          case "Probe":
            this.startProbe(i, a.timeout, now)
            if (run.io !== 0) return // the probe takes time: resumeCache goes on
            trigger = PROBE_TRIGGERS[run.ioResult]
            break
          case "Connect":
            this.startConnect(i, now)
            if (run.io !== 0) return
            trigger = this.finishConnect(i, now)
            break
          case "SendEvent":
            this.sendEvent(i, a, now)
            break
          case "StopCache":
            run.disconnected = true
            break
          case "CreateAccessor":
            this.hot[this.hi(i) + H_FAILURES] = 0
            this.slot(i).lastFailedConnectAt = -1
            break
          default:
            break
        }
      }
      if (r.status.done) break
    }
    this.finishCache(i, now)
  }

  protected slot(i: number): Slot {
    return this.slots[i] as Slot
  }

  /** The I/O a reconcile waited for is done: take the reconcile up again. */
  protected resumeCache(s: Slot, now: number): void {
    const run = this.run
    run.copyFrom(s.waiting as CacheRun)
    s.waiting = undefined
    const h = this.hi(s.index) + H_FLAGS
    this.hot[h] = (this.hot[h] as number) & ~F_BUSY
    const io = run.io
    run.io = 0
    if (io === 2) this.cacheLoop(s.index, PROBE_TRIGGERS[run.ioResult] as ReconcilerTrigger, now)
    else this.cacheLoop(s.index, this.finishConnect(s.index, now), now)
  }

  protected wait(i: number, io: number, latency: number, now: number): void {
    const run = this.run
    run.io = io
    const h = this.hi(i) + H_FLAGS
    this.hot[h] = (this.hot[h] as number) | F_BUSY
    this.traceCache(i, now)
    this.slot(i).waiting = new CacheRun().copyFrom(run)
    this.push(i, now + latency, Ev.CacheIo)
  }

  /** `GET /` with the probe timeout, answered by the world. */
  protected startProbe(i: number, timeout: number, now: number): void {
    const run = this.run
    const hot = this.hot
    const h = this.hi(i)
    const interval = this.ccConfig.healthProbe.interval
    const last = hot[h + H_PROBED] as number
    // Stryker disable next-line ConditionalExpression,EqualityOperator
    if (last >= 0) {
      const gap = now - last
      if (gap < interval)
        this.violation(
          this.slot(i),
          "probe-interval",
          run.rowList(),
          `probed ${gap} ms after the previous probe, sooner than the ${interval} ms interval`,
        )
      else if (gap > interval + timeout)
        this.violation(
          this.slot(i),
          "probe-interval",
          run.rowList(),
          `probed ${gap} ms after the previous probe, later than interval + timeout (${interval + timeout} ms)`,
        )
    }
    hot[h + H_PROBED] = now
    this.measurements.totals.probes++
    const flags = hot[h + H_FLAGS] as number
    const slowLatency = (hot[h + H_SLOW] as number) > 0 ? (hot[h + H_LATENCY] as number) : 0
    let outcome = 0
    let latency = 0
    if ((flags & F_SERVER_UP) === 0 || (hot[h + H_DOWN] as number) > 0) outcome = 1
    else if (slowLatency > timeout) {
      outcome = 1
      latency = timeout
    } else {
      latency = slowLatency
      if ((flags & F_ROTATED) !== 0) outcome = 2
    }
    run.probe = outcome
    run.ioResult = outcome
    if (latency > 0) this.wait(i, 2, latency, now)
  }

  /** Connect(): the accessor's first step, then the world decides how the attempt ends. */
  protected startConnect(i: number, now: number): void {
    const run = this.run
    const s = this.slot(i)
    const retry = this.ccConfig.connectionCreationRetryInterval
    if (s.lastFailedConnectAt >= 0 && now - s.lastFailedConnectAt < retry)
      this.violation(
        s,
        "retry-interval",
        run.rowList(),
        `connection attempt ${now - s.lastFailedConnectAt} ms after a failed one (retry interval ${retry} ms)`,
      )
    run.connect = 1
    const r = this.cores.accessor(
      {
        observed: this.accessors[this.li(i)] ?? NO_ACCESSOR,
        desired: ACCESSOR_DESIRED,
        trigger: A_CONNECT,
        now: this.epoch + now,
      },
      this.ccConfig,
    )
    this.measurements.totals.transitions++
    run.push(r.row, rowCode(r.row))
    this.accessors[this.li(i)] = r.status.accessor
    run.ioResult = -1
    if (r.status.connect !== "pending") {
      run.connect = 0 // already connected: nothing to do
      return
    }
    let latency = 0
    if (!s.kubeconfig) this.connectFails(0, `Secret fleet/${s.name}-kubeconfig not found`)
    else if (!s.serverUp || s.down > 0) this.connectFails(0, "dial tcp: connection refused")
    else if (s.credentialsRotated) {
      this.connectFails(0, "Unauthorized")
      if (s.slow > 0) latency = s.slowLatency
    } else latency = s.slow > 0 ? 2 * s.slowLatency : this.draw(s, this.config.apiServer.connectDuration)
    if (latency > 0) this.wait(i, 1, latency, now)
  }

  protected connectFails(step: number, error: string): void {
    this.run.ioResult = step
    this.run.ioError = error
  }

  /** The rest of Connect(): the accessor's steps up to connected or failed. */
  protected finishConnect(i: number, now: number): ReconcilerTrigger {
    const run = this.run
    let a = this.accessors[this.li(i)]
    if (run.connect !== 1 || a === undefined) return a?.connected ? CONNECT_OK : CONNECT_FAILED
    const fail = run.ioResult
    const accessor = this.cores.accessor
    let status = "pending"
    for (let step = 0; step < 3 && status === "pending"; step++) {
      const trigger: AccessorTrigger =
        step === fail
          ? {
              _tag: "ConnectionFailed",
              step: CONNECT_STEPS[step] as (typeof CONNECT_STEPS)[number],
              error: run.ioError,
            }
          : (STEP_DONE[step] as AccessorTrigger)
      const r = accessor(
        { observed: a, desired: ACCESSOR_DESIRED, trigger, now: this.epoch + now },
        this.ccConfig,
      )
      this.measurements.totals.transitions++
      run.push(r.row, rowCode(r.row))
      a = r.status.accessor
      status = r.status.connect
    }
    this.accessors[this.li(i)] = a
    const totals = this.measurements.totals
    if (status === "connected" && a.connected) {
      run.connect = 2
      const h = this.hi(i)
      this.hot[h + H_PROBED] = now
      this.hot[h + H_FAILURES] = 0
      totals.connects++
      return CONNECT_OK
    }
    run.connect = 3
    this.slot(i).lastFailedConnectAt = now
    totals.failedConnects++
    return CONNECT_FAILED
  }

  protected sendEvent(i: number, a: SendEventAction, now: number): void {
    const run = this.run
    this.measurements.totals.eventsSent++
    for (const reason of a.reasons) {
      if (reason === "connect") run.connectEvents++
      else if (reason === "disconnect") run.disconnectEvents++
    }
    // The Cluster controller watches its cluster source.
    if (a.source === CLUSTER_SOURCE) this.clusterAt(this.slot(i), now)
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
