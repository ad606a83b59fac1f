/**
 * Benchmark of the multi-cluster runtime with its providers.
 *
 * 1. Engagement, on a real control plane (testenv: a hub and `--workloads` workload
 *    kube-apiservers): `--clusters` kubeconfig Secrets on the hub (round robin over the
 *    workloads), the kubeconfig-secrets provider and the multi-cluster manager with one
 *    controller watching ConfigMaps of one namespace on every engaged cluster. Measured: time from
 *    the provider's start to every cluster engaged and to every cluster's first reconcile; the
 *    management (hub) and workload requests while starting and per cluster and minute
 *    afterwards (counted by the clients: probes included, each watch counted when opened); the
 *    memory per engaged cluster (heap and RSS after a GC, before and after, over the clusters);
 *    wall and CPU time of this process (the API servers are other processes).
 * 2. Fairness, over in-memory API servers (the network left out, so that the figures are the
 *    runtime's: reflectors, handlers, the ONE shared fair work queue, one worker, each reconcile
 *    reading its object from the cache and waiting `--reconcile-ms` like a reconcile making one
 *    API call; every cluster's watch warmed up by one event first): one cluster floods `--flood`
 *    events; once `--backlog` of them wait in the queue,
 *    `--quiet` clusters see one event each. Measured: the quiet clusters' time from their event's
 *    write to its reconcile, and the flood reconciles done meanwhile, with and without the flood.
 *
 * Each part runs several times (`--runs`, `--fairness-runs`); figures are min / median / max.
 *
 * Usage: node --expose-gc bench/multicluster.ts [--clusters 100] [--workloads 2] [--runs 3]
 *        [--steady 30] [--flood 10000] [--quiet 20] [--backlog 1000] [--reconcile-ms 1]
 *        [--fairness-runs 5] [--part all|engage|fairness] [--json]
 *
 * @module
 */
import { randomBytes } from "node:crypto"
import { cpus } from "node:os"
import { performance } from "node:perf_hooks"
import { parseArgs } from "node:util"
import { KubeConfig } from "@kubernetes/client-node"
import * as Effect from "effect/Effect"
import * as References from "effect/References"
import * as Stream from "effect/Stream"
import { makeMemoryClient } from "../shell/apiserver/memoryClient.ts"
import { FakeApiServer } from "../shell/apiserver/server.ts"
import { done } from "../shell/controller/result.ts"
import type {
  DeleteOptions,
  KubeClientShape,
  ListAllOptions,
  ListOptions,
  PatchOptions,
  WatchOptions,
  WriteOptions,
} from "../shell/kube/client.ts"
import type { Patch } from "../shell/kube/patch.ts"
import { type KubeObject, type ObjectKey, type ResourceRef, Resources } from "../shell/kube/resource.ts"
import { makeRestClient } from "../shell/kube/restClient.ts"
import { controllerManagedBy } from "../shell/multicluster/builder.ts"
import { makeCluster } from "../shell/multicluster/cluster.ts"
import { enqueueRequestForObject } from "../shell/multicluster/handler.ts"
import { make as makeManager } from "../shell/multicluster/manager.ts"
import type { ClientFactory } from "../shell/multicluster/providers/kubeconfig.ts"
import { makeRestClientFactory } from "../shell/multicluster/providers/kubeconfig.ts"
import { makeKubeconfigSecretsProvider } from "../shell/multicluster/providers/kubeconfigSecrets.ts"
import { type Cluster, startControlPlane } from "../testenv/index.ts"

