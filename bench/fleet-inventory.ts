/**
 * Benchmark of `krtt inventory`'s controllers (the inventory part of the
 * fleet benchmarks), over in-memory API servers: the network is left out so that the figures are
 * the controllers' own (the runtime's reflectors and queues, the `inventory.entry` decisions, the
 * ConfigMap writes), on one process.
 *
 * `--clusters` workload API servers with `--nodes` Nodes each (half of them Ready), engaged by the
 * memory provider with one multi-cluster manager and the inventory controllers. Measured per run:
 * 1. start: time from the manager's start to every cluster's entry present with its counts;
 * 2. burst: one Node added in EVERY cluster at once; time to every entry updated, and the number
 *    of ConfigMap writes it took (the debounce, `--debounce`, coalesces them);
 * 3. leave: half of the clusters removed from the provider; time to their keys gone;
 * hub requests by verb (reads and writes of the ConfigMap), heap after a GC with every cluster
 * engaged, and wall and CPU time of the whole run.
 *
 * Each run is a fresh set of servers and a fresh manager; figures are min / median / max over
 * `--runs`.
 *
 * Usage: node --expose-gc bench/fleet-inventory.ts [--clusters 100] [--nodes 5] [--debounce 2000]
 *        [--runs 3] [--json]
 *
 * @module
 */
import { performance } from "node:perf_hooks"
import { parseArgs } from "node:util"
import * as Effect from "effect/Effect"
import * as References from "effect/References"
import { entryKey, INVENTORY_CONFIGMAP } from "../core/inventory/index.ts"
import { makeMemoryClient } from "../shell/apiserver/memoryClient.ts"
import { FakeApiServer } from "../shell/apiserver/server.ts"
import { addToManager as addInventoryToManager, NodesResource } from "../shell/fleet/inventory/index.ts"
import type { KubeClientShape } from "../shell/kube/client.ts"
import { type KubeObject, Resources } from "../shell/kube/resource.ts"
import { makeCluster, makeManager, makeMemoryProvider } from "../shell/multicluster/index.ts"

const { values } = parseArgs({
  options: {
    clusters: { type: "string", default: "100" },
    nodes: { type: "string", default: "5" },
    debounce: { type: "string", default: "2000" },
    runs: { type: "string", default: "3" },
    json: { type: "boolean", default: false },
  },
  strict: true,
})
const int = (flag: string, v: string | undefined, min: number): number => {
  const n = Number(v)
  if (!Number.isInteger(n) || n < min) throw new Error(`--${flag}: an integer >= ${min}, got ${v}`)
  return n
}
const N = int("clusters", values.clusters, 2)
const NODES = int("nodes", values.nodes, 0)
const DEBOUNCE = int("debounce", values.debounce, 0)
const RUNS = int("runs", values.runs, 1)
const NS = "krtt-fleet"
const TARGET = { namespace: NS, name: INVENTORY_CONFIGMAP }

const log = (line: string) => process.stderr.write(`bench: ${line}\n`)
const gc = (globalThis as { gc?: () => void }).gc
const heapAfterGc = () => {
  gc?.()
  gc?.()
  return process.memoryUsage().heapUsed
}
const stats = (xs: ReadonlyArray<number>) => {
  const s = [...xs].sort((a, b) => a - b)
  const mid =
    s.length % 2 === 1
      ? (s[(s.length - 1) / 2] as number)
      : ((s[s.length / 2 - 1] as number) + (s[s.length / 2] as number)) / 2
  return { min: s[0] as number, median: mid, max: s.at(-1) as number }
}
const fmt = (x: { min: number; median: number; max: number }, digits = 1, unit = "") =>
  `${x.min.toFixed(digits)} / ${x.median.toFixed(digits)} / ${x.max.toFixed(digits)}${unit}`

/** The hub client, counting requests by `verb resource`. */
const counting = (c: KubeClientShape, counts: Map<string, number>): KubeClientShape => {
  const tick = (key: string) => Effect.sync(() => void counts.set(key, (counts.get(key) ?? 0) + 1))
  return {
    ...c,
    get: ((r, k) => Effect.andThen(tick(`get ${r.resource}`), c.get(r, k))) as KubeClientShape["get"],
    create: ((r, o, w) =>
      Effect.andThen(tick(`create ${r.resource}`), c.create(r, o, w))) as KubeClientShape["create"],
    update: ((r, o, w) =>
      Effect.andThen(tick(`update ${r.resource}`), c.update(r, o, w))) as KubeClientShape["update"],
  }
}

const node = (name: string) => ({ metadata: { name } }) as KubeObject
const addNode = (server: FakeApiServer, name: string, ready: boolean) =>
  Effect.gen(function* () {
    const created = yield* server.client().create(NodesResource, node(name))
    yield* server.client().updateStatus(NodesResource, {
      ...created,
      status: { conditions: [{ type: "Ready", status: ready ? "True" : "False" }] },
    } as KubeObject)
  })

const waitUntil = (what: string, check: Effect.Effect<boolean, unknown>, timeoutMs: number) =>
  Effect.gen(function* () {
    const deadline = Date.now() + timeoutMs
    while (!(yield* check)) {
      if (Date.now() > deadline)
        return yield* Effect.die(new Error(`not reached within ${timeoutMs} ms: ${what}`))
      yield* Effect.sleep("20 millis")
    }
  })

interface RunResult {
  readonly startMs: number
  readonly burstMs: number
  readonly burstWrites: number
  readonly leaveMs: number
  readonly hubRequests: Record<string, number>
  readonly heapPerClusterKiB: number
  readonly wallMs: number
  readonly cpuMs: number
}

