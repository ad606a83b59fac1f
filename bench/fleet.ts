/**
 * Benchmark of `krtt propagate`'s controllers (the propagation part of the
 * fleet benchmarks; `bench/fleet-inventory.ts` is the inventory's), over in-memory API servers:
 * the network is left out so that the figures are the controller's own (the runtime's reflectors
 * and queues, the scoped caches' informers, the `propagate.copy` decisions, the writes).
 *
 * `--sources` labelled ConfigMaps in the hub (namespace `bench`), `--clusters` workload API
 * servers engaged by the memory provider, each on the scoped cache, one manager with the
 * propagation controllers. Measured per run:
 * 1. start: time from the manager's start to every source's `krtt.io/propagated-to` at N/N;
 * 2. edit: every source's data changed at once; time to every copy in every cluster holding it;
 * writes to the workload servers per source and cluster for each phase (their commits: creates,
 *    updates, namespaces), hub requests by verb, heap after a GC with everything in sync, and wall
 *    and CPU time of the whole run.
 *
 * Each run is a fresh set of servers and a fresh manager; figures are min / median / max over
 * `--runs`.
 *
 * With `--testenv N`: the same on real API servers instead, a testenv control plane of N + 1
 * kube-apiservers (hub and N workloads, no controller-manager) and the `kubeconfig-secrets`
 * provider over them; each run uses fresh namespaces. Workload writes are not counted there.
 *
 * With `--namespaces`: the `namespaces` provider on ONE in-memory API server whose `--clusters`
 * namespaces are the logical clusters (each copy goes into its logical cluster's namespace,
 * `copyNamespace`); the hub is another in-memory server.
 *
 * Usage: node --expose-gc bench/fleet.ts [--sources 50] [--clusters 100] [--testenv 3 | --namespaces]
 *        [--runs 3] [--json]
 *
 * @module
 */
import { performance } from "node:perf_hooks"
import { parseArgs } from "node:util"
import { KubeConfig } from "@kubernetes/client-node"
import * as Effect from "effect/Effect"
import * as References from "effect/References"
import { PropagatedToAnnotation } from "../core/propagate/index.ts"
import { makeMemoryClient } from "../shell/apiserver/memoryClient.ts"
import { FakeApiServer } from "../shell/apiserver/server.ts"
import { addToManager as addPropagateToManager } from "../shell/fleet/propagate/index.ts"
import type { KubeClientShape } from "../shell/kube/client.ts"
import { mergePatch } from "../shell/kube/patch.ts"
import { type KubeObject, Resources } from "../shell/kube/resource.ts"
import { makeRestClient } from "../shell/kube/restClient.ts"
import { makeCluster, makeManager, makeMemoryProvider } from "../shell/multicluster/index.ts"
import {
  makeKubeconfigSecretsProvider,
  makeNamespacesProvider,
} from "../shell/multicluster/providers/index.ts"
import { makeScopedCacheFactory, scopedCacheFactory } from "../shell/scopedcache/index.ts"
import { type ControlPlane, startControlPlane } from "../testenv/index.ts"