const { values } = parseArgs({
  options: {
    clusters: { type: "string", default: "100" },
    workloads: { type: "string", default: "2" },
    runs: { type: "string", default: "3" },
    steady: { type: "string", default: "30" },
    flood: { type: "string", default: "10000" },
    quiet: { type: "string", default: "20" },
    "fairness-runs": { type: "string", default: "5" },
    backlog: { type: "string", default: "1000" },
    "reconcile-ms": { type: "string", default: "1" },
    part: { type: "string", default: "all" },
    json: { type: "boolean", default: false },
  },
})
const positive = (flag: string, value: string | undefined, zero = false): number => {
  const n = Number(value)
  if (!Number.isInteger(n) || n < (zero ? 0 : 1))
    throw new Error(`--${flag}: ${zero ? "an integer ≥ 0" : "a positive integer"}, got ${value}`)
  return n
}
const N = positive("clusters", values.clusters)
const WORKLOADS = positive("workloads", values.workloads)
const RUNS = positive("runs", values.runs)
const STEADY_S = positive("steady", values.steady, true)
const FLOOD = positive("flood", values.flood)
const QUIET = positive("quiet", values.quiet)
const FAIR_RUNS = positive("fairness-runs", values["fairness-runs"])
const BACKLOG = positive("backlog", values.backlog, true)
const RECONCILE_MS = positive("reconcile-ms", values["reconcile-ms"], true)
const PART = values.part ?? "all"
if (!["all", "engage", "fairness"].includes(PART))
  throw new Error(`--part: all, engage or fairness, got ${PART}`)

const log = (line: string) => process.stderr.write(`bench: ${line}\n`)
const gc = (globalThis as { gc?: () => void }).gc
const collect = () => {
  gc?.()
  gc?.()
  return process.memoryUsage()
}

/** min / median / max of numbers. */
const stats = (xs: ReadonlyArray<number>) => {
  const s = [...xs].sort((a, b) => a - b)
  const mid =
    s.length === 0
      ? Number.NaN
      : s.length % 2 === 1
        ? (s[(s.length - 1) / 2] as number)
        : ((s[s.length / 2 - 1] as number) + (s[s.length / 2] as number)) / 2
  return { min: s[0] ?? Number.NaN, median: mid, max: s.at(-1) ?? Number.NaN }
}
const fmt = (x: { min: number; median: number; max: number }, digits = 1, unit = "") =>
  `${x.min.toFixed(digits)} / ${x.median.toFixed(digits)} / ${x.max.toFixed(digits)}${unit}`
const percentile = (xs: ReadonlyArray<number>, p: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? Number.NaN
}

/** A client that counts its requests by `verb resource` (probes as `probe`, watches when opened). */
const counting = (client: KubeClientShape, counts: Map<string, number>): KubeClientShape => {
  const add = (key: string) => counts.set(key, (counts.get(key) ?? 0) + 1)
  const tick = (verb: string, resource: string) => Effect.sync(() => add(`${verb} ${resource}`))
  return {
    get: <T extends KubeObject>(r: ResourceRef, k: ObjectKey) =>
      Effect.andThen(tick("get", r.resource), client.get<T>(r, k)),
    list: <T extends KubeObject>(r: ResourceRef, o?: ListOptions) =>
      Effect.andThen(tick("list", r.resource), client.list<T>(r, o)),
    listAll: <T extends KubeObject>(r: ResourceRef, o?: ListAllOptions) =>
      Effect.andThen(tick("list", r.resource), client.listAll<T>(r, o)),
    create: <T extends KubeObject>(r: ResourceRef, o: T, w?: WriteOptions) =>
      Effect.andThen(tick("create", r.resource), client.create<T>(r, o, w)),
    update: <T extends KubeObject>(r: ResourceRef, o: T, w?: WriteOptions) =>
      Effect.andThen(tick("update", r.resource), client.update<T>(r, o, w)),
    patch: <T extends KubeObject>(r: ResourceRef, k: ObjectKey, p: Patch, o?: PatchOptions) =>
      Effect.andThen(tick("patch", r.resource), client.patch<T>(r, k, p, o)),
    delete: <T extends KubeObject>(r: ResourceRef, k: ObjectKey, o?: DeleteOptions) =>
      Effect.andThen(tick("delete", r.resource), client.delete<T>(r, k, o)),
    getStatus: <T extends KubeObject>(r: ResourceRef, k: ObjectKey) =>
      Effect.andThen(tick("get", `${r.resource}/status`), client.getStatus<T>(r, k)),
    updateStatus: <T extends KubeObject>(r: ResourceRef, o: T, w?: WriteOptions) =>
      Effect.andThen(tick("update", `${r.resource}/status`), client.updateStatus<T>(r, o, w)),
    patchStatus: <T extends KubeObject>(r: ResourceRef, k: ObjectKey, p: Patch, o?: PatchOptions) =>
      Effect.andThen(tick("patch", `${r.resource}/status`), client.patchStatus<T>(r, k, p, o)),
    watch: <T extends KubeObject>(r: ResourceRef, o?: WatchOptions) =>
      Stream.unwrap(Effect.as(tick("watch", r.resource), client.watch<T>(r, o))),
    probe: (o) => Effect.andThen(tick("probe", "/"), client.probe(o)),
    raw: (q) => Effect.andThen(tick(q.verb ?? q.method.toLowerCase(), q.path), client.raw(q)),
  }
}
const total = (m: ReadonlyMap<string, number>) => [...m.values()].reduce((a, b) => a + b, 0)
const byKey = (m: ReadonlyMap<string, number>, per: number) =>
  Object.fromEntries([...m].sort((a, b) => b[1] - a[1]).map(([k, v]) => [k, Number((v / per).toFixed(2))]))

