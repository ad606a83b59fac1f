/**
 * The simulation: a fleet of Cluster slots in a discrete-event world with a virtual clock. It
 * plays the part the shell plays for real: it feeds each controller's table what the world looks
 * like and `now`, and applies the actions to the world, requeues becoming timers in its event
 * queue. Nothing waits for real time; a day of a large fleet runs in seconds.
 *
 * Expected flow of one slot: a Cluster is created with its InfraCluster, control plane and
 * MachineDeployments; the Cluster controller adds its finalizer, adopts the provider objects and
 * follows their progress into `Provisioned`; the ClusterCache connects once the infrastructure is
 * provisioned (failing, and retrying every 30 s, until the control plane serves) and probes the
 * workload API server every 10 s. Faults strike at random (outages, slow periods, credential
 * rotations) or as a scenario says; the controllers handle them as their tables say, and the
 * invariants (`invariants.ts`) are checked at every step. Deletions arrive over time; the Cluster
 * controller deletes in the documented order, the ClusterCache drops the accessor, and the slot
 * gets a new Cluster a while later.
 *
 * Assumptions: the controllers' work queues have no latency (a reconcile runs at the instant it
 * is due) and coalesce a request with a pending one, the earliest time winning; one reconcile per
 * Cluster and controller at a time (a request during a reconcile waits for its end); management
 * API calls succeed at once; a Connect() or a probe takes virtual time only when the API server
 * is slow or a connection succeeds (cache sync), and its outcome is decided when it starts; the
 * cores keep no reference to their input (the simulation reuses input objects).
 *
 * Guarantees: slots do not interact, and each slot draws from its own random stream and orders
 * its events by its own counter, so a slot's history depends only on the seed, the configuration
 * and its index: a run is reproducible byte for byte, and the fleet can be split between workers
 * without changing the trace.
 *
 * Caveat (performance): with thousands of slots every reconcile finds its slot's state out of the
 * CPU caches, so what each ClusterCache reconcile reads and writes besides the accessor is kept in
 * one cache line per slot (`hot`), and the slot object is only touched on the rarer paths.
 *
 * @module
 */

import {
  type ClusterAction,
  type ClusterControllerConfig,
  type ClusterInput,
  type ClusterStatus,
  type ClusterTrigger,
  rfc3339,
} from "../core/cluster/index.ts"
import type {
  AccessorState,
  AccessorTrigger,
  ClusterCacheConfig,
  ClusterSource,
  ReconcilerDesired,
  ReconcilerTrigger,
  SendEventAction,
} from "../core/clustercache/index.ts"
import type { RowId } from "../core/krtt/index.ts"
import type { SimConfig } from "./config.ts"
import { defaultCores, type SimCores } from "./cores.ts"
import { type CheckName, checkIndex, type Violation, ViolationLog } from "./invariants.ts"
import { EventQueue } from "./queue.ts"
import { appliesTo } from "./scenario.ts"
import { type Measurements, newMeasurements, recordTimeToProvisioned } from "./stats.ts"
import {
  HashSink,
  RecordKind,
  rowCode,
  type TraceSink,
  TraceWriter,
  UNKNOWN_ROW,
  WORLD_EVENTS,
  WorldEvent,
} from "./trace.ts"
import { CacheRun, CLUSTER_VIEWS, deepEqual, observeCluster, Slot } from "./world.ts"

/** What happens at an instant; the event's argument is in the payload's upper bits. */
const Ev = {
  CacheReconcile: 0,
  CacheIo: 1,
  ClusterReconcile: 2,
  Create: 3,
  Delete: 4,
  InfraReady: 5,
  ControlPlaneReady: 6,
  WorkersGone: 7,
  ControlPlaneGone: 8,
  InfraGone: 9,
  OutageEnd: 10,
  SlowEnd: 11,
  KubeconfigFixed: 12,
  Fault: 13,
  Scenario: 14,
  ConnectedDeadline: 15,
  AccessorDeadline: 16,
} as const

const W = WorldEvent
const ARG_MASK = 0x1ffffff
const SLOT_SPAN = 4294967296
const FAULTS = ["outage", "slow", "rotation"] as const
const HOUR = 3_600_000
const NONE = Number.POSITIVE_INFINITY

