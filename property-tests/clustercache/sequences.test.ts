/**
 * Sequences over virtual time: one Cluster, its accessor and a workload API server that goes
 * down, comes back, rotates its credentials; the ClusterCache Reconciler runs whenever its
 * requeue is due or the Cluster changes. Each step checks the temporal promises of seed 000.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  type AccessorState,
  ClusterCacheDefaults,
  type ClusterSource,
  type ClusterView,
  probeFailureReason,
  type ReconcileRun,
  runReconcile,
  watchTransition,
} from "../../core/clustercache/index.ts"

const config = ClusterCacheDefaults
const RETRY = config.connectionCreationRetryInterval
const THRESHOLD = config.healthProbe.failureThreshold
const FAILURE_DURATION = 60_000
/** No row asks for two reconciles at the same virtual instant; a few allow for a Cluster event at a requeue. */
const MAX_RECONCILES_AT_ONE_INSTANT = 10
const sources: ReadonlyArray<ClusterSource> = [
  { name: "machine", probeFailureDurations: [] },
  { name: "machinehealthcheck", probeFailureDurations: [FAILURE_DURATION] },
]

interface SentEvent {
  readonly at: number
  readonly source: string
  readonly reasons: ReadonlyArray<string>
  readonly lastProbeSuccessTime: number | undefined
}

/** The system under test and the world around it, plus what the checks remember. */
class World {
  now = 1_700_000_000_000
  accessor: AccessorState | undefined
  cluster: ClusterView = { _tag: "Found", infrastructureProvisioned: true, deleting: false }
  server: "up" | "down" = "up"
  credentials: "valid" | "rotated" = "valid"
  secret = true
  requeueAt: number | undefined
  // What the checks remember.
  lastFailedConnect: number | undefined
  probeFailuresSinceSuccess = 0
  connects = 0
  probeDisconnects = 0
  sent: Array<SentEvent> = []
  runs = 0
  lastRows: ReadonlyArray<string> = []

  reconcile(): ReconcileRun {
    const before = this.accessor
    const run = runReconcile(
      this.accessor,
      { cluster: this.cluster, sources },
      this.now,
      {
        connect: () => {
          if (!this.secret) return { ok: false, step: "createConnection", error: "secret not found" }
          if (this.server === "down")
            return { ok: false, step: "createConnection", error: "cluster is not reachable" }
          if (this.credentials === "rotated") return { ok: false, step: "cacheSync", error: "Unauthorized" }
          return { ok: true }
        },
        probe: () =>
          this.server === "down" ? "failure" : this.credentials === "rotated" ? "unauthorized" : "success",
      },
      config,
    )
    this.runs++
    this.check(before, run)
    this.accessor = run.accessor
    this.requeueAt = run.requeueAfter === undefined ? undefined : this.now + run.requeueAfter
    return run
  }