const waitUntil = (what: string, check: () => Effect.Effect<boolean>, timeoutMs: number) =>
  Effect.gen(function* () {
    const deadline = Date.now() + timeoutMs
    while (!(yield* check())) {
      if (Date.now() > deadline)
        return yield* Effect.die(new Error(`not reached within ${timeoutMs} ms: ${what}`))
      yield* Effect.sleep("20 millis")
    }
  })

const kubeConfigOf = (yaml: string) => {
  const kc = new KubeConfig()
  kc.loadFromString(yaml)
  return kc
}
const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64")
const LABEL = { "sigs.k8s.io/multicluster-runtime-kubeconfig": "true" }
const cms = Resources.configMaps

// ---------------------------------------------------------------------------------------------
// Part 1: engagement of N clusters through kubeconfig-secrets, on a real control plane

interface EngageRun {
  readonly allEngagedMs: number
  readonly allReconciledMs: number
  readonly startup: { readonly hub: Map<string, number>; readonly workload: Map<string, number> }
  readonly steady: { readonly hub: Map<string, number>; readonly workload: Map<string, number> }
  readonly heapPerClusterKiB: number
  readonly rssPerClusterKiB: number
  readonly cpuToEngagedS: number
  readonly wallS: number
}

const engageRun = (hub: Cluster, workloads: ReadonlyArray<Cluster>, run: number) =>
  Effect.gen(function* () {
    const admin = yield* makeRestClient(kubeConfigOf(hub.admin.kubeconfig), { qps: 1000, burst: 1000 })
    const ns = `bench-mc-${run}-${randomBytes(3).toString("hex")}`
    yield* admin.create(Resources.namespaces, { metadata: { name: ns } })
    yield* Effect.forEach(
      Array.from({ length: N }, (_, i) => i),
      (i) =>
        admin.create(Resources.secrets, {
          metadata: { namespace: ns, name: `c${String(i).padStart(4, "0")}`, labels: LABEL },
          data: { kubeconfig: b64((workloads[i % workloads.length] as Cluster).admin.kubeconfig) },
        }),
      { concurrency: 16, discard: true },
    )
    const hubCounts = new Map<string, number>()
    const workloadCounts = new Map<string, number>()
    // The hub client of `krtt run` (QPS 100, burst 200); workload clients at seed 000's defaults.
    const hubClient = counting(
      yield* makeRestClient(kubeConfigOf(hub.admin.kubeconfig), { qps: 100, burst: 200 }),
      hubCounts,
    )
    const rest = makeRestClientFactory()
    const clientFactory: ClientFactory = (kc, name) =>
      Effect.map(rest(kc, name), (c) => counting(c, workloadCounts))
    const mem0 = collect()
    const cpu0 = process.cpuUsage()
    const t0 = performance.now()
    const provider = yield* makeKubeconfigSecretsProvider(hubClient, { namespace: ns, clientFactory })
    const manager = yield* makeManager({ hub: yield* makeCluster({ client: hubClient }), provider })
    const reconciled = new Set<string>()
    yield* controllerManagedBy(manager)
      .named(`bench-engage-${run}`)
      .watches(cms, enqueueRequestForObject(), { namespace: "bench-data" })
      .complete((req) =>
        Effect.sync(() => {
          reconciled.add(req.cluster)
          return done()
        }),
      )
    yield* manager.start
    let allEngagedMs = Number.NaN
    yield* waitUntil(
      `all ${N} clusters engaged and reconciled`,
      () =>
        Effect.map(manager.clusters, (cs) => {
          if (Number.isNaN(allEngagedMs) && cs.length === N) allEngagedMs = performance.now() - t0
          return cs.length === N && reconciled.size === N
        }),
      120_000 + N * 1_000,
    )
    const allReconciledMs = performance.now() - t0
    const cpu1 = process.cpuUsage(cpu0)
    const mem1 = collect()
    const startup = { hub: new Map(hubCounts), workload: new Map(workloadCounts) }
    hubCounts.clear()
    workloadCounts.clear()
    yield* Effect.sleep(`${STEADY_S} seconds`)
    const steady = { hub: new Map(hubCounts), workload: new Map(workloadCounts) }
    const result: EngageRun = {
      allEngagedMs,
      allReconciledMs,
      startup,
      steady,
      heapPerClusterKiB: (mem1.heapUsed - mem0.heapUsed) / 1024 / N,
      rssPerClusterKiB: (mem1.rss - mem0.rss) / 1024 / N,
      cpuToEngagedS: (cpu1.user + cpu1.system) / 1e6,
      wallS: (performance.now() - t0) / 1000,
    }
    return result
  }).pipe(Effect.scoped)