const { values } = parseArgs({
  options: {
    sources: { type: "string", default: "50" },
    clusters: { type: "string", default: "100" },
    testenv: { type: "string" },
    namespaces: { type: "boolean", default: false },
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
const SOURCES = int("sources", values.sources, 1)
const N = int("clusters", values.clusters, 1)
const RUNS = int("runs", values.runs, 1)
const NS = "bench"

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
const countingHub = (c: KubeClientShape, counts: Map<string, number>): KubeClientShape => {
  const tick = (key: string) => Effect.sync(() => void counts.set(key, (counts.get(key) ?? 0) + 1))
  return {
    ...c,
    get: ((r, k) => Effect.andThen(tick(`get ${r.resource}`), c.get(r, k))) as KubeClientShape["get"],
    create: ((r, o, w) =>
      Effect.andThen(tick(`create ${r.resource}`), c.create(r, o, w))) as KubeClientShape["create"],
    update: ((r, o, w) =>
      Effect.andThen(tick(`update ${r.resource}`), c.update(r, o, w))) as KubeClientShape["update"],
    patch: ((r, k, p, o) =>
      Effect.andThen(tick(`patch ${r.resource}`), c.patch(r, k, p, o))) as KubeClientShape["patch"],
  }
}

const waitUntil = (what: string, check: Effect.Effect<boolean, unknown>, timeoutMs: number, everyMs = 20) =>
  Effect.gen(function* () {
    const deadline = Date.now() + timeoutMs
    while (!(yield* check)) {
      if (Date.now() > deadline)
        return yield* Effect.die(new Error(`not reached within ${timeoutMs} ms: ${what}`))
      yield* Effect.sleep(`${everyMs} millis`)
    }
  })

interface PropagateRun {
  readonly startMs: number
  readonly editMs: number
  readonly startWritesPerPair: number
  readonly editWritesPerPair: number
  readonly hubRequests: Record<string, number>
  readonly heapMiB: number
  readonly wallMs: number
  readonly cpuMs: number
}

/** One run of the propagation benchmark. */
export const propagateRun = (sources: number, clusters: number): Promise<PropagateRun> =>
  Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const wall0 = performance.now()
        const cpu0 = process.cpuUsage()
        const counts = new Map<string, number>()
        const hubServer = yield* FakeApiServer.make()
        const hubClient = countingHub(yield* makeMemoryClient(hubServer), counts)
        yield* hubServer.client().create(Resources.namespaces, { metadata: { name: NS } })
        for (let s = 0; s < sources; s++)
          yield* hubServer.client().create(Resources.configMaps, {
            metadata: { namespace: NS, name: `source-${s}`, labels: { "krtt.io/propagate": "true" } },
            data: { value: "v1" },
          } as KubeObject)
        const provider = yield* makeMemoryProvider({ name: "bench", cacheFactory: scopedCacheFactory })
        const servers: Array<FakeApiServer> = []
        let writes = 0
        for (let c = 0; c < clusters; c++) {
          const server = yield* FakeApiServer.make()
          server.onCommit(() => {
            writes++
          })
          servers.push(server)
          yield* provider.add(`cluster-${c}`, server)
        }
        const manager = yield* makeManager({ hub: yield* makeCluster({ client: hubClient }), provider })
        yield* addPropagateToManager(manager, hubClient, {
          pendingNamespace: NS,
          kinds: ["ConfigMap"],
          config: { clusterPollInterval: 50, retryInterval: 200, clusterTimeout: 60_000 },
        })
        const all = `${clusters}/${clusters}`
        const allInSync = Effect.sync(() =>
          hubServer
            .objects(Resources.configMaps)
            .filter((o) => o.metadata.namespace === NS)
            .every((o) => o.metadata.annotations?.[PropagatedToAnnotation] === all),
        )
        const t0 = performance.now()
        yield* manager.start
        yield* waitUntil(`every source at ${all}`, allInSync, 600_000)
        const startMs = performance.now() - t0
        const startWrites = writes
        writes = 0
        const t1 = performance.now()
        for (let s = 0; s < sources; s++)
          yield* hubServer
            .client()
            .patch(
              Resources.configMaps,
              { namespace: NS, name: `source-${s}` },
              mergePatch({ data: { value: "v2" } }),
            )
        const edited = Effect.sync(() =>
          servers.every((server) =>
            server
              .objects(Resources.configMaps)
              .filter((o) => o.metadata.namespace === NS)
              .every((o) => (o as KubeObject & { data?: Record<string, string> }).data?.value === "v2"),
          ),
        )
        yield* waitUntil("every copy edited", edited, 600_000)
        const editMs = performance.now() - t1
        const editWrites = writes
        const heapMiB = heapAfterGc() / 2 ** 20
        const cpu = process.cpuUsage(cpu0)
        return {
          startMs,
          editMs,
          startWritesPerPair: startWrites / (sources * clusters),
          editWritesPerPair: editWrites / (sources * clusters),
          hubRequests: Object.fromEntries([...counts.entries()].sort()),
          heapMiB,
          wallMs: performance.now() - wall0,
          cpuMs: (cpu.user + cpu.system) / 1000,
        }
      }),
    ).pipe(Effect.provideService(References.MinimumLogLevel, "Error")),
  )