  private check(before: AccessorState | undefined, run: ReconcileRun): void {
    const at = `at t=${this.now - 1_700_000_000_000}ms, rows ${run.rows.join(" ")}`
    // Loops fail, never hang: a requeue must move virtual time forward.
    if (run.requeueAfter !== undefined) {
      expect(run.requeueAfter, `requeue of ${run.requeueAfter} ms would loop ${at}`).toBeGreaterThan(0)
    }
    // A new accessor (the Cluster came back) starts with no failed connect to wait out.
    if (run.accessorCreated) {
      this.lastFailedConnect = undefined
      this.probeFailuresSinceSuccess = 0
    }
    // No connection attempt within the retry interval of a failed one (Reconciler, rows 5 and 6).
    if (run.connectAttempt !== "none" && this.lastFailedConnect !== undefined) {
      expect(this.now - this.lastFailedConnect, `connect attempt too early ${at}`).toBeGreaterThanOrEqual(
        RETRY,
      )
    }
    if (run.connectAttempt === "failed") {
      this.lastFailedConnect = this.now
      expect(run.requeueAfter, `requeue after a failed connect ${at}`).toBe(RETRY)
    }
    if (run.connectAttempt === "succeeded") {
      this.connects++
      this.probeFailuresSinceSuccess = 0
      // After a (re)connect, every watch must be added again (Watch Management).
      expect(run.accessor?.watches, `watches after connect ${at}`).toEqual([])
    }
    // Disconnect exactly at the fifth consecutive failure; at once on a 401 (rows 9-11).
    if (run.probe !== undefined) {
      if (run.probe === "success") this.probeFailuresSinceSuccess = 0
      else this.probeFailuresSinceSuccess++
      const shouldDisconnect = run.probe === "unauthorized" || this.probeFailuresSinceSuccess >= THRESHOLD
      expect(
        run.disconnected,
        `disconnect after probe ${run.probe} #${this.probeFailuresSinceSuccess} ${at}`,
      ).toBe(shouldDisconnect)
      if (run.probe === "failure" && shouldDisconnect) {
        expect(this.probeFailuresSinceSuccess, `disconnect at the threshold ${at}`).toBe(THRESHOLD)
      }
      if (run.probe === "unauthorized") expect(run.requeueAfter, `requeue after a 401 ${at}`).toBe(1)
      if (shouldDisconnect) {
        this.probeDisconnects++
        this.probeFailuresSinceSuccess = 0
      }
    }
    // One event per connect and per disconnect to every source (Event Trigger Conditions).
    for (const s of sources) {
      const mine = run.events.filter((e) => e.source === s.name)
      expect(mine.length, `events to ${s.name} ${at}`).toBeLessThanOrEqual(1)
      const reasons = mine[0]?.reasons ?? []
      expect(reasons.includes("connect"), `connect event to ${s.name} ${at}`).toBe(
        run.connectAttempt === "succeeded",
      )
      const probeDisconnect = run.probe !== undefined && run.disconnected
      expect(reasons.includes("disconnect"), `disconnect event to ${s.name} ${at}`).toBe(probeDisconnect)
      if (mine.length === 1) {
        this.sent.push({
          at: this.now,
          source: s.name,
          reasons,
          lastProbeSuccessTime: before?.lastProbeSuccessTime ?? run.accessor?.lastProbeSuccessTime,
        })
      }
      // Probe-failure events follow the documented condition and are not repeated within the duration.
      if (reasons.includes(probeFailureReason(FAILURE_DURATION))) {
        const lps = run.accessor?.lastProbeSuccessTime ?? -8_640_000_000_000_000
        const due = lps + FAILURE_DURATION
        expect(due, `probe-failure event before the duration ${at}`).toBeLessThan(this.now)
        const earlier = this.sent.filter((e) => e.source === s.name && e.at < this.now && e.at >= due)
        expect(earlier, `probe-failure event repeated ${at}`).toEqual([])
      }
    }
    // No accessor left for a deleted Cluster (rows 2 and 13).
    if (this.cluster._tag === "NotFound") {
      expect(run.accessor, `accessor of a deleted Cluster ${at}`).toBeUndefined()
      expect(run.requeueAfter).toBeUndefined()
    }
  }

  /** Lets virtual time pass, running every requeue that falls due. */
  advance(ms: number): void {
    const until = this.now + ms
    let instant = this.now
    let atInstant = 0
    while (this.requeueAt !== undefined && this.requeueAt <= until) {
      this.now = Math.max(this.now, this.requeueAt)
      if (this.now === instant) atInstant++
      else [instant, atInstant] = [this.now, 1]
      // Loops fail, never hang: more reconciles at one virtual instant than any row can ask for.
      if (atInstant > MAX_RECONCILES_AT_ONE_INSTANT) {
        throw new Error(
          `loop: ${atInstant} reconciles at t=${this.now - 1_700_000_000_000}ms; last rows ${this.lastRows.join(" ")}`,
        )
      }
      this.lastRows = this.reconcile().rows
    }
    this.now = until
  }
}

type Cmd = fc.Command<object, World>
const cmd = (name: string, run: (w: World) => void): Cmd => ({
  check: () => true,
  run: (_m, w) => run(w),
  toString: () => name,
})