// The hot record of a slot: 8 float64 = one cache line.
const STRIDE = 8
/** When the pending ClusterCache reconcile is due (Infinity: none). */
const H_DUE = 0
/** The slot's event counter, which orders its events at equal times. */
const H_SEQ = 1
/** When the accessor was last probed, or connected (the core's lastProbeTime); -1: never. */
const H_PROBED = 2
/** Consecutive failed probes since the last success or connect, as the checks count them. */
const H_FAILURES = 3
const H_FLAGS = 4
/** Outages in progress (they may overlap). */
const H_DOWN = 5
/** Slow periods in progress. */
const H_SLOW = 6
/** Response time while slow. */
const H_LATENCY = 7
// Flags.
const F_BUSY = 1
const F_DIRTY = 2
const F_CONNECTED = 4
const F_SERVER_UP = 8
const F_ROTATED = 16
/** Bits 8-10: the Cluster's view for the ClusterCache (index into CLUSTER_VIEWS). */
const VIEW_SHIFT = 8

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
const ACCESSOR_DESIRED = { clientCertificatePrivateKey: "disabled" } as const
const NO_ACCESSOR: AccessorState = {
  connected: false,
  consecutiveFailures: 0,
  watches: [],
  lastEventSent: {},
  privateKeyGenerated: false,
}
const CLUSTER_RECONCILE: ClusterTrigger = { _tag: "Reconcile" }
/** The Cluster controller's cluster source (`GetClusterSource`): the one the simulation feeds. */
export const CLUSTER_SOURCE = "cluster"

export interface SimulationOptions {
  readonly config: SimConfig
  /** The cores to run; the unmodified ones by default. */
  readonly cores?: Partial<SimCores>
  /** Simulate only the `index`-th of `count` equal ranges of slots (one worker's share). */
  readonly shard?: { readonly index: number; readonly count: number }
  /** Where the trace goes; by default it is only hashed. */
  readonly trace?: TraceSink
  /** Hand each trace batch's buffer to the sink for good (to post it to another thread); no hash. */
  readonly transferTrace?: boolean
  /** Called for each violation as it is found. */
  readonly onViolation?: (v: Violation) => void
  /** Called for each world event (creations, faults, providers' progress), e.g. for a live view. */
  readonly onWorldEvent?: (slot: Slot, event: WorldEvent, at: number) => void
}

/** What a run produced. */
export interface SimResult {
  readonly measurements: Measurements
  readonly violations: ViolationLog
  /** SHA-256 of the trace, hex; `undefined` when the trace went to another thread. */
  readonly traceHash: string | undefined
  readonly traceRecords: number
  /** Virtual ms simulated. */
  readonly simulated: number
}

export class Simulation {
  readonly config: SimConfig
  readonly cores: SimCores
  /** Slots by index; only this shard's are present. */
  readonly slots: ReadonlyArray<Slot | undefined>
  readonly measurements: Measurements
  readonly violations: ViolationLog
  /** Virtual time, ms since the start. */
  now = 0
  /** The end of the run, virtual ms. */
  readonly end: number
  /** Clusters that exist, accessors connected, Clusters in phase Provisioned (this shard's). */
  clusters = 0
  connected = 0
  provisioned = 0

  /** Accessors and hot records of this shard's slots, by local index (see `li`). */
  private readonly accessors: Array<AccessorState | undefined>
  /** The first slot of this shard. */
  private readonly base: number
  private readonly hot: Float64Array
  /** Lane 0 takes the requeues after the probe interval, lane 1 those after the retry interval. */
  private readonly queue = new EventQueue(4096, 2)
  private readonly writer: TraceWriter
  private readonly hash: HashSink | undefined
  private readonly ccConfig: ClusterCacheConfig
  private readonly clConfig: ClusterControllerConfig
  private readonly sources: ReadonlyArray<ClusterSource>
  private readonly desired: ReadonlyArray<ReconcilerDesired>
  /** The Reconciler's input, reused from call to call. */
  private readonly ccInput: {
    observed: { accessor: AccessorState | undefined }
    desired: ReconcilerDesired
    trigger: ReconcilerTrigger
    now: number
  }
  /** The ClusterCache reconcile in progress (a waiting one is copied to its slot). */
  private readonly run = new CacheRun()
  private readonly epoch: number
  private readonly samples: number
  private nextSample = 0
  private bucket = 0
  private readonly codes: Array<number> = []
  private readonly onViolation: ((v: Violation) => void) | undefined
  private readonly onWorldEvent: ((slot: Slot, event: WorldEvent, at: number) => void) | undefined

