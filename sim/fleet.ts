/**
 * Runs a whole fleet: in this thread, or split between worker threads that each simulate a range of
 * slots. Slots do not interact, so the split changes nothing: the workers' trace
 * streams, each sorted by (time, slot), are merged back into the order a single thread would have
 * written, and hashed as they arrive. The trace hash does not depend on the number of workers.
 *
 * Memory stays flat: a worker that is more than a few batches ahead of the merge waits for it.
 *
 * @module
 */
import { extname } from "node:path"
import { fileURLToPath } from "node:url"
import { Worker } from "node:worker_threads"
import type { SimConfig } from "./config.ts"
import type { SimCores } from "./cores.ts"
import { type Violation, ViolationLog } from "./invariants.ts"
import { Simulation } from "./simulation.ts"
import { type Measurements, mergeMeasurements, newMeasurements } from "./stats.ts"
import { type SimSummary, sortViolations, summarize } from "./summary.ts"
import { HashSink, TraceMerger, type TraceSink } from "./trace.ts"

/** How far a run has got. */
export interface Progress {
  /** Virtual ms reached (by the slowest worker). */
  readonly now: number
  readonly end: number
  readonly clusters: number
  readonly connected: number
  readonly provisioned: number
  readonly transitions: number
  readonly violations: number
}

/** How `runFleet` runs a simulation: threads, trace, progress. */
export interface FleetOptions {
  /** Worker threads; 1 runs in this thread. Default 1. */
  readonly workers?: number
  /** Receives the trace in its canonical order, besides the hash (e.g. a text file). */
  readonly trace?: TraceSink
  /** Called every `progressEvery` virtual ms. */
  readonly onProgress?: (p: Progress) => void
  /** Default: 10 virtual minutes. */
  readonly progressEvery?: number
  /** Cores to run instead of the unmodified ones; only in this thread (functions do not cross threads). */
  readonly cores?: Partial<SimCores>
  /** Called for each violation as it is found (in this thread only). */
  readonly onViolation?: (v: Violation) => void
  /** Trace batches (1 MiB each) a worker may have in flight before it waits for the merge. Default `MAX_IN_FLIGHT`. */
  readonly inFlight?: number
}

/** What a fleet run measured and which invariants it broke. */
export interface FleetResult {
  readonly summary: SimSummary
  readonly measurements: Measurements
  readonly violations: ViolationLog
  /** CPU seconds of this thread during the run, and of each worker (none when in this thread). */
  readonly cpuSeconds: { readonly main: number; readonly workers: ReadonlyArray<number> }
  /** Wall seconds each worker spent waiting for the merge (none when in this thread). */
  readonly waitSeconds?: ReadonlyArray<number>
}

/** Batches a worker may have in flight before it waits for the merge. */
export const MAX_IN_FLIGHT = 8

/** Messages from a worker. */
export type WorkerMessage =
  | { readonly type: "trace"; readonly bytes: Uint8Array }
  | ({ readonly type: "progress" } & Omit<Progress, "end">)
  | {
      readonly type: "done"
      readonly measurements: Measurements
      readonly counts: Readonly<Record<string, number>>
      readonly examples: ReadonlyArray<Violation>
      readonly records: number
      /** The worker thread's CPU seconds. */
      readonly cpuSeconds: number
      /** Wall seconds the worker spent waiting for the merge. */
      readonly waitSeconds: number
    }
  | { readonly type: "error"; readonly message: string }

/** What a worker is started with. */
export interface WorkerData {
  readonly config: SimConfig
  readonly shard: { readonly index: number; readonly count: number }
  readonly consumed: SharedArrayBuffer
  readonly progressEvery: number
  /** Trace batches in flight before the worker waits for the merge. */
  readonly inFlight: number
}

const peakRss = (): number => process.resourceUsage().maxRSS * 1024

/** CPU seconds of the calling thread. */
export const threadCpuSeconds = (): number => {
  const u = process.threadCpuUsage()
  return (u.user + u.system) / 1e6
}

/** Runs a fleet to the end of its configured time. */
export const runFleet = async (config: SimConfig, options: FleetOptions = {}): Promise<FleetResult> => {
  const workers = Math.max(1, Math.min(options.workers ?? 1, config.clusters))
  const inFlight = options.inFlight ?? MAX_IN_FLIGHT
  if (!Number.isInteger(inFlight) || inFlight < 1)
    throw new Error(`inFlight: expected a positive integer, got ${inFlight}`)
  if (workers > 1 && options.cores !== undefined)
    throw new Error("custom cores run in this thread only: use workers: 1")
  const started = performance.now()
  const cpu0 = threadCpuSeconds()
  const every = options.progressEvery ?? 600_000
  const end = config.hours * 3_600_000
  if (workers === 1) {
    const sim = new Simulation({
      config,
      ...(options.cores === undefined ? {} : { cores: options.cores }),
      ...(options.trace === undefined ? {} : { trace: options.trace }),
      ...(options.onViolation === undefined ? {} : { onViolation: options.onViolation }),
    })
    for (let t = Math.min(every, end); ; t = Math.min(t + every, end)) {
      sim.runUntil(t)
      options.onProgress?.({
        now: t,
        end,
        clusters: sim.clusters,
        connected: sim.connected,
        provisioned: sim.provisioned,
        transitions: sim.measurements.totals.transitions,
        violations: sim.violations.total,
      })
      if (t >= end) break
    }
    const r = sim.finish()
    return {
      measurements: r.measurements,
      violations: r.violations,
      cpuSeconds: { main: threadCpuSeconds() - cpu0, workers: [] },
      summary: fleetSummary(
        config,
        workers,
        r.measurements,
        r.violations,
        r.traceHash ?? "",
        r.traceRecords,
        started,
      ),
    }
  }
  return runInWorkers(config, workers, every, end, started, cpu0, options)
}