const commands = [
  fc.integer({ min: 1, max: 90_000 }).map((ms) => cmd(`advance(${ms})`, (w) => w.advance(ms))),
  fc.constant(cmd("clusterUpdated", (w) => w.cluster._tag === "Found" && w.reconcile())),
  fc.constant(
    cmd("serverDown", (w) => {
      w.server = "down"
    }),
  ),
  fc.constant(
    cmd("serverUp", (w) => {
      w.server = "up"
    }),
  ),
  fc.constant(
    cmd("rotateCredentials", (w) => {
      w.credentials = "rotated"
    }),
  ),
  fc.constant(
    cmd("fixKubeconfig", (w) => {
      w.credentials = "valid"
      w.secret = true
      if (w.cluster._tag === "Found") w.reconcile()
    }),
  ),
  fc.constant(
    cmd("secretMissing", (w) => {
      w.secret = false
    }),
  ),
  fc.boolean().map((p) =>
    cmd(`infrastructureProvisioned(${p})`, (w) => {
      w.cluster = { _tag: "Found", infrastructureProvisioned: p, deleting: false }
      w.reconcile()
    }),
  ),
  fc.constantFrom("node-watcher", "pod-watcher").map((name) =>
    cmd(`watch(${name})`, (w) => {
      const a = w.accessor
      if (a === undefined) return
      let r = watchTransition({ observed: a, desired: { name }, trigger: { _tag: "Watch" }, now: w.now })
      if (r.status.outcome === "pending")
        r = watchTransition({ observed: a, desired: { name }, trigger: { _tag: "WatchStarted" }, now: w.now })
      if (r.status.outcome === "ok") w.accessor = { ...a, watches: r.status.watches }
      else expect(r.status.error?._tag).toBe(a.connected ? "WatchFailed" : "ClusterNotConnectedError")
    }),
  ),
  fc.constant(
    cmd("delete", (w) => {
      w.cluster = { _tag: "NotFound" }
      w.reconcile()
      w.sent = []
    }),
  ),
  fc.constant(
    cmd("recreate", (w) => {
      if (w.cluster._tag !== "NotFound") return
      w.cluster = { _tag: "Found", infrastructureProvisioned: true, deleting: false }
      w.lastFailedConnect = undefined
      w.reconcile()
    }),
  ),
]

describe("ClusterCache sequences over virtual time (seed 000)", () => {
  it("keeps the retry interval, the failure threshold, 401 handling, watches and events", () => {
    fc.assert(
      fc.property(fc.commands(commands, { maxCommands: 80 }), (cmds) => {
        const world = new World()
        world.reconcile()
        fc.modelRun(() => ({ model: {}, real: world }), cmds)
        world.advance(300_000)
      }),
      { numRuns: 400 },
    )
  })

  it("disconnects exactly when the fifth consecutive probe failure arrives", () => {
    const w = new World()
    w.reconcile() // row 1, then connect (row 4)
    expect(w.accessor?.connected).toBe(true)
    w.server = "down"
    const disconnectedAt: Array<number> = []
    for (let i = 1; i <= 5; i++) {
      w.advance(config.healthProbe.interval)
      if (!w.accessor?.connected) disconnectedAt.push(i)
    }
    expect(disconnectedAt).toEqual([5])
    expect(w.requeueAt === undefined ? undefined : w.requeueAt - w.now).toBe(RETRY)
  })

  it("disconnects on a 401 at once, requeues after 1 ms and reconnects once the kubeconfig is fixed", () => {
    const w = new World()
    w.reconcile()
    w.credentials = "rotated"
    w.advance(config.healthProbe.interval)
    expect(w.accessor?.connected).toBe(false)
    expect(w.requeueAt === undefined ? undefined : w.requeueAt - w.now).toBe(1)
    w.credentials = "valid"
    w.advance(1)
    expect(w.accessor?.connected).toBe(true)
    expect(w.connects).toBe(2)
    expect(w.sent.filter((e) => e.source === "machine").map((e) => e.reasons)).toEqual([
      ["connect"],
      ["disconnect"],
      ["connect"],
    ])
  })

  it("sends one probe-failure event per failure episode to a source that asked for it", () => {
    const w = new World()
    w.reconcile()
    w.server = "down"
    w.advance(10 * 60_000)
    const failures = w.sent.filter(
      (e) => e.source === "machinehealthcheck" && e.reasons.some((r) => r.startsWith("health probe")),
    )
    expect(failures.length).toBe(1)
    expect(
      w.sent
        .filter((e) => e.source === "machine")
        .every((e) => !e.reasons.some((r) => r.startsWith("health probe"))),
    ).toBe(true)
  })
})
