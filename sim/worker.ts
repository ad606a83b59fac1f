/**
 * A simulation worker thread: simulates its share of the fleet (a range of slots) and posts
 * its trace batches, progress and measurements to the thread that merges them (`fleet.ts`).
 *
 * @module
 */
import { parentPort, workerData } from "node:worker_threads"
import { threadCpuSeconds, type WorkerData, type WorkerMessage } from "./fleet.ts"
import { Simulation } from "./simulation.ts"

const post = (m: WorkerMessage, transfer?: ReadonlyArray<ArrayBuffer>): void => {
  parentPort?.postMessage(m, transfer as Array<ArrayBuffer> | undefined)
}

const run = (data: WorkerData): void => {
  const { config, shard, progressEvery, inFlight } = data
  const consumed = new Int32Array(data.consumed)
  let sent = 0
  /** Wall seconds spent waiting for the merge. */
  let waited = 0
  const sim = new Simulation({
    config,
    shard,
    transferTrace: true,
    trace: {
      write: (bytes) => {
        // Wait while the merge is more than a few batches behind: memory stays flat.
        if (sent - Atomics.load(consumed, shard.index) >= inFlight) {
          const t0 = performance.now()
          for (;;) {
            const c = Atomics.load(consumed, shard.index)
            if (sent - c < inFlight) break
            Atomics.wait(consumed, shard.index, c, 1_000)
          }
          waited += (performance.now() - t0) / 1e3
        }
        sent++
        post({ type: "trace", bytes }, [bytes.buffer as ArrayBuffer])
      },
    },
  })
  const end = sim.end
  for (let t = Math.min(progressEvery, end); ; t = Math.min(t + progressEvery, end)) {
    sim.runUntil(t)
    post({
      type: "progress",
      now: t,
      clusters: sim.clusters,
      connected: sim.connected,
      provisioned: sim.provisioned,
      transitions: sim.measurements.totals.transitions,
      violations: sim.violations.total,
    })
    if (t >= end) break
  }
  const r = sim.finish()
  post({
    type: "done",
    measurements: r.measurements,
    counts: r.violations.counts,
    examples: r.violations.examples,
    records: r.traceRecords,
    cpuSeconds: threadCpuSeconds(),
    waitSeconds: waited,
  })
}

try {
  run(workerData as WorkerData)
} catch (e) {
  post({ type: "error", message: e instanceof Error ? (e.stack ?? e.message) : String(e) })
}
