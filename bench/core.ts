/**
 * The core benchmark: transitions per second of every documented table, single thread.
 *
 * For each table of `krtt tables` (shell/krtt/registry.ts `bindings`) it pre-generates inputs
 * with the table's property-test generator (property-tests/arbitraries.ts, fixed seed), then
 * times only the transitions: several runs, each a number of passes over the inputs calibrated
 * to about `--ms` milliseconds, reported as min/median/max of wall and CPU transitions per
 * second. One more line times the ClusterCache's steady state as the simulator and the shell
 * run it: a probe reconcile (Reconciler rows 7, 8 and 12, three transitions) chained over a
 * fleet of accessors.
 *
 * Run it: `node bench/core.ts [--runs 5] [--ms 200] [--inputs 4096] [--table clustercache] [--json]`
 * Goal (docs/benchmarks.md, "Core"): ≥ 10 M ClusterCache transitions per second per core.
 */
import { availableParallelism, cpus, loadavg } from "node:os"
import { parseArgs } from "node:util"
import fc from "fast-check"
import {
  type AccessorState,
  ClusterCacheDefaults,
  type ReconcilerDesired,
  type ReconcilerTrigger,
  reconcilerTransition,
} from "../core/clustercache/index.ts"
import { arbitraries } from "../property-tests/arbitraries.ts"
import { bindings } from "../shell/krtt/registry.ts"

const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "5" },
    ms: { type: "string", default: "200" },
    inputs: { type: "string", default: "4096" },
    table: { type: "string", default: "" },
    seed: { type: "string", default: "17" },
    json: { type: "boolean", default: false },
  },
  strict: true,
})