const run = (i: number): Promise<RunResult> =>
  Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const wall0 = performance.now()
        const cpu0 = process.cpuUsage()
        const heap0 = heapAfterGc()
        const counts = new Map<string, number>()
        const hubServer = yield* FakeApiServer.make()
        const hub = yield* makeCluster({ client: counting(yield* makeMemoryClient(hubServer), counts) })
        const provider = yield* makeMemoryProvider({ name: "bench" })
        const servers: Array<FakeApiServer> = []
        for (let c = 0; c < N; c++) {
          const s = yield* FakeApiServer.make()
          s.register(NodesResource, { status: true })
          for (let n = 0; n < NODES; n++) yield* addNode(s, `node-${n}`, n % 2 === 0)
          servers.push(s)
          yield* provider.add(`cluster-${c}`, s)
        }
        const manager = yield* makeManager({ hub, provider })
        yield* addInventoryToManager(manager, { namespace: NS, config: { debounce: DEBOUNCE } })
        const data = hubServer
          .client()
          .get(Resources.configMaps, TARGET)
          .pipe(
            Effect.map((o) => (o.data ?? {}) as Record<string, string>),
            Effect.catchTag("NotFound", () => Effect.succeed({} as Record<string, string>)),
          )
        const nodesOf = (d: Record<string, string>, c: number) => {
          const v = d[entryKey(`cluster-${c}`)]
          return v === undefined ? -1 : (JSON.parse(v) as { nodes: number }).nodes
        }
        const all = (want: number) => Effect.map(data, (d) => servers.every((_, c) => nodesOf(d, c) === want))

        const t0 = performance.now()
        yield* manager.start
        yield* waitUntil("every entry present", all(NODES), 120_000)
        const startMs = performance.now() - t0
        const heapPerClusterKiB = (heapAfterGc() - heap0) / N / 1024

        const writes0 = (counts.get("update configmaps") ?? 0) + (counts.get("create configmaps") ?? 0)
        const t1 = performance.now()
        yield* Effect.forEach(servers, (s) => addNode(s, "burst", true), {
          concurrency: "unbounded",
          discard: true,
        })
        yield* waitUntil("every entry updated", all(NODES + 1), 120_000)
        const burstMs = performance.now() - t1
        const burstWrites =
          (counts.get("update configmaps") ?? 0) + (counts.get("create configmaps") ?? 0) - writes0

        const t2 = performance.now()
        const leaving = servers.map((_, c) => c).filter((c) => c % 2 === 1)
        yield* Effect.forEach(leaving, (c) => provider.remove(`cluster-${c}`), { discard: true })
        yield* waitUntil(
          "the keys of the clusters that left are gone",
          Effect.map(data, (d) => leaving.every((c) => nodesOf(d, c) === -1)),
          120_000,
        )
        const leaveMs = performance.now() - t2
        const cpu = process.cpuUsage(cpu0)
        const result: RunResult = {
          startMs,
          burstMs,
          burstWrites,
          leaveMs,
          hubRequests: Object.fromEntries(counts),
          heapPerClusterKiB,
          wallMs: performance.now() - wall0,
          cpuMs: (cpu.user + cpu.system) / 1000,
        }
        log(
          `run ${i + 1}: start ${startMs.toFixed(0)} ms, burst ${burstMs.toFixed(0)} ms in ${burstWrites} writes, leave ${leaveMs.toFixed(0)} ms, ${heapPerClusterKiB.toFixed(1)} KiB heap per cluster, wall ${result.wallMs.toFixed(0)} ms, CPU ${result.cpuMs.toFixed(0)} ms`,
        )
        return result
      }),
    ).pipe(Effect.provideService(References.MinimumLogLevel, "Warn")),
  )

const main = async () => {
  log(
    `${N} clusters x ${NODES} Nodes, debounce ${DEBOUNCE} ms, ${RUNS} runs${gc === undefined ? " (no --expose-gc: heap figures are rough)" : ""}`,
  )
  const results: Array<RunResult> = []
  for (let i = 0; i < RUNS; i++) results.push(await run(i))
  const summary = {
    clusters: N,
    nodesPerCluster: NODES,
    debounceMs: DEBOUNCE,
    runs: RUNS,
    startMs: stats(results.map((r) => r.startMs)),
    burstMs: stats(results.map((r) => r.burstMs)),
    burstWrites: stats(results.map((r) => r.burstWrites)),
    leaveMs: stats(results.map((r) => r.leaveMs)),
    heapPerClusterKiB: stats(results.map((r) => r.heapPerClusterKiB)),
    wallMs: stats(results.map((r) => r.wallMs)),
    cpuMs: stats(results.map((r) => r.cpuMs)),
    hubRequestsFirstRun: results[0]?.hubRequests,
  }
  if (values.json) {
    process.stdout.write(`${JSON.stringify(summary)}\n`)
    return
  }
  const lines = [
    `krtt inventory, ${N} clusters x ${NODES} Nodes, debounce ${DEBOUNCE} ms, ${RUNS} runs (min / median / max)`,
    `  every entry present from the start:  ${fmt(summary.startMs, 0, " ms")}`,
    `  a Node added in every cluster:       ${fmt(summary.burstMs, 0, " ms")}, ${fmt(summary.burstWrites, 0)} ConfigMap writes`,
    `  half the clusters leave, keys gone:  ${fmt(summary.leaveMs, 0, " ms")}`,
    `  heap per engaged cluster (after GC): ${fmt(summary.heapPerClusterKiB, 1, " KiB")}`,
    `  wall per run:                        ${fmt(summary.wallMs, 0, " ms")}`,
    `  CPU per run:                         ${fmt(summary.cpuMs, 0, " ms")}`,
    `  hub requests of run 1:               ${JSON.stringify(summary.hubRequestsFirstRun)}`,
  ]
  process.stdout.write(`${lines.join("\n")}\n`)
}

await main()