const engagePart = async () => {
  const plane = await startControlPlane({ clusters: 1 + WORKLOADS })
  try {
    const [hub, ...workloads] = plane.clusters as [Cluster, ...Array<Cluster>]
    log(`control plane up in ${plane.startupMs} ms: a hub and ${WORKLOADS} workload cluster(s)`)
    for (const w of workloads) {
      const r = await w.request("POST", "/api/v1/namespaces", { body: { metadata: { name: "bench-data" } } })
      if (r.status !== 201) throw new Error(`${w.name}: namespace bench-data: ${r.status}`)
      const c = await w.request("POST", "/api/v1/namespaces/bench-data/configmaps", {
        body: { metadata: { name: "one" }, data: { x: "1" } },
      })
      if (c.status !== 201) throw new Error(`${w.name}: configmap: ${c.status}`)
    }
    const runs: Array<EngageRun> = []
    for (let run = 1; run <= RUNS; run++) {
      const r = await Effect.runPromise(
        engageRun(hub, workloads, run).pipe(Effect.provideService(References.MinimumLogLevel, "Error")),
      )
      log(
        `engage run ${run}: all ${N} engaged in ${r.allEngagedMs.toFixed(0)} ms, reconciled in ${r.allReconciledMs.toFixed(0)} ms`,
      )
      runs.push(r)
    }
    return runs
  } finally {
    await plane.stop()
  }
}

// ---------------------------------------------------------------------------------------------
// Part 2: fairness, over in-memory API servers

interface FairRun {
  readonly flood: boolean
  /** Quiet clusters' latencies from write to reconcile, ms. */
  readonly latenciesMs: ReadonlyArray<number>
  /** Requests waiting in the queue when the quiet events were written. */
  readonly backlogAtQuietWrites: number
  /** Flood reconciles between the first quiet write and the last quiet reconcile. */
  readonly floodDuringQuiet: number
  readonly wallS: number
  readonly cpuS: number
}