const positive = (name: string, text: string): number => {
  const n = Number(text)
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name}: expected a positive integer, got "${text}"`)
  return n
}
const runs = positive("runs", values.runs)
const targetMs = positive("ms", values.ms)
const inputCount = positive("inputs", values.inputs)
const seed = positive("seed", values.seed)

/** Figures of one line: transitions per second over the runs. */
interface Figures {
  readonly table: string
  readonly inputs: number
  readonly transitionsPerRun: number
  readonly wall: { readonly min: number; readonly median: number; readonly max: number }
  readonly cpu: { readonly min: number; readonly median: number; readonly max: number }
}

const stats = (xs: ReadonlyArray<number>) => {
  const s = [...xs].sort((a, b) => a - b)
  return {
    min: s[0] as number,
    median: s[Math.floor(s.length / 2)] as number,
    max: s[s.length - 1] as number,
  }
}

/** Keeps the results alive so that the JIT cannot drop the calls. */
let sink = 0

/**
 * Times `pass` (which runs `perPass` transitions): one warm-up and calibration, then `runs` runs
 * of enough passes for about `targetMs` each.
 */
const measure = (table: string, inputs: number, perPass: number, pass: () => number): Figures => {
  // Warm up (the JIT's tiers) and calibrate.
  let passes = 1
  for (;;) {
    const t0 = performance.now()
    for (let p = 0; p < passes; p++) sink += pass()
    const ms = performance.now() - t0
    if (ms >= targetMs / 4) {
      passes = Math.max(1, Math.round((passes * targetMs) / Math.max(ms, 0.001)))
      break
    }
    passes *= 2
  }
  const wall: Array<number> = []
  const cpu: Array<number> = []
  for (let run = 0; run < runs; run++) {
    const c0 = process.cpuUsage()
    const t0 = performance.now()
    for (let p = 0; p < passes; p++) sink += pass()
    const ms = performance.now() - t0
    const c = process.cpuUsage(c0)
    const n = passes * perPass
    wall.push(n / (ms / 1e3))
    cpu.push(n / ((c.user + c.system) / 1e6))
  }
  return { table, inputs, transitionsPerRun: passes * perPass, wall: stats(wall), cpu: stats(cpu) }
}

const results: Array<Figures> = []
for (const b of bindings) {
  const id = b.spec.id
  if (values.table !== "" && !id.includes(values.table)) continue
  const arb = arbitraries[id]
  if (arb === undefined) throw new Error(`${id}: no generator in property-tests/arbitraries.ts`)
  const inputs = fc.sample(arb, { numRuns: inputCount, seed })
  const transition = b.transition
  const config = b.config
  results.push(
    measure(id, inputs.length, inputs.length, () => {
      let rows = 0
      for (let k = 0; k < inputs.length; k++) rows += transition(inputs[k], config).actions.length
      return rows
    }),
  )
}

// The ClusterCache's steady state: one probe reconcile of each of `fleet` connected Clusters per
// probe interval, the accessor carried from transition to transition (what sim/clustercache.ts
// and the shell do): Reconcile → row 7 (probe), ProbeFinished success → row 8,
// PhasesComplete → row 12.
if (values.table === "" || "clustercache.reconciler (probe reconcile)".includes(values.table)) {
  const config = ClusterCacheDefaults
  const interval = config.healthProbe.interval
  const fleet = inputCount
  const start = Date.UTC(2026, 0, 1)
  const accessors: Array<AccessorState | undefined> = Array.from({ length: fleet }, () => ({
    connected: true,
    lastProbeTime: start - interval,
    lastProbeSuccessTime: start - interval,
    consecutiveFailures: 0,
    watches: [],
    lastEventSent: {},
    privateKeyGenerated: false,
  }))
  const desired: ReconcilerDesired = {
    cluster: { _tag: "Found", infrastructureProvisioned: true, deleting: false },
    sources: [{ name: "cluster", probeFailureDurations: [300_000] }],
  }
  const RECONCILE: ReconcilerTrigger = { _tag: "Reconcile" }
  const SUCCESS: ReconcilerTrigger = { _tag: "ProbeFinished", outcome: "success" }
  const input: {
    observed: { accessor: AccessorState | undefined }
    desired: ReconcilerDesired
    trigger: ReconcilerTrigger
    now: number
  } = { observed: { accessor: undefined }, desired, trigger: RECONCILE, now: start }
  let now = start
  const expected = [7, 8, 12]
  results.push(
    measure("clustercache.reconciler (probe reconcile)", fleet, fleet * 3, () => {
      now += interval
      input.now = now
      let rows = 0
      for (let k = 0; k < fleet; k++) {
        input.observed.accessor = accessors[k]
        input.trigger = RECONCILE
        let r = reconcilerTransition(input, config)
        input.observed.accessor = r.status.accessor
        input.trigger = SUCCESS
        r = reconcilerTransition(input, config)
        input.observed.accessor = r.status.accessor
        const next = r.actions[r.actions.length - 1]
        if (next?._tag !== "Continue") throw new Error(`probe reconcile: row ${r.row} did not continue`)
        input.trigger = next.trigger
        r = reconcilerTransition(input, config)
        accessors[k] = r.status.accessor
        rows += r.actions.length
      }
      return rows
    }),
  )
  // The chain must really have run the documented rows (a benchmark of the wrong path is worthless).
  input.observed.accessor = accessors[0]
  input.now = now + interval
  input.trigger = RECONCILE
  const row = reconcilerTransition(input, config).row
  if (!row.endsWith(`#${expected[0]}`)) throw new Error(`probe reconcile: expected row 7, got ${row}`)
}

const load = loadavg()
if (values.json) {
  console.log(JSON.stringify({ runs, loadavg: load, results }, null, 2))
} else {
  const m = (x: number) => `${(x / 1e6).toFixed(2)} M`
  const lines = [
    `core benchmark: transitions per second, single thread, ${runs} runs of ~${targetMs} ms per table, seed ${seed}`,
    `machine: ${availableParallelism()} cores, ${cpus()[0]?.model ?? "unknown CPU"}, Node ${process.version}, load average ${load.map((x) => x.toFixed(1)).join(" ")}`,
    "",
    `${"table".padEnd(44)} ${"inputs".padStart(6)}  ${"wall min / median / max".padStart(28)}  ${"CPU min / median / max".padStart(28)}`,
    ...results.map(
      (r) =>
        `${r.table.padEnd(44)} ${String(r.inputs).padStart(6)}  ${`${m(r.wall.min)} / ${m(r.wall.median)} / ${m(r.wall.max)}`.padStart(28)}  ${`${m(r.cpu.min)} / ${m(r.cpu.median)} / ${m(r.cpu.max)}`.padStart(28)}`,
    ),
  ]
  console.log(lines.join("\n"))
}
if (sink === Number.MIN_VALUE) console.log("")
