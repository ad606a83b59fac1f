/**
 * The simulation's engine: the virtual clock and the event queue, the fleet's slots and their
 * hot state, scheduling, the trace and the violations. The layers above fill it in:
 * `worldEvents.ts` (the world: Clusters created and deleted, providers making progress, faults
 * striking, incidents of a scenario; it implements `dispatch`), `clustercache.ts` (the
 * ClusterCache's tables) and `simulation.ts` (the Cluster controller's), which implement the
 * three abstract reconcile methods.
 *
 * See `simulation.ts` for the model, its assumptions and its guarantees.
 *
 * @module
 */

// The modules themselves, not the index: the index re-exports the input schemas, which load
// effect (250 modules, ~60 MiB) in every worker for nothing.
import type { ClusterControllerConfig } from "../core/cluster/config.ts"
import type { AccessorState, ClusterCacheConfig } from "../core/clustercache/index.ts"
import type { RowId } from "../core/krtt/index.ts"
import type { SimConfig } from "./config.ts"
import { appliesTo } from "./config.ts"
import { defaultCores, type SimCores } from "./cores.ts"
import { type CheckName, checkIndex, type Violation, ViolationLog } from "./invariants.ts"
import { EventQueue } from "./queue.ts"
import { type Measurements, newMeasurements } from "./stats.ts"
import { HashSink, RecordKind, type TraceSink, TraceWriter, WORLD_EVENTS, WorldEvent } from "./trace.ts"
import { Slot } from "./world.ts"

/** What happens at an instant; the event's argument is in the payload's upper bits. */
export const Ev = {
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

export const W = WorldEvent
export const ARG_MASK = 0x1ffffff
export const SLOT_SPAN = 4294967296
export const FAULTS = ["outage", "slow", "rotation"] as const
export const HOUR = 3_600_000
export const NONE = Number.POSITIVE_INFINITY

// The hot record of a slot: 8 float64 = one cache line.
export const STRIDE = 8
/** When the pending ClusterCache reconcile is due (Infinity: none). */
export const H_DUE = 0
/** The slot's event counter, which orders its events at equal times. */
export const H_SEQ = 1
/** When the accessor was last probed, or connected (the core's lastProbeTime); -1: never. */
export const H_PROBED = 2
/** Consecutive failed probes since the last success or connect, as the checks count them. */
export const H_FAILURES = 3
export const H_FLAGS = 4
/** Outages in progress (they may overlap). */
export const H_DOWN = 5
/** Slow periods in progress. */
export const H_SLOW = 6
/** Response time while slow. */
export const H_LATENCY = 7
// Flags.
export const F_BUSY = 1
export const F_DIRTY = 2
export const F_CONNECTED = 4
export const F_SERVER_UP = 8
export const F_ROTATED = 16
/** Bits 8-10: the Cluster's view for the ClusterCache (index into CLUSTER_VIEWS). */
export const VIEW_SHIFT = 8

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

export abstract class Engine {
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
  protected readonly accessors: Array<AccessorState | undefined>
  /** The first slot of this shard. */
  protected readonly base: number
  protected readonly hot: Float64Array
  /** Lane 0 takes the requeues after the probe interval, lane 1 those after the retry interval. */
  protected readonly queue = new EventQueue(4096, 2)
  protected readonly writer: TraceWriter
  protected readonly hash: HashSink | undefined
  protected readonly ccConfig: ClusterCacheConfig
  protected readonly clConfig: ClusterControllerConfig
  protected readonly epoch: number
  protected readonly samples: number
  protected nextSample = 0
  protected bucket = 0
  protected readonly codes: Array<number> = []
  protected readonly onViolation: ((v: Violation) => void) | undefined
  protected readonly onWorldEvent: ((slot: Slot, event: WorldEvent, at: number) => void) | undefined

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
  protected li(i: number): number {
    return i - this.base
  }

  /** Where slot `i`'s hot record starts. */
  protected hi(i: number): number {
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

  protected push(i: number, at: number, kind: number, arg = 0): void {
    const h = this.hi(i) + H_SEQ
    const seq = this.hot[h] as number
    this.hot[h] = seq + 1
    this.queue.push(at, i * SLOT_SPAN + seq, kind | ((arg & ARG_MASK) << 5))
  }

  /** Asks for a ClusterCache reconcile of slot `i` at `at` (coalesced with a pending one). */
  protected cacheAt(i: number, at: number, lane = -1): void {
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
  protected clusterAt(s: Slot, at: number): void {
    if (at < s.clDue) {
      s.clDue = at
      this.push(s.index, at, Ev.ClusterReconcile)
    }
  }

  /** The Cluster object changed: both controllers watch it. */
  protected clusterChanged(s: Slot, now: number): void {
    this.clusterAt(s, now)
    this.cacheAt(s.index, now)
  }

  /** Copies what the ClusterCache's reconciles read of the world into the slot's hot record. */
  protected syncHot(s: Slot): void {
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

  protected init(s: Slot): void {
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

  protected sampleUntil(t: number): void {
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

  /** A duration from a range, in whole ms (the core's clock has ms resolution). */
  protected draw(s: Slot, r: { readonly min: number; readonly max: number }): number {
    return Math.round(s.rng.uniform(r.min, r.max))
  }

  /** The gap until the next event of a Poisson process with `rate` per hour, in whole ms. */
  protected gap(s: Slot, rate: number): number {
    return Math.max(1, Math.round(s.rng.exponential(HOUR / rate)))
  }

  /** Writes a world event to the trace and tells the observer. */
  protected world(s: Slot, code: number, arg: number): void {
    this.writer.record(this.now, s.index, (RecordKind.World << 29) | (code << 21) | (arg & 0x1fffff))
    this.onWorldEvent?.(s, WORLD_EVENTS[code] as WorldEvent, this.now)
  }

  /** An event other than a ClusterCache reconcile is due for slot `s`. */
  protected abstract dispatch(s: Slot, kind: number, arg: number, now: number): void
  /** A ClusterCache reconcile of slot `i` is due. */
  protected abstract reconcileCache(i: number, now: number): void
  /** The I/O a waiting ClusterCache reconcile of slot `s` asked for is done. */
  protected abstract resumeCache(s: Slot, now: number): void
  /** A Cluster controller reconcile of slot `s` is due. */
  protected abstract reconcileCluster(s: Slot, now: number): void

  // ---------------------------------------------------------------------------------------------

  protected violation(s: Slot, check: CheckName, rows: ReadonlyArray<RowId>, message: string): void {
    const v: Violation = { check, cluster: s.name, slot: s.index, at: this.now, rows: [...rows], message }
    this.violations.add(v)
    this.writer.record(this.now, s.index, (RecordKind.Violation << 29) | checkIndex(check))
    this.onViolation?.(v)
  }
}
