/**
 * Benchmark of the scoped cache (seed 002): 200 namespaces × 5 resources of
 * informers, each added (one dependent) and removed (its last dependent, so it stops) in every
 * cycle, 1,000 cycles; on the in-memory API server (the project's `FakeApiServer` through the
 * memory client), so the figures are the cache's own cost: the registry's transition, starting a
 * reflector (its list and watch against memory) and closing its scope.
 *
 * Reports per run: wall and CPU time, the time per add and per remove, and the leak check: the
 * heap after a full GC and the open watches, back at their baseline after the cycles (the
 * baseline is taken after one warm-up cycle). Several runs; min / median / max.
 *
 * Run it: `node --expose-gc bench/scopedcache.ts [--namespaces 200] [--resources 5]
 * [--cycles 1000] [--runs 3] [--objects 2]`. Exits with 1 if a run leaks (open watches or
 * informers left, or the heap more than 10% above its baseline).
 *
 * @module
 */
import { availableParallelism, cpus } from "node:os"
import { parseArgs } from "node:util"
import * as Effect from "effect/Effect"
import { makeMemoryClient } from "../shell/apiserver/memoryClient.ts"
import { FakeApiServer } from "../shell/apiserver/server.ts"
import type { ResourceRef } from "../shell/kube/resource.ts"
import { makeScopedCache } from "../shell/scopedcache/scopedCache.ts"