/** The propagation benchmark: `runs` runs, figures printed (or one JSON document). */
export const propagateBench = async (sources: number, clusters: number, runs: number, json: boolean) => {
  const results: Array<PropagateRun> = []
  for (let i = 0; i < runs; i++) {
    const r = await propagateRun(sources, clusters)
    log(
      `run ${i + 1}/${runs}: start ${r.startMs.toFixed(0)} ms, edit ${r.editMs.toFixed(0)} ms, writes/pair ${r.startWritesPerPair.toFixed(2)} + ${r.editWritesPerPair.toFixed(2)}, heap ${r.heapMiB.toFixed(1)} MiB, wall ${r.wallMs.toFixed(0)} ms, cpu ${r.cpuMs.toFixed(0)} ms`,
    )
    results.push(r)
  }
  const rss = process.resourceUsage().maxRSS / 1024
  if (json) {
    process.stdout.write(`${JSON.stringify({ sources, clusters, runs: results, peakRssMiB: rss })}\n`)
    return
  }
  const pick = (f: (r: PropagateRun) => number) => stats(results.map(f))
  const hub = results[0]?.hubRequests ?? {}
  process.stdout.write(
    `${[
      `krtt propagate: ${sources} sources to ${clusters} in-memory clusters (scoped cache), ${runs} runs, min / median / max`,
      `  all in sync from start:     ${fmt(
        pick((r) => r.startMs / 1000),
        2,
        " s",
      )}`,
      `  all in sync after an edit:  ${fmt(
        pick((r) => r.editMs / 1000),
        2,
        " s",
      )}`,
      `  workload writes per source and cluster: start ${fmt(
        pick((r) => r.startWritesPerPair),
        2,
      )}, edit ${fmt(
        pick((r) => r.editWritesPerPair),
        2,
      )}`,
      `  hub requests (first run): ${Object.entries(hub)
        .map(([k, v]) => `${k} ${v}`)
        .join(", ")}`,
      `  heap after GC, all in sync: ${fmt(
        pick((r) => r.heapMiB),
        1,
        " MiB",
      )}`,
      `  wall per run:               ${fmt(
        pick((r) => r.wallMs / 1000),
        2,
        " s",
      )}`,
      `  CPU per run:                ${fmt(
        pick((r) => r.cpuMs / 1000),
        2,
        " s",
      )}`,
      `  peak RSS of the process:    ${rss.toFixed(0)} MiB`,
    ].join("\n")}\n`,
  )
}

const clientFor = (kubeconfig: string) => {
  const kc = new KubeConfig()
  kc.loadFromString(kubeconfig)
  return makeRestClient(kc, { qps: 200, burst: 400, userAgent: "bench-fleet" })
}

/** One run on real API servers: the hub and `plane`'s other clusters through kubeconfig-secrets. */
export const propagateTestenvRun = (
  plane: ControlPlane,
  sources: number,
  run: number,
): Promise<PropagateRun> =>
  Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const wall0 = performance.now()
        const cpu0 = process.cpuUsage()
        const [hubPlane, ...workloads] = plane.clusters
        if (hubPlane === undefined) throw new Error("no hub")
        const counts = new Map<string, number>()
        const admin = yield* clientFor(hubPlane.admin.kubeconfig)
        const hubClient = countingHub(admin, counts)
        const ns = `bench-${run}-${Date.now().toString(36)}`
        const fleetNs = `${ns}-fleet`
        for (const n of [ns, fleetNs]) yield* admin.create(Resources.namespaces, { metadata: { name: n } })
        for (const [i, w] of workloads.entries())
          yield* admin.create(Resources.secrets, {
            metadata: {
              namespace: fleetNs,
              name: `w${i}`,
              labels: { "sigs.k8s.io/multicluster-runtime-kubeconfig": "true" },
            },
            data: { kubeconfig: Buffer.from(w.admin.kubeconfig).toString("base64") },
          } as KubeObject)
        for (let s = 0; s < sources; s++)
          yield* admin.create(Resources.configMaps, {
            metadata: { namespace: ns, name: `source-${s}`, labels: { "krtt.io/propagate": "true" } },
            data: { value: "v1" },
          } as KubeObject)
        const provider = yield* makeKubeconfigSecretsProvider(hubClient, {
          namespace: fleetNs,
          cacheFactory: makeScopedCacheFactory({ accessReview: true }),
        })
        const manager = yield* makeManager({ hub: yield* makeCluster({ client: hubClient }), provider })
        yield* addPropagateToManager(manager, hubClient, {
          pendingNamespace: fleetNs,
          kinds: ["ConfigMap"],
          config: { clusterPollInterval: 50, retryInterval: 200, clusterTimeout: 60_000 },
        })
        const all = `${workloads.length}/${workloads.length}`
        const allInSync = Effect.map(admin.list(Resources.configMaps, { namespace: ns }), (l) =>
          l.items.every((o) => o.metadata.annotations?.[PropagatedToAnnotation] === all),
        )
        const workloadClients = yield* Effect.forEach(workloads, (w) => clientFor(w.admin.kubeconfig))
        const t0 = performance.now()
        yield* manager.start
        yield* waitUntil(`every source at ${all}`, allInSync, 600_000)
        const startMs = performance.now() - t0
        const t1 = performance.now()
        for (let s = 0; s < sources; s++)
          yield* admin.patch(
            Resources.configMaps,
            { namespace: ns, name: `source-${s}` },
            mergePatch({ data: { value: "v2" } }),
          )
        const edited = Effect.map(
          Effect.forEach(workloadClients, (c) => c.list(Resources.configMaps, { namespace: ns })),
          (lists) =>
            lists.every(
              (l) =>
                l.items.length === sources &&
                l.items.every(
                  (o) => (o as KubeObject & { data?: Record<string, string> }).data?.value === "v2",
                ),
            ),
        )
        yield* waitUntil("every copy edited", edited, 600_000)
        const editMs = performance.now() - t1
        const heapMiB = heapAfterGc() / 2 ** 20
        const cpu = process.cpuUsage(cpu0)
        return {
          startMs,
          editMs,
          startWritesPerPair: Number.NaN,
          editWritesPerPair: Number.NaN,
          hubRequests: Object.fromEntries([...counts.entries()].sort()),
          heapMiB,
          wallMs: performance.now() - wall0,
          cpuMs: (cpu.user + cpu.system) / 1000,
        }
      }),
    ).pipe(Effect.provideService(References.MinimumLogLevel, "Error")),
  )