const fairRun = (withFlood: boolean, run: number) =>
  Effect.gen(function* () {
    const hubFake = yield* FakeApiServer.make()
    const hub = yield* makeMemoryClient(hubFake)
    const fakes = new Map<string, FakeApiServer>()
    const names = ["flood", ...Array.from({ length: QUIET }, (_, i) => `quiet-${String(i).padStart(2, "0")}`)]
    for (const name of names) {
      fakes.set(`https://${name}.example`, yield* FakeApiServer.make())
      yield* hub.create(Resources.secrets, {
        metadata: { namespace: "fleet", name, labels: LABEL },
        data: {
          kubeconfig: b64(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://${name}.example"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`),
        },
      })
    }
    const clientFactory: ClientFactory = (kc) =>
      makeMemoryClient(fakes.get(kc.getCurrentCluster()?.server ?? "") as FakeApiServer)
    const provider = yield* makeKubeconfigSecretsProvider(hub, { namespace: "fleet", clientFactory })
    const manager = yield* makeManager({ hub: yield* makeCluster({ client: hub }), provider })
    const reconciledAt = new Map<string, number>()
    const warmed = new Set<string>()
    let floodDone = 0
    let floodAtLastQuiet = 0
    const controller = yield* controllerManagedBy(manager)
      .named(`bench-fair-${withFlood ? "flood" : "quiet"}-${run}`)
      .watches(cms, enqueueRequestForObject())
      .complete((req) =>
        Effect.gen(function* () {
          // A reconcile that reads its object from its cluster's cache and makes one API call.
          const cluster = yield* manager.getCluster(req.cluster)
          yield* Effect.ignore(cluster.cache.get(cms, { namespace: req.namespace, name: req.name }))
          if (RECONCILE_MS > 0) yield* Effect.sleep(RECONCILE_MS)
          if (req.name === "warm") warmed.add(req.cluster)
          else if (req.cluster === "flood") floodDone++
          else if (req.name === "event" && !reconciledAt.has(req.cluster)) {
            reconciledAt.set(req.cluster, performance.now())
            if (reconciledAt.size === QUIET) floodAtLastQuiet = floodDone
          }
          return done()
        }).pipe(Effect.orDie),
      )
    yield* manager.start
    yield* waitUntil(
      `${names.length} clusters engaged`,
      () => Effect.map(manager.clusters, (cs) => cs.length === names.length),
      60_000,
    )
    // Warm-up: one event per cluster, reconciled, so that every watch runs before measuring.
    for (const name of names) {
      yield* (fakes.get(`https://${name}.example`) as FakeApiServer)
        .client()
        .create(cms, { metadata: { namespace: "default", name: "warm" } })
    }
    yield* waitUntil("every cluster warmed up", () => Effect.sync(() => warmed.size === names.length), 60_000)
    const cpu0 = process.cpuUsage()
    const t0 = performance.now()
    if (withFlood) {
      const floodClient = (fakes.get("https://flood.example") as FakeApiServer).client()
      yield* Effect.forEach(
        Array.from({ length: FLOOD }, (_, i) => i),
        (i) => floodClient.create(cms, { metadata: { namespace: "default", name: `f${i}` } }),
        { discard: true },
      )
      yield* waitUntil(
        `a backlog of ${BACKLOG}`,
        () => Effect.map(controller.queue.length, (n) => n >= Math.min(BACKLOG, FLOOD - 1)),
        120_000,
      )
    }
    const backlogAtQuietWrites = yield* controller.queue.length
    const floodAtQuietWrites = floodDone
    const writtenAt = new Map<string, number>()
    for (const name of names.slice(1)) {
      writtenAt.set(name, performance.now())
      yield* (fakes.get(`https://${name}.example`) as FakeApiServer)
        .client()
        .create(cms, { metadata: { namespace: "default", name: "event" } })
    }
    yield* waitUntil(
      "every quiet event reconciled",
      () => Effect.sync(() => reconciledAt.size === QUIET),
      300_000,
    )
    if (withFlood)
      yield* waitUntil("the flood reconciled", () => Effect.sync(() => floodDone >= FLOOD), 900_000)
    const cpu = process.cpuUsage(cpu0)
    const result: FairRun = {
      flood: withFlood,
      latenciesMs: names
        .slice(1)
        .map((n) => (reconciledAt.get(n) ?? Number.NaN) - (writtenAt.get(n) ?? Number.NaN)),
      backlogAtQuietWrites,
      floodDuringQuiet: floodAtLastQuiet - floodAtQuietWrites,
      wallS: (performance.now() - t0) / 1000,
      cpuS: (cpu.user + cpu.system) / 1e6,
    }
    return result
  }).pipe(Effect.scoped)

const fairnessPart = async () => {
  const runs: Array<FairRun> = []
  for (let run = 1; run <= FAIR_RUNS; run++) {
    for (const withFlood of [false, true]) {
      const r = await Effect.runPromise(
        fairRun(withFlood, run).pipe(Effect.provideService(References.MinimumLogLevel, "Error")),
      )
      log(
        `fairness run ${run} ${withFlood ? "with" : "without"} the flood: backlog ${r.backlogAtQuietWrites}, quiet p50 ${percentile(r.latenciesMs, 50).toFixed(1)} ms, max ${Math.max(...r.latenciesMs).toFixed(1)} ms, flood reconciles meanwhile ${r.floodDuringQuiet}`,
      )
      runs.push(r)
    }
  }
  return runs
}

// ---------------------------------------------------------------------------------------------

const main = async () => {
  const machine = {
    nproc: cpus().length,
    cpu: cpus()[0]?.model ?? "unknown",
    node: process.version,
    gc: gc !== undefined,
  }
  const engage = PART === "fairness" ? [] : await engagePart()
  const fairness = PART === "engage" ? [] : await fairnessPart()
  const perMinute = (m: Map<string, number>) => (total(m) / N) * (60 / Math.max(1, STEADY_S))
  const summary = {
    machine,
    engagement:
      engage.length === 0
        ? undefined
        : {
            clusters: N,
            workloadClusters: WORKLOADS,
            runs: engage.length,
            allEngagedMs: stats(engage.map((r) => r.allEngagedMs)),
            allReconciledMs: stats(engage.map((r) => r.allReconciledMs)),
            hubRequestsPerClusterStarting: stats(engage.map((r) => total(r.startup.hub) / N)),
            workloadRequestsPerClusterStarting: stats(engage.map((r) => total(r.startup.workload) / N)),
            hubRequestsPerClusterMinute: stats(engage.map((r) => perMinute(r.steady.hub))),
            workloadRequestsPerClusterMinute: stats(engage.map((r) => perMinute(r.steady.workload))),
            heapPerClusterKiB: stats(engage.map((r) => r.heapPerClusterKiB)),
            // RSS only grows in a fresh process: later runs reuse what the first one freed.
            rssPerClusterKiBFirstRun: (engage[0] as EngageRun).rssPerClusterKiB,
            cpuToAllReconciledS: stats(engage.map((r) => r.cpuToEngagedS)),
            wallS: stats(engage.map((r) => r.wallS)),
            startupByRequest: {
              hub: byKey((engage[0] as EngageRun).startup.hub, N),
              workload: byKey((engage[0] as EngageRun).startup.workload, N),
            },
            steadyByRequestPerClusterMinute: {
              hub: byKey((engage[0] as EngageRun).steady.hub, (N * Math.max(1, STEADY_S)) / 60),
              workload: byKey((engage[0] as EngageRun).steady.workload, (N * Math.max(1, STEADY_S)) / 60),
            },
          },
    fairness:
      fairness.length === 0
        ? undefined
        : Object.fromEntries(
            [false, true].map((withFlood) => {
              const rs = fairness.filter((r) => r.flood === withFlood)
              return [
                withFlood ? "withFlood" : "withoutFlood",
                {
                  runs: rs.length,
                  quiet: QUIET,
                  flood: withFlood ? FLOOD : 0,
                  quietP50Ms: stats(rs.map((r) => percentile(r.latenciesMs, 50))),
                  quietMaxMs: stats(rs.map((r) => Math.max(...r.latenciesMs))),
                  backlogAtQuietWrites: stats(rs.map((r) => r.backlogAtQuietWrites)),
                  floodReconcilesWhileQuietWaited: stats(rs.map((r) => r.floodDuringQuiet)),
                  wallS: stats(rs.map((r) => r.wallS)),
                  cpuS: stats(rs.map((r) => r.cpuS)),
                },
              ]
            }),
          ),
  }
  if (values.json) {
    process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`)
    return
  }
  const lines = [
    `machine: ${machine.nproc} × ${machine.cpu}, Node ${machine.node}${machine.gc ? "" : " (without --expose-gc: memory figures include garbage)"}`,
  ]
  const e = summary.engagement
  if (e !== undefined) {
    lines.push(
      `engagement: ${N} clusters through kubeconfig-secrets over ${WORKLOADS} workload API server(s), ${e.runs} runs (min / median / max)`,
      `  all engaged:                  ${fmt({ min: e.allEngagedMs.min / 1000, median: e.allEngagedMs.median / 1000, max: e.allEngagedMs.max / 1000 }, 2, " s")}`,
      `  all reconciled once:          ${fmt({ min: e.allReconciledMs.min / 1000, median: e.allReconciledMs.median / 1000, max: e.allReconciledMs.max / 1000 }, 2, " s")}`,
      `  hub requests while starting:  ${fmt(e.hubRequestsPerClusterStarting, 2)} per cluster`,
      `  workload requests starting:   ${fmt(e.workloadRequestsPerClusterStarting, 2)} per cluster`,
      `  afterwards (${STEADY_S} s): hub ${fmt(e.hubRequestsPerClusterMinute, 2)}, workload ${fmt(e.workloadRequestsPerClusterMinute, 2)} per cluster and minute`,
      `  memory per engaged cluster:   heap after GC ${fmt(e.heapPerClusterKiB, 0, " KiB")}; RSS growth in the first run ${e.rssPerClusterKiBFirstRun.toFixed(0)} KiB`,
      `  CPU until all reconciled:     ${fmt(e.cpuToAllReconciledS, 2, " s")}; wall per run ${fmt(e.wallS, 1, " s")}`,
      `  requests of run 1 while starting, per cluster: hub ${JSON.stringify(e.startupByRequest.hub)}, workload ${JSON.stringify(e.startupByRequest.workload)}`,
      `  afterwards, per cluster and minute: hub ${JSON.stringify(e.steadyByRequestPerClusterMinute.hub)}, workload ${JSON.stringify(e.steadyByRequestPerClusterMinute.workload)}`,
    )
  }
  const f = summary.fairness as
    | Record<
        string,
        {
          quietP50Ms: ReturnType<typeof stats>
          quietMaxMs: ReturnType<typeof stats>
          backlogAtQuietWrites: ReturnType<typeof stats>
          floodReconcilesWhileQuietWaited: ReturnType<typeof stats>
          wallS: ReturnType<typeof stats>
          cpuS: ReturnType<typeof stats>
          runs: number
        }
      >
    | undefined
  if (f !== undefined) {
    lines.push(
      `fairness: ${QUIET} quiet clusters, one event each, written once ${BACKLOG} flood requests wait; one cluster floods ${FLOOD} events; reconciles of ${RECONCILE_MS} ms, one worker (min / median / max over runs)`,
    )
    for (const [k, v] of Object.entries(f)) {
      lines.push(
        `  ${k === "withFlood" ? "with the flood:   " : "without the flood:"} quiet p50 ${fmt(v.quietP50Ms, 1, " ms")}, quiet max ${fmt(v.quietMaxMs, 1, " ms")}, backlog ${fmt(v.backlogAtQuietWrites, 0)}, flood reconciles while the quiet ones waited ${fmt(v.floodReconcilesWhileQuietWaited, 0)}, wall ${fmt(v.wallS, 2, " s")}, CPU ${fmt(v.cpuS, 2, " s")} (${v.runs} runs)`,
      )
    }
  }
  process.stdout.write(`${lines.join("\n")}\n`)
}

await main()
