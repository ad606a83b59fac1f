/**
 * The simulation's headline benchmark: 10,000 Clusters for 24 simulated hours with the default
 * fault rates, split between worker threads. Prints the wall time, transitions per second, peak
 * RSS and the invariants; exits with 1 if an invariant was violated.
 *
 * Run it: `node bench/sim.ts [--clusters N] [--hours H] [--workers W] [--seed S]`
 * Goal (docs/benchmarks.md): under 60 s and 1 GiB on a 2-core machine, zero violations.
 */
import { availableParallelism, cpus, loadavg } from "node:os"
import { parseArgs } from "node:util"
// The modules themselves: sim/index.ts re-exports the cores' indexes, which load effect.
import { simConfig } from "../sim/config.ts"
import { runFleet } from "../sim/fleet.ts"

const { values } = parseArgs({
  options: {
    clusters: { type: "string", default: "10000" },
    hours: { type: "string", default: "24" },
    workers: { type: "string", default: String(Math.min(2, availableParallelism())) },
    seed: { type: "string", default: "1" },
    "in-flight": { type: "string" },
  },
})
const config = simConfig({
  clusters: Number(values.clusters),
  hours: Number(values.hours),
  seed: Number(values.seed),
})
const workers = Number(values.workers)
const cpu0 = process.cpuUsage()
const {
  summary: s,
  cpuSeconds,
  waitSeconds,
} = await runFleet(config, {
  workers,
  ...(values["in-flight"] === undefined ? {} : { inFlight: Number(values["in-flight"]) }),
  ...(process.stderr.isTTY
    ? {
        onProgress: (p) =>
          process.stderr.write(
            `\r${(p.now / 3_600_000).toFixed(1)}/${p.end / 3_600_000} h  ${(p.transitions / 1e6).toFixed(0)}M transitions `,
          ),
      }
    : {}),
})
if (process.stderr.isTTY) process.stderr.write("\r\x1b[K")
const cpu = process.cpuUsage(cpu0)
const gib = (b: number) => `${(b / 2 ** 30).toFixed(2)} GiB`
console.log(
  [
    `sim benchmark: ${s.clusters} clusters × ${s.hours} h, ${s.workers} workers, seed ${s.seed}`,
    `machine: ${availableParallelism()} cores, ${cpus()[0]?.model ?? "unknown CPU"}, Node ${process.version}`,
    `wall time          ${s.wallSeconds.toFixed(1)} s`,
    `CPU time           ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s (all threads; ${
      cpuSeconds.workers.length === 0
        ? `the simulation ${cpuSeconds.main.toFixed(1)} s`
        : `workers ${cpuSeconds.workers.map((c) => c.toFixed(1)).join(" + ")} s, merge and hash ${cpuSeconds.main.toFixed(1)} s`
    })`,
    ...(cpuSeconds.workers.length === 0
      ? []
      : [
          `main thread share  ${((100 * cpuSeconds.main) / (cpuSeconds.main + cpuSeconds.workers.reduce((a, b) => a + b, 0))).toFixed(1)} % of the run's CPU`,
          `workers waited     ${(waitSeconds ?? []).map((w) => w.toFixed(1)).join(" + ")} s for the merge`,
        ]),
    `load average       ${loadavg()
      .map((x) => x.toFixed(1))
      .join(" ")}`,
    `transitions        ${s.transitions.toLocaleString("en-US")} (${s.transitionsPerSecond.toLocaleString("en-US")}/s)`,
    `reconciles         ${s.reconciles.clusterCache.toLocaleString("en-US")} ClusterCache, ${s.reconciles.cluster.toLocaleString("en-US")} Cluster`,
    `peak RSS           ${gib(s.peakRssBytes)}`,
    `faults             ${s.totals.outages} outages, ${s.totals.slowPeriods} slow periods, ${s.totals.rotations} rotations; ${s.totals.clustersDeleted} deletions`,
    `invariants         ${s.violations === 0 ? "all held" : `${s.violations} violations`}`,
    `trace              ${s.traceRecords.toLocaleString("en-US")} records, sha256 ${s.traceHash}`,
  ].join("\n"),
)
for (const e of s.examples.slice(0, 5)) console.log(`  ${e}`)
process.exitCode = s.violations === 0 ? 0 : 1