const { values } = parseArgs({
  options: {
    namespaces: { type: "string", default: "200" },
    resources: { type: "string", default: "5" },
    cycles: { type: "string", default: "1000" },
    runs: { type: "string", default: "3" },
    objects: { type: "string", default: "2" },
  },
})
const positive = (name: string, v: string | undefined): number => {
  const n = Number(v)
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name}: a positive integer, got ${v}`)
  return n
}
const NAMESPACES = positive("namespaces", values.namespaces)
const RESOURCES = positive("resources", values.resources)
const CYCLES = positive("cycles", values.cycles)
const RUNS = positive("runs", values.runs)
const OBJECTS = positive("objects", values.objects)
const gc = (globalThis as { gc?: () => void }).gc
if (gc === undefined)
  throw new Error("run with node --expose-gc, so that the heap can be measured after a full GC")

/** `RESOURCES` namespaced resources of a group of their own (the fake serves any registered one). */
const resources: ReadonlyArray<ResourceRef> = Array.from({ length: RESOURCES }, (_, i) => ({
  group: "bench.krtt.dev",
  version: "v1",
  resource: `things${i}`,
  kind: `Thing${i}`,
  namespaced: true,
}))
const namespaces = Array.from({ length: NAMESPACES }, (_, i) => `ns-${i}`)

const heapAfterGc = (): number => {
  gc()
  gc()
  return process.memoryUsage().heapUsed
}

interface RunResult {
  readonly wallMs: number
  readonly cpuMs: number
  readonly addUs: number
  readonly removeUs: number
  /** CPU time (user + system, the whole process) during the calls, per call. */
  readonly addCpuUs: number
  readonly removeCpuUs: number
  readonly baselineHeap: number
  readonly finalHeap: number
  readonly openWatches: number
  readonly running: number
  readonly registered: number
}

const run = Effect.scoped(
  Effect.gen(function* () {
    const fake = yield* FakeApiServer.make({ resources })
    const client = yield* makeMemoryClient(fake)
    const api = fake.client()
    for (const r of resources)
      for (const ns of namespaces)
        for (let o = 0; o < OBJECTS; o++)
          yield* api.create(r, { metadata: { namespace: ns, name: `o${o}` }, spec: { n: o } })
    const cache = yield* makeScopedCache(client, { cluster: "bench" })
    yield* cache.start
    const dependent = { uid: "bench-dependent", kind: "Bench" }
    let addNs = 0
    let removeNs = 0
    let addCpu = 0
    let removeCpu = 0
    const cpuOf = (u: NodeJS.CpuUsage) => u.user + u.system
    const cycle = Effect.gen(function* () {
      for (const r of resources)
        for (const ns of namespaces) {
          const t = process.hrtime.bigint()
          const c = process.cpuUsage()
          yield* cache.addInformer({ resource: r, namespace: ns, dependent })
          addCpu += cpuOf(process.cpuUsage(c))
          addNs += Number(process.hrtime.bigint() - t)
        }
      if (!(yield* cache.waitForCacheSync)) throw new Error("the cache stopped")
      for (const r of resources)
        for (const ns of namespaces) {
          const t = process.hrtime.bigint()
          const c = process.cpuUsage()
          yield* cache.removeInformer({ resource: r, namespace: ns, dependent })
          removeCpu += cpuOf(process.cpuUsage(c))
          removeNs += Number(process.hrtime.bigint() - t)
        }
      // Let the background closes finish before the next cycle.
      while (fake.watchCount() > 0) yield* Effect.sleep(1)
    })
    yield* cycle // warm-up
    const baselineHeap = heapAfterGc()
    addNs = 0
    removeNs = 0
    addCpu = 0
    removeCpu = 0
    const cpu0 = process.cpuUsage()
    const t0 = performance.now()
    for (let c = 0; c < CYCLES; c++) {
      yield* cycle
      if (process.stderr.isTTY && c % 10 === 0) process.stderr.write(`\rcycle ${c}/${CYCLES} `)
    }
    if (process.stderr.isTTY) process.stderr.write("\r\x1b[K")
    const wallMs = performance.now() - t0
    const cpu = process.cpuUsage(cpu0)
    const ops = CYCLES * NAMESPACES * RESOURCES
    return {
      wallMs,
      cpuMs: (cpu.user + cpu.system) / 1000,
      addUs: addNs / ops / 1000,
      removeUs: removeNs / ops / 1000,
      addCpuUs: addCpu / ops,
      removeCpuUs: removeCpu / ops,
      baselineHeap,
      finalHeap: heapAfterGc(),
      openWatches: fake.watchCount(),
      running: yield* cache.runningCount,
      registered: (yield* cache.informers).length,
    } satisfies RunResult
  }),
)

const results: Array<RunResult> = []
for (let i = 0; i < RUNS; i++) {
  const r = await Effect.runPromise(run)
  results.push(r)
  process.stderr.write(
    `run ${i + 1}/${RUNS}: ${(r.wallMs / 1000).toFixed(1)} s wall, ${(r.cpuMs / 1000).toFixed(1)} s CPU, ` +
      `add ${r.addUs.toFixed(1)} µs (CPU ${r.addCpuUs.toFixed(1)}), remove ${r.removeUs.toFixed(1)} µs (CPU ${r.removeCpuUs.toFixed(1)}), heap ${(r.baselineHeap / 2 ** 20).toFixed(1)} → ` +
      `${(r.finalHeap / 2 ** 20).toFixed(1)} MiB, ${r.openWatches} watches and ${r.running} informers left\n`,
  )
}

const stats = (xs: ReadonlyArray<number>) => {
  const s = [...xs].sort((a, b) => a - b)
  return { min: s[0] ?? 0, median: s[Math.floor(s.length / 2)] ?? 0, max: s[s.length - 1] ?? 0 }
}
const row = (label: string, xs: ReadonlyArray<number>, unit: string, digits = 1) => {
  const { min, median, max } = stats(xs)
  return `${label.padEnd(22)} ${min.toFixed(digits)} / ${median.toFixed(digits)} / ${max.toFixed(digits)} ${unit}`
}
const mib = (b: number) => b / 2 ** 20
const leaks = results.filter(
  (r) => r.openWatches !== 0 || r.running !== 0 || r.registered !== 0 || r.finalHeap > r.baselineHeap * 1.1,
)
const ops = CYCLES * NAMESPACES * RESOURCES
console.log(
  [
    `scoped cache benchmark: ${NAMESPACES} namespaces × ${RESOURCES} resources = ${NAMESPACES * RESOURCES} informers, ` +
      `each added and removed in each of ${CYCLES} cycles (${ops.toLocaleString("en-US")} adds and removes per run), ` +
      `${OBJECTS} objects per namespace and resource, ${RUNS} runs (min / median / max)`,
    `machine: ${availableParallelism()} cores, ${cpus()[0]?.model ?? "unknown CPU"}, Node ${process.version}`,
    row(
      "wall time",
      results.map((r) => r.wallMs / 1000),
      "s",
    ),
    row(
      "CPU time",
      results.map((r) => r.cpuMs / 1000),
      "s",
    ),
    row(
      "per add (wall)",
      results.map((r) => r.addUs),
      "µs",
    ),
    row(
      "per add (CPU)",
      results.map((r) => r.addCpuUs),
      "µs",
    ),
    row(
      "per remove (wall)",
      results.map((r) => r.removeUs),
      "µs",
    ),
    row(
      "per remove (CPU)",
      results.map((r) => r.removeCpuUs),
      "µs",
    ),
    row(
      "heap baseline",
      results.map((r) => mib(r.baselineHeap)),
      "MiB",
    ),
    row(
      "heap after cycles",
      results.map((r) => mib(r.finalHeap)),
      "MiB",
    ),
    `peak RSS              ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB (the process, all runs)`,
    `open watches after    ${results.map((r) => r.openWatches).join(", ")}`,
    `informers left        ${results.map((r) => `${r.running} running, ${r.registered} registered`).join("; ")}`,
    `leak check            ${leaks.length === 0 ? "passed: watches, informers and heap back to baseline" : `${leaks.length} runs leaked`}`,
  ].join("\n"),
)
if (leaks.length > 0) process.exitCode = 1