  constructor(options: SimulationOptions) {
    const config = options.config
    this.config = config
    this.cores = { ...defaultCores, ...options.cores }
    this.ccConfig = config.clusterCache
    this.clConfig = config.clusterController
    this.epoch = config.epoch
    this.end = config.hours * HOUR
    this.samples = Math.max(1, Math.ceil(this.end / config.sampleEvery))
    this.measurements = newMeasurements(config.sampleEvery, this.samples)
    this.violations = new ViolationLog(config.checks.keepExamples)
    this.sources = [
      { name: CLUSTER_SOURCE, probeFailureDurations: [config.clusterController.remoteConnectionGracePeriod] },
    ]
    this.desired = CLUSTER_VIEWS.map((cluster) => ({ cluster, sources: this.sources }))
    this.ccInput = {
      observed: { accessor: undefined },
      desired: this.desired[0] as ReconcilerDesired,
      trigger: RECONCILE,
      now: 0,
    }
    this.onViolation = options.onViolation
    this.onWorldEvent = options.onWorldEvent
    if (options.transferTrace) {
      this.hash = undefined
      this.writer = new TraceWriter(options.trace ?? { write: () => {} }, true)
    } else {
      this.hash = new HashSink(options.trace)
      this.writer = new TraceWriter(this.hash)
    }
    const n = config.clusters
    const shard = options.shard ?? { index: 0, count: 1 }
    // This shard's slots only, a contiguous range, packed: less memory per worker, fewer cache misses.
    const from = Math.floor((shard.index * n) / shard.count)
    const to = Math.floor(((shard.index + 1) * n) / shard.count)
    this.base = from
    const local = to - from
    this.accessors = new Array(local).fill(undefined)
    this.hot = new Float64Array(local * STRIDE)
    const slots: Array<Slot | undefined> = new Array(n).fill(undefined)
    for (let i = from; i < to; i++) {
      const s = new Slot(i, config.seed)
      slots[i] = s
      const h = this.hi(i)
      this.hot[h + H_DUE] = NONE
      this.hot[h + H_PROBED] = -1
      this.syncHot(s)
      this.init(s)
    }
    this.slots = slots
  }

  /** The local index of slot `i` of this shard. */
  private li(i: number): number {
    return i - this.base
  }

  /** Where slot `i`'s hot record starts. */
  private hi(i: number): number {
    return this.li(i) * STRIDE
  }

  /** The ClusterCache's accessor of a slot, if it has one. */
  accessor(index: number): AccessorState | undefined {
    return this.accessors[this.li(index)]
  }

  /** Whether a slot's accessor is connected. */
  isConnected(index: number): boolean {
    return ((this.hot[this.hi(index) + H_FLAGS] as number) & F_CONNECTED) !== 0
  }

  /** Runs every event before `until` (virtual ms, at most the end of the run). */
  runUntil(until: number = this.end): void {
    const limit = Math.min(until, this.end)
    const q = this.queue
    const hot = this.hot
    while (q.take(limit)) {
      const t = q.time
      const payload = q.payload
      if (t >= this.nextSample) this.sampleUntil(t)
      this.now = t
      const i = (q.order / SLOT_SPAN) | 0
      const kind = payload & 31
      if (kind === Ev.CacheReconcile) {
        const h = this.hi(i)
        if (hot[h + H_DUE] !== t) continue // coalesced into an earlier reconcile
        hot[h + H_DUE] = NONE
        this.reconcileCache(i, t)
      } else this.dispatch(this.slots[i] as Slot, kind, payload >>> 5, t)
    }
    if (limit > this.now) this.now = limit
    if (this.now >= this.nextSample) this.sampleUntil(Math.min(this.now, this.end - 1))
  }

  /** Runs to the end and reports. */
  runToEnd(): SimResult {
    this.runUntil(this.end)
    return this.finish()
  }