const runInWorkers = (
  config: SimConfig,
  count: number,
  every: number,
  end: number,
  started: number,
  cpu0: number,
  options: FleetOptions,
): Promise<FleetResult> =>
  new Promise((resolve, reject) => {
    const consumed = new SharedArrayBuffer(4 * count)
    const counters = new Int32Array(consumed)
    const hash = new HashSink(options.trace)
    const merger = new TraceMerger(count, hash, (w) => {
      Atomics.add(counters, w, 1)
      Atomics.notify(counters, w)
    })
    const measurements = newMeasurements(config.sampleEvery, Math.max(1, Math.ceil(end / config.sampleEvery)))
    const violations = new ViolationLog(config.checks.keepExamples)
    const examples: Array<Violation> = []
    const progress: Array<Omit<Progress, "end"> | undefined> = new Array(count).fill(undefined)
    const threads: Array<Worker> = []
    const workerCpu: Array<number> = new Array(count).fill(0)
    const workerWait: Array<number> = new Array(count).fill(0)
    let done = 0
    let failed = false
    const fail = (e: unknown) => {
      if (failed) return
      failed = true
      for (const t of threads) void t.terminate()
      reject(e instanceof Error ? e : new Error(String(e)))
    }
    for (let index = 0; index < count; index++) {
      const data: WorkerData = {
        config,
        shard: { index, count },
        consumed,
        progressEvery: every,
        inFlight: options.inFlight ?? MAX_IN_FLIGHT,
      }
      const worker = new Worker(workerUrl(), { workerData: data })
      threads.push(worker)
      worker.on("error", fail)
      worker.on("exit", (code) => {
        if (code !== 0 && done < count) fail(new Error(`simulation worker ${index} exited with code ${code}`))
      })
      worker.on("message", (m: WorkerMessage) => {
        if (failed) return
        switch (m.type) {
          case "trace":
            merger.push(index, m.bytes)
            return
          case "progress":
            progress[index] = m
            if (options.onProgress !== undefined) tellProgress(progress, end, options.onProgress)
            return
          case "done":
            workerCpu[index] = m.cpuSeconds
            workerWait[index] = m.waitSeconds
            mergeMeasurements(measurements, m.measurements)
            violations.merge(m.counts, [])
            examples.push(...m.examples)
            merger.end(index)
            if (++done < count) return
            merger.finish()
            // The first examples of each check, in the order a single thread finds them.
            violations.merge({}, sortViolations(examples))
            resolve({
              measurements,
              violations,
              cpuSeconds: { main: threadCpuSeconds() - cpu0, workers: workerCpu },
              waitSeconds: workerWait,
              summary: fleetSummary(
                config,
                count,
                measurements,
                violations,
                hash.digest(),
                hash.records,
                started,
              ),
            })
            return
          case "error":
            fail(new Error(m.message))
            return
        }
      })
    }
  })

/** The summary of a finished run that started at `started` (`performance.now()`). */
const fleetSummary = (
  config: SimConfig,
  workers: number,
  measurements: Measurements,
  violations: ViolationLog,
  traceHash: string,
  traceRecords: number,
  started: number,
) =>
  summarize({
    config,
    workers,
    measurements,
    violations,
    traceHash,
    traceRecords,
    wallSeconds: (performance.now() - started) / 1000,
    peakRssBytes: peakRss(),
  })

/** The worker is a sibling module: worker.ts in the sources, worker.js in the build. */
const workerUrl = (): URL => new URL(`./worker${extname(fileURLToPath(import.meta.url))}`, import.meta.url)

/** Once every worker told its progress: the fleet's, at the time the slowest worker reached. */
const tellProgress = (
  progress: ReadonlyArray<Omit<Progress, "end"> | undefined>,
  end: number,
  onProgress: (p: Progress) => void,
): void => {
  if (!progress.every((p) => p !== undefined)) return
  const ps = progress as ReadonlyArray<Omit<Progress, "end">>
  onProgress({
    now: Math.min(...ps.map((p) => p.now)),
    end,
    clusters: sum(ps, "clusters"),
    connected: sum(ps, "connected"),
    provisioned: sum(ps, "provisioned"),
    transitions: sum(ps, "transitions"),
    violations: sum(ps, "violations"),
  })
}

const sum = (
  ps: ReadonlyArray<Omit<Progress, "end">>,
  k: "clusters" | "connected" | "provisioned" | "transitions" | "violations",
): number => ps.reduce((n, p) => n + p[k], 0)