/** The propagation benchmark on a testenv control plane of `workloads` + 1 API servers. */
export const propagateTestenvBench = async (
  sources: number,
  workloads: number,
  runs: number,
  json: boolean,
) => {
  log(`starting a control plane of ${workloads + 1} API servers`)
  const plane = await startControlPlane({ clusters: workloads + 1, controllerManager: false })
  try {
    const results: Array<PropagateRun> = []
    for (let i = 0; i < runs; i++) {
      const r = await propagateTestenvRun(plane, sources, i)
      log(
        `run ${i + 1}/${runs}: start ${r.startMs.toFixed(0)} ms, edit ${r.editMs.toFixed(0)} ms, heap ${r.heapMiB.toFixed(1)} MiB, wall ${r.wallMs.toFixed(0)} ms, cpu ${r.cpuMs.toFixed(0)} ms`,
      )
      results.push(r)
    }
    if (json) {
      process.stdout.write(
        `${JSON.stringify({ sources, clusters: workloads, testenv: true, runs: results })}\n`,
      )
      return
    }
    const pick = (f: (r: PropagateRun) => number) => stats(results.map(f))
    process.stdout.write(
      `${[
        `krtt propagate: ${sources} sources to ${workloads} testenv API servers (kubeconfig-secrets, scoped cache), ${runs} runs, min / median / max`,
        `  all in sync from start:     ${fmt(
          pick((r) => r.startMs / 1000),
          2,
          " s",
        )}`,
        `  all in sync after an edit:  ${fmt(
          pick((r) => r.editMs / 1000),
          2,
          " s",
        )}`,
        `  hub requests (first run): ${Object.entries(results[0]?.hubRequests ?? {})
          .map(([k, v]) => `${k} ${v}`)
          .join(", ")}`,
        `  heap after GC, all in sync: ${fmt(
          pick((r) => r.heapMiB),
          1,
          " MiB",
        )}`,
        `  wall per run:               ${fmt(
          pick((r) => r.wallMs / 1000),
          2,
          " s",
        )}`,
        `  CPU per run (this process): ${fmt(
          pick((r) => r.cpuMs / 1000),
          2,
          " s",
        )}`,
      ].join("\n")}\n`,
    )
  } finally {
    await plane.stop()
  }
}