  /** Flushes the trace and reports; call once, after the last `runUntil`. */
  finish(): SimResult {
    this.writer.flush()
    return {
      measurements: this.measurements,
      violations: this.violations,
      traceHash: this.hash?.digest(),
      traceRecords: this.writer.count,
      simulated: this.now,
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Scheduling

  private push(i: number, at: number, kind: number, arg = 0): void {
    const h = this.hi(i) + H_SEQ
    const seq = this.hot[h] as number
    this.hot[h] = seq + 1
    this.queue.push(at, i * SLOT_SPAN + seq, kind | ((arg & ARG_MASK) << 5))
  }

  /** Asks for a ClusterCache reconcile of slot `i` at `at` (coalesced with a pending one). */
  private cacheAt(i: number, at: number, lane = -1): void {
    const h = this.hi(i) + H_DUE
    if (at < (this.hot[h] as number)) {
      this.hot[h] = at
      const s = this.hi(i) + H_SEQ
      const seq = this.hot[s] as number
      this.hot[s] = seq + 1
      this.queue.pushLane(lane, at, i * SLOT_SPAN + seq, Ev.CacheReconcile)
    }
  }

  /** Asks for a Cluster controller reconcile of the slot at `at` (coalesced with a pending one). */
  private clusterAt(s: Slot, at: number): void {
    if (at < s.clDue) {
      s.clDue = at
      this.push(s.index, at, Ev.ClusterReconcile)
    }
  }

  /** The Cluster object changed: both controllers watch it. */
  private clusterChanged(s: Slot, now: number): void {
    this.clusterAt(s, now)
    this.cacheAt(s.index, now)
  }

  /** Copies what the ClusterCache's reconciles read of the world into the slot's hot record. */
  private syncHot(s: Slot): void {
    const h = this.hi(s.index)
    const hot = this.hot
    let flags = (hot[h + H_FLAGS] as number) & (F_BUSY | F_DIRTY | F_CONNECTED)
    if (s.serverUp) flags |= F_SERVER_UP
    if (s.credentialsRotated) flags |= F_ROTATED
    flags |= s.clusterView() << VIEW_SHIFT
    hot[h + H_FLAGS] = flags
    hot[h + H_DOWN] = s.down
    hot[h + H_SLOW] = s.slow
    hot[h + H_LATENCY] = s.slowLatency
  }

  private init(s: Slot): void {
    const c = this.config
    this.push(s.index, Math.floor(s.rng.uniform(0, c.churn.creationWindow)), Ev.Create)
    FAULTS.forEach((f, k) => {
      const rate = c.faults[f]
      if (rate > 0) this.push(s.index, this.gap(s, rate), Ev.Fault, k)
    })
    c.scenario.forEach((incident, k) => {
      if (appliesTo(incident, s.index)) this.push(s.index, incident.at, Ev.Scenario, k)
    })
  }

  private sampleUntil(t: number): void {
    const series = this.measurements.series
    const every = this.config.sampleEvery
    while (t >= this.nextSample) {
      const k = Math.floor(this.nextSample / every)
      if (k >= this.samples) break
      series.clusters[k] = this.clusters
      series.connected[k] = this.connected
      series.provisioned[k] = this.provisioned
      this.bucket = k
      this.nextSample += every
    }
  }

  private dispatch(s: Slot, kind: number, arg: number, now: number): void {
    const gen = s.gen & ARG_MASK
    switch (kind) {
      case Ev.CacheIo:
        this.resumeCache(s, now)
        break
      case Ev.ClusterReconcile:
        if (s.clDue !== now) return
        s.clDue = NONE
        this.reconcileCluster(s, now)
        break
      case Ev.Create:
        this.create(s, now)
        break
      case Ev.Delete:
        if (arg === gen) this.requestDelete(s, now, true)
        break
      case Ev.InfraReady:
        if (arg !== gen || !s.exists || !s.infraExists || s.infraDeleting) return
        s.infraProvisioned = true
        this.world(s, W["infrastructure-provisioned"], 0)
        this.clusterAt(s, now)
        this.push(
          s.index,
          now + this.draw(s, this.config.providers.controlPlaneInitialize),
          Ev.ControlPlaneReady,
          gen,
        )
        break
      case Ev.ControlPlaneReady:
        if (arg !== gen || !s.exists || !s.cpExists || s.cpDeleting) return
        s.cpInitialized = true
        s.serverUp = true
        this.world(s, W["control-plane-initialized"], 0)
        if (!s.kubeconfig) {
          // The control-plane provider writes the kubeconfig Secret (the Cluster controller only
          // does without a controlPlaneRef).
          s.kubeconfig = true
          this.world(s, W["kubeconfig-created"], 0)
        }
        this.clusterAt(s, now)
        break
      case Ev.WorkersGone: {
        if (arg >>> 4 !== (gen & (ARG_MASK >>> 4))) return
        const w = s.workers[arg & 15]
        if (w === undefined || w.gone) return
        w.gone = true
        this.world(s, W["descendant-gone"], arg & 15)
        this.clusterAt(s, now)
        break
      }
      case Ev.ControlPlaneGone:
        if (arg !== gen || !s.cpExists) return
        s.cpExists = false
        s.serverUp = false
        this.world(s, W["control-plane-gone"], 0)
        this.clusterAt(s, now)
        break
      case Ev.InfraGone:
        if (arg !== gen || !s.infraExists) return
        s.infraExists = false
        this.world(s, W["infrastructure-gone"], 0)
        this.clusterAt(s, now)
        break
      case Ev.OutageEnd:
        s.down--
        this.world(s, W["apiserver-up"], 0)
        break
      case Ev.SlowEnd:
        s.slow--
        this.world(s, W["apiserver-fast"], 0)
        break
      case Ev.KubeconfigFixed:
        if (arg !== s.rotation || !s.credentialsRotated) return
        s.credentialsRotated = false
        this.world(s, W["kubeconfig-fixed"], 0)
        break
      case Ev.Fault:
        this.fault(s, arg, now)
        break
      case Ev.Scenario:
        this.incident(s, arg, now)
        break
      case Ev.ConnectedDeadline:
        this.connectedDeadline(s, arg, now)
        return
      case Ev.AccessorDeadline:
        if (arg === gen && !s.exists && this.accessors[this.li(s.index)] !== undefined)
          this.violation(
            s,
            "no-accessor-for-deleted-cluster",
            [],
            `the accessor still exists ${this.config.checks.accessorGoneWithin} ms after the Cluster was removed`,
          )
        return
    }
    // Whatever changed in the world: what the ClusterCache reads of it, and the readiness clock.
    this.syncHot(s)
    this.touchReady(s, now)
  }

  /** A duration from a range, in whole ms (the core's clock has ms resolution). */
  private draw(s: Slot, r: { readonly min: number; readonly max: number }): number {
    return Math.round(s.rng.uniform(r.min, r.max))
  }

  /** The gap until the next event of a Poisson process with `rate` per hour, in whole ms. */
  private gap(s: Slot, rate: number): number {
    return Math.max(1, Math.round(s.rng.exponential(HOUR / rate)))
  }

  /** Writes a world event to the trace and tells the observer. */
  private world(s: Slot, code: number, arg: number): void {
    this.writer.record(this.now, s.index, (RecordKind.World << 29) | (code << 21) | (arg & 0x1fffff))
    this.onWorldEvent?.(s, WORLD_EVENTS[code] as WorldEvent, this.now)
  }

  // ---------------------------------------------------------------------------------------------
  // The world: Clusters come and go, providers make progress, faults strike.

  private create(s: Slot, now: number): void {
    if (s.exists) return
    const c = this.config
    s.newCluster(s.gen + 1, now)
    const mds = Math.round(this.draw(s, c.churn.machineDeployments))
    for (let k = 0; k < mds && k < 16; k++) {
      const machines = Math.max(1, Math.round(this.draw(s, c.churn.machinesPerSet)))
      s.workers.push({ name: `${s.name}-md-${k}`, machines, deleting: false, gone: false })
    }
    s.rotation = (s.rotation + 1) & ARG_MASK
    s.recreate = true
    this.clusters++
    this.measurements.totals.clustersCreated++
    this.world(s, W.created, s.gen)
    if (s.rng.chance(c.providers.stuckFraction)) {
      s.infraStuck = true
      this.world(s, W["provider-stuck"], 0)
    } else this.push(s.index, now + this.draw(s, c.providers.infrastructureProvision), Ev.InfraReady, s.gen)
    if (c.churn.deletionRate > 0)
      this.push(s.index, now + this.gap(s, c.churn.deletionRate), Ev.Delete, s.gen)
    this.clusterChanged(s, now)
  }

  private requestDelete(s: Slot, now: number, recreate: boolean): void {
    if (!s.exists || s.deleting) return
    s.recreate = recreate
    s.deletionTimestamp = rfc3339(this.epoch + now)
    s.touchMeta()
    this.world(s, W["delete-requested"], 0)
    if (s.finalizers.length === 0) this.removeCluster(s, now)
    else this.clusterChanged(s, now)
  }

  /** The API server removes a deleting Cluster whose finalizers are gone. */
  private removeCluster(s: Slot, now: number): void {
    s.exists = false
    if (s.status?.phase === "Provisioned") this.provisioned--
    s.kubeconfig = false
    this.clusters--
    this.measurements.totals.clustersDeleted++
    this.world(s, W["cluster-removed"], 0)
    this.clusterChanged(s, now)
    this.push(s.index, now + this.config.checks.accessorGoneWithin, Ev.AccessorDeadline, s.gen)
    if (s.recreate) this.push(s.index, now + this.draw(s, this.config.churn.recreateAfter), Ev.Create)
  }

  private fault(s: Slot, which: number, now: number): void {
    const c = this.config
    const kind = FAULTS[which] as (typeof FAULTS)[number]
    this.push(s.index, now + this.gap(s, c.faults[kind]), Ev.Fault, which)
    // A fault needs a workload cluster to strike.
    if (!s.exists || !s.serverUp) return
    const a = c.apiServer
    if (kind === "outage") this.outage(s, now, this.draw(s, a.outageDuration))
    else if (kind === "slow") this.slowdown(s, now, this.draw(s, a.slowDuration))
    else this.rotate(s, now, this.draw(s, a.kubeconfigFixAfter))
  }

  private incident(s: Slot, index: number, now: number): void {
    const incident = this.config.scenario[index]
    if (incident === undefined) return
    this.measurements.totals.scenarioIncidents++
    const a = this.config.apiServer
    switch (incident.incident) {
      case "apiserver-down":
        this.outage(s, now, incident.for ?? this.draw(s, a.outageDuration))
        break
      case "apiserver-slow":
        this.slowdown(s, now, incident.for ?? this.draw(s, a.slowDuration))
        break
      case "rotate-credentials":
        if (s.exists) this.rotate(s, now, incident.fixAfter ?? this.draw(s, a.kubeconfigFixAfter))
        break
      case "delete-cluster":
        this.requestDelete(s, now, false)
        break
    }
  }

  private outage(s: Slot, now: number, duration: number): void {
    s.down++
    this.measurements.totals.outages++
    this.world(s, W["apiserver-down"], Math.round(duration / 1000))
    this.push(s.index, now + Math.max(1, Math.round(duration)), Ev.OutageEnd)
  }

  private slowdown(s: Slot, now: number, duration: number): void {
    s.slow++
    s.slowLatency = this.draw(s, this.config.apiServer.slowLatency)
    this.measurements.totals.slowPeriods++
    this.world(s, W["apiserver-slow"], Math.round(duration / 1000))
    this.push(s.index, now + Math.max(1, Math.round(duration)), Ev.SlowEnd)
  }

  private rotate(s: Slot, now: number, fixAfter: number): void {
    s.credentialsRotated = true
    s.rotation = (s.rotation + 1) & ARG_MASK
    this.measurements.totals.rotations++
    this.world(s, W["credentials-rotated"], Math.round(fixAfter / 1000))
    this.push(s.index, now + Math.max(1, Math.round(fixAfter)), Ev.KubeconfigFixed, s.rotation)
  }

  /**
   * Whether the world lets the Cluster be Provisioned and connected: providers done, kubeconfig
   * valid, API server healthy. When it becomes so, the deadline of `provisioned-and-connected`
   * starts.
   */
  private touchReady(s: Slot, now: number): void {
    const ready =
      s.exists &&
      !s.deleting &&
      s.infraProvisioned &&
      s.cpInitialized &&
      s.kubeconfig &&
      s.serverUp &&
      s.down === 0 &&
      s.slow === 0 &&
      !s.credentialsRotated
    if (!ready) {
      s.readySince = -1
      return
    }
    if (s.readySince >= 0) return
    s.readySince = now
    s.readyToken = (s.readyToken + 1) & ARG_MASK
    this.push(s.index, now + this.config.checks.connectedWithin, Ev.ConnectedDeadline, s.readyToken)
  }

  private connectedDeadline(s: Slot, token: number, now: number): void {
    if (token !== s.readyToken || s.readySince < 0) return
    const phase = s.status?.phase
    const connected = this.isConnected(s.index)
    if (phase === "Provisioned" && connected) return
    this.violation(
      s,
      "provisioned-and-connected",
      [],
      `ready since t=${(s.readySince / 1000).toFixed(3)}s, yet ${(now - s.readySince) / 1000} s later the phase is ${phase ?? "unset"} and the accessor is ${connected ? "connected" : "not connected"}`,
    )
  }

  // ---------------------------------------------------------------------------------------------
  // The ClusterCache: the Reconciler and clusterAccessor tables, their I/O answered by the world.

  private reconcileCache(i: number, now: number): void {
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
  private cacheLoop(i: number, first: ReconcilerTrigger, now: number): void {
    const run = this.run
    const input = this.ccInput
    input.desired = run.desired as ReconcilerDesired
    input.now = this.epoch + now
    const reconciler = this.cores.reconciler
    const totals = this.measurements.totals
    let trigger: ReconcilerTrigger | undefined = first
    for (let guard = 0; guard < 32 && trigger !== undefined; guard++) {
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

  private slot(i: number): Slot {
    return this.slots[i] as Slot
  }

  /** The I/O a reconcile waited for is done: take the reconcile up again. */
  private resumeCache(s: Slot, now: number): void {
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

  private wait(i: number, io: number, latency: number, now: number): void {
    const run = this.run
    run.io = io
    const h = this.hi(i) + H_FLAGS
    this.hot[h] = (this.hot[h] as number) | F_BUSY
    this.traceCache(i, now)
    this.slot(i).waiting = new CacheRun().copyFrom(run)
    this.push(i, now + latency, Ev.CacheIo)
  }

  /** `GET /` with the probe timeout, answered by the world. */
  private startProbe(i: number, timeout: number, now: number): void {
    const run = this.run
    const hot = this.hot
    const h = this.hi(i)
    const interval = this.ccConfig.healthProbe.interval
    const last = hot[h + H_PROBED] as number
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
  private startConnect(i: number, now: number): void {
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

  private connectFails(step: number, error: string): void {
    this.run.ioResult = step
    this.run.ioError = error
  }

  /** The rest of Connect(): the accessor's steps up to connected or failed. */
  private finishConnect(i: number, now: number): ReconcilerTrigger {
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

  private sendEvent(i: number, a: SendEventAction, now: number): void {
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
  private finishCache(i: number, now: number): void {
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
    // Rarer checks: a connection attempt, an event, a removed Cluster.
    if (run.connect > 1 || run.connectEvents + run.disconnectEvents > 0 || run.disconnected)
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
    if (connected && run.requeueAfter < 0 && desired.cluster._tag === "Found")
      this.violation(
        this.slot(i),
        "probe-interval",
        run.rowList(),
        "a connected accessor's reconcile ended without a requeue: it will not be probed again",
      )
    const after = run.requeueAfter
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
  private probeFailed(i: number): void {
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
  private checkEvents(i: number): void {
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
  private traceCache(i: number, now: number): void {
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

  private countOther(row: RowId): void {
    const other = this.measurements.otherRows
    other[row] = (other[row] ?? 0) + 1
  }

  // ---------------------------------------------------------------------------------------------
  // The Cluster controller: one reconcile, its actions applied to the world.

  private reconcileCluster(s: Slot, now: number): void {
    const checks = this.config.checks
    if (s.clInstant === now) {
      if (++s.clInstantCount > checks.maxReconcilesPerInstant) {
        if (s.clInstantCount === checks.maxReconcilesPerInstant + 1)
          this.violation(
            s,
            "no-reconcile-storm",
            [],
            `reconciled more than ${checks.maxReconcilesPerInstant} times at one instant`,
          )
        // Let time pass rather than loop forever.
        this.clusterAt(s, now + 1_000)
        return
      }
    } else {
      s.clInstant = now
      s.clInstantCount = 1
    }
    const epochNow = this.epoch + now
    const input: ClusterInput = {
      observed: observeCluster(s, this.accessors[this.li(s.index)], this.epoch, epochNow),
      desired: s.spec,
      trigger: CLUSTER_RECONCILE,
      now: epochNow,
    }
    const step = this.cores.cluster(input, this.clConfig)
    const totals = this.measurements.totals
    totals.transitions++
    totals.clusterReconciles++
    const cr = this.measurements.series.clusterReconciles
    cr[this.bucket] = (cr[this.bucket] as number) + 1
    this.traceClusterRows(s, now, step.rows)
    let changed = false
    let requeue = -1
    let error = false
    for (const a of step.actions) {
      switch (a._tag) {
        case "AddFinalizer":
          if (s.exists && !s.deleting && !s.finalizers.includes(a.finalizer)) {
            s.finalizers = [...s.finalizers, a.finalizer]
            s.touchMeta()
            changed = true
          }
          break
        case "RemoveFinalizer":
          this.checkFinalizerLast(s, step.rows)
          if (s.finalizers.includes(a.finalizer)) {
            s.finalizers = s.finalizers.filter((f) => f !== a.finalizer)
            s.touchMeta()
            changed = true
          }
          break
        case "PatchExternal":
          if (a.role === "infrastructure" && s.infraExists && !s.infraOwned) {
            s.infraOwned = true
            this.clusterAt(s, now)
          } else if (a.role === "controlPlane" && s.cpExists && !s.cpOwned) {
            s.cpOwned = true
            this.clusterAt(s, now)
          }
          break
        case "SetControlPlaneEndpoint":
          s.spec = { ...s.spec, controlPlaneEndpoint: a.endpoint }
          changed = true
          break
        case "CreateKubeconfigSecret":
          if (!s.kubeconfig) {
            s.kubeconfig = true
            this.world(s, W["kubeconfig-created"], 0)
          }
          break
        case "DeleteObject":
          this.deleteObject(s, a, step.rows, now)
          break
        case "PatchStatus":
          if (s.exists && !deepEqual(a.status, s.status)) {
            this.setStatus(s, a.status, now)
            changed = true
          }
          break
        case "Requeue":
          requeue = a.after
          break
        case "ReturnError":
          error = true
          break
        case "Event":
          break
      }
    }
    if (s.exists && s.deleting && s.finalizers.length === 0) this.removeCluster(s, now)
    else if (changed) this.clusterChanged(s, now)
    if (error) {
      // controller-runtime's per-item exponential backoff: 5 ms doubling up to 1000 s.
      s.clFailures++
      this.clusterAt(s, now + Math.min(1_000_000, 5 * 2 ** (s.clFailures - 1)))
    } else {
      s.clFailures = 0
      if (requeue > 0) this.clusterAt(s, now + requeue)
    }
    this.syncHot(s)
    this.touchReady(s, now)
  }

  private traceClusterRows(s: Slot, now: number, rows: ReadonlyArray<RowId>): void {
    const codes = this.codes
    codes.length = 0
    const counts = this.measurements.rowCodes
    for (const row of rows) {
      const code = rowCode(row)
      codes.push(code)
      if (code === UNKNOWN_ROW) this.countOther(row)
      else counts[code] = (counts[code] as number) + 1
    }
    if (codes.length > 0) this.writer.rows(now, s.index, RecordKind.Cluster, codes, 0, codes.length)
  }

  private setStatus(s: Slot, status: ClusterStatus, now: number): void {
    const was = s.status?.phase === "Provisioned"
    const is = status.phase === "Provisioned"
    s.status = status
    if (was !== is) this.provisioned += is ? 1 : -1
    if (is && s.provisionedAt < 0) {
      s.provisionedAt = now
      recordTimeToProvisioned(this.measurements, now - s.createdAt)
    }
  }

  private checkFinalizerLast(s: Slot, rows: ReadonlyArray<RowId>): void {
    const remaining: Array<string> = []
    if (!s.descendantsGone) remaining.push("descendants")
    if (s.cpExists) remaining.push("the control plane")
    if (s.infraExists) remaining.push("the infrastructure")
    if (remaining.length > 0)
      this.violation(s, "finalizer-last", rows, `finalizer removed while ${remaining.join(", ")} remain`)
  }

  private deleteObject(
    s: Slot,
    a: Extract<ClusterAction, { _tag: "DeleteObject" }>,
    rows: ReadonlyArray<RowId>,
    now: number,
  ): void {
    const p = this.config.providers
    switch (a.role) {
      case "descendant": {
        const k = s.workers.findIndex((w) => w.name === a.ref.name)
        const w = s.workers[k]
        if (a.ref.kind !== "MachineDeployment" || w === undefined || w.gone || w.deleting) return
        w.deleting = true
        const arg = ((s.gen & (ARG_MASK >>> 4)) << 4) | k
        this.push(s.index, now + this.draw(s, p.workerDelete), Ev.WorkersGone, arg)
        this.clusterAt(s, now)
        return
      }
      case "controlPlane":
        if (!s.descendantsGone)
          this.violation(
            s,
            "delete-after-descendants",
            rows,
            "the control plane was deleted while descendants remain",
          )
        if (!s.cpExists || s.cpDeleting) return
        s.cpDeleting = true
        this.push(s.index, now + this.draw(s, p.controlPlaneDelete), Ev.ControlPlaneGone, s.gen)
        this.clusterAt(s, now)
        return
      case "infrastructure":
        if (!s.descendantsGone)
          this.violation(
            s,
            "delete-after-descendants",
            rows,
            "the infrastructure was deleted while descendants remain",
          )
        if (s.cpExists)
          this.violation(
            s,
            "infrastructure-after-control-plane",
            rows,
            "the infrastructure was deleted while the control-plane object exists",
          )
        if (!s.infraExists || s.infraDeleting) return
        s.infraDeleting = true
        this.push(s.index, now + this.draw(s, p.infrastructureDelete), Ev.InfraGone, s.gen)
        this.clusterAt(s, now)
        return
    }
  }

  // ---------------------------------------------------------------------------------------------

  private violation(s: Slot, check: CheckName, rows: ReadonlyArray<RowId>, message: string): void {
    const v: Violation = { check, cluster: s.name, slot: s.index, at: this.now, rows: [...rows], message }
    this.violations.add(v)
    this.writer.record(this.now, s.index, (RecordKind.Violation << 29) | checkIndex(check))
    this.onViolation?.(v)
  }
}
