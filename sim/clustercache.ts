/**
 * The ClusterCache in the simulation: the Reconciler and clusterAccessor tables run on a slot,
 * their I/O (the health probe, the accessor's connect) answered by the world, which may take
 * virtual time: a reconcile then waits, copied to its slot, and `resumeCache` takes it up when
 * the I/O event comes. `clustercacheChecks.ts` checks and requeues a reconcile that ended.
 *
 * Expected flow: `reconcileCache` starts a reconcile (one per Cluster at a time; another request
 * marks it dirty), `cacheLoop` feeds the Reconciler trigger after trigger and carries out its
 * actions until it is done or waits for I/O, `finishCache` ends it.
 *
 * # Why this loop and not the shared table runner (core/krtt/run.ts)
 * - `runTableSync` cannot drive it: a probe or a connect that takes virtual time suspends the
 *   run mid-answer until its I/O event comes, while other Clusters' events run, and
 *   `runTableSync` needs each action's outcome at once.
 * - `TableRunState`, stepped here and kept in the `CacheRun` across waits, fits and leaves the
 *   trace hash unchanged, but costs more than the simulator's speed allows (~10 %): a new state
 *   and its rows array per reconcile, an `Outcome` per requeue, every row kept twice (the
 *   runner's ids, the trace's codes). Simulation CPU time, 600 Clusters × 12 h, alternating
 *   in-process runs, this loop against `TableRunState`: median 1.18 s against 1.39 s (+18 %;
 *   total of 10 runs +8 %), 1.51 s against 1.59 s (+5 %; total of 8 runs +9 %), and +19 % (median)
 *   for the whole simulator against its single-file version. Resetting one state in place
 *   instead of a new one per reconcile was slower still (+15 %).
 * - The loop keeps the runner's rules where a correct Reconciler can meet them: the bound
 *   (`MAX_TRANSITIONS`, reported as a `no-reconcile-storm` violation rather than thrown as
 *   `TableLoopError`), the next trigger from `Continue` and the I/O's outcome, and the run ends
 *   when no trigger is next or the Reconciler says it is done. Two differences only a broken
 *   Reconciler shows: the bound counts the transitions since the last wait, and the last
 *   requeue asked wins (the Reconciler asks for at most one per run).
 *
 * @module
 */
import type {
  AccessorState,
  AccessorTrigger,
  ClusterSource,
  ReconcilerDesired,
  ReconcilerTrigger,
  SendEventAction,
} from "../core/clustercache/index.ts"
import { ClusterCacheChecks } from "./clustercacheChecks.ts"
import {
  CLUSTER_SOURCE,
  Ev,
  F_BUSY,
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
import { rowCode } from "./trace.ts"
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

export abstract class ClusterCacheSimulation extends ClusterCacheChecks {
  protected readonly sources: ReadonlyArray<ClusterSource>
  protected readonly desired: ReadonlyArray<ReconcilerDesired>
  /** The Reconciler's input, reused from call to call. */
  protected readonly ccInput: {
    observed: { accessor: AccessorState | undefined }
    desired: ReconcilerDesired
    trigger: ReconcilerTrigger
    now: number
  }

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
}