/** One run with the namespaces provider: `clusters` namespaces of ONE in-memory API server. */
export const propagateNamespacesRun = (sources: number, clusters: number): Promise<PropagateRun> =>
  Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const wall0 = performance.now()
        const cpu0 = process.cpuUsage()
        const counts = new Map<string, number>()
        const hubServer = yield* FakeApiServer.make()
        const hubClient = countingHub(yield* makeMemoryClient(hubServer), counts)
        yield* hubServer.client().create(Resources.namespaces, { metadata: { name: NS } })
        for (let s = 0; s < sources; s++)
          yield* hubServer.client().create(Resources.configMaps, {
            metadata: { namespace: NS, name: `source-${s}`, labels: { "krtt.io/propagate": "true" } },
            data: { value: "v1" },
          } as KubeObject)
        const fleetServer = yield* FakeApiServer.make()
        const names = Array.from({ length: clusters }, (_, c) => `fleet-${c}`)
        for (const n of names)
          yield* fleetServer.client().create(Resources.namespaces, { metadata: { name: n } })
        let writes = 0
        fleetServer.onCommit(() => {
          writes++
        })
        const provider = yield* makeNamespacesProvider(yield* makeMemoryClient(fleetServer))
        const manager = yield* makeManager({ hub: yield* makeCluster({ client: hubClient }), provider })
        yield* addPropagateToManager(manager, hubClient, {
          pendingNamespace: NS,
          kinds: ["ConfigMap"],
          config: { clusterPollInterval: 50, retryInterval: 200, clusterTimeout: 60_000 },
          copyNamespace: () => "",
        })
        const copiesAt = (value: string) =>
          Effect.sync(
            () =>
              fleetServer
                .objects(Resources.configMaps)
                .filter((o) => (o as KubeObject & { data?: Record<string, string> }).data?.value === value)
                .length ===
              sources * clusters,
          )
        const t0 = performance.now()
        yield* manager.start
        yield* waitUntil(`${sources * clusters} copies`, copiesAt("v1"), 900_000)
        const startMs = performance.now() - t0
        const startWrites = writes
        writes = 0
        const t1 = performance.now()
        for (let s = 0; s < sources; s++)
          yield* hubServer
            .client()
            .patch(
              Resources.configMaps,
              { namespace: NS, name: `source-${s}` },
              mergePatch({ data: { value: "v2" } }),
            )
        yield* waitUntil("every copy edited", copiesAt("v2"), 900_000)
        const editMs = performance.now() - t1
        const heapMiB = heapAfterGc() / 2 ** 20
        const cpu = process.cpuUsage(cpu0)
        return {
          startMs,
          editMs,
          startWritesPerPair: startWrites / (sources * clusters),
          editWritesPerPair: writes / (sources * clusters),
          hubRequests: Object.fromEntries([...counts.entries()].sort()),
          heapMiB,
          wallMs: performance.now() - wall0,
          cpuMs: (cpu.user + cpu.system) / 1000,
        }
      }),
    ).pipe(Effect.provideService(References.MinimumLogLevel, "Error")),
  )

/** The propagation benchmark with the namespaces provider on one in-memory API server. */
export const propagateNamespacesBench = async (
  sources: number,
  clusters: number,
  runs: number,
  json: boolean,
) => {
  const results: Array<PropagateRun> = []
  for (let i = 0; i < runs; i++) {
    const r = await propagateNamespacesRun(sources, clusters)
    log(
      `run ${i + 1}/${runs}: start ${r.startMs.toFixed(0)} ms, edit ${r.editMs.toFixed(0)} ms, writes/pair ${r.startWritesPerPair.toFixed(2)} + ${r.editWritesPerPair.toFixed(2)}, heap ${r.heapMiB.toFixed(1)} MiB, wall ${r.wallMs.toFixed(0)} ms, cpu ${r.cpuMs.toFixed(0)} ms`,
    )
    results.push(r)
  }
  const rss = process.resourceUsage().maxRSS / 1024
  if (json) {
    process.stdout.write(
      `${JSON.stringify({ sources, clusters, namespaces: true, runs: results, peakRssMiB: rss })}\n`,
    )
    return
  }
  const pick = (f: (r: PropagateRun) => number) => stats(results.map(f))
  process.stdout.write(
    `${[
      `krtt propagate: ${sources} sources to ${clusters} namespaces of one in-memory API server (namespaces provider), ${runs} runs, min / median / max`,
      `  all copies from start:      ${fmt(
        pick((r) => r.startMs / 1000),
        2,
        " s",
      )}`,
      `  all copies after an edit:   ${fmt(
        pick((r) => r.editMs / 1000),
        2,
        " s",
      )}`,
      `  writes per source and cluster: start ${fmt(
        pick((r) => r.startWritesPerPair),
        2,
      )}, edit ${fmt(
        pick((r) => r.editWritesPerPair),
        2,
      )}`,
      `  hub requests (first run): ${Object.entries(results[0]?.hubRequests ?? {})
        .map(([k, v]) => `${k} ${v}`)
        .join(", ")}`,
      `  heap after GC, all in sync: ${fmt(
        pick((r) => r.heapMiB),
        1,
        " MiB",
      )}`,
      `  wall per run:               ${fmt(
        pick((r) => r.wallMs / 1000),
        2,
        " s",
      )}`,
      `  CPU per run:                ${fmt(
        pick((r) => r.cpuMs / 1000),
        2,
        " s",
      )}`,
      `  peak RSS of the process:    ${rss.toFixed(0)} MiB`,
    ].join("\n")}\n`,
  )
}

if (import.meta.main) {
  if (values.namespaces === true) await propagateNamespacesBench(SOURCES, N, RUNS, values.json === true)
  else if (values.testenv !== undefined)
    await propagateTestenvBench(SOURCES, int("testenv", values.testenv, 1), RUNS, values.json === true)
  else await propagateBench(SOURCES, N, RUNS, values.json === true)
}
