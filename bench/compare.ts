/**
 * krtt and upstream Cluster API v1.13's core manager side by side: the
 * same workload, on the same testenv control plane, one operator after the other.
 *
 * One control plane (etcd, a management kube-apiserver, a few workload kube-apiservers and
 * kube-controller-manager) gets upstream's own CRDs (all of `config/crd/bases` of the Go module
 * `sigs.k8s.io/cluster-api`), krtt's RBAC and the test providers of `e2e/fixtures/`. For each
 * operator and each size (a small one for the RSS slope, then N), a fresh namespace gets that many
 * Clusters, each with its E2EInfraCluster (provisioned), E2EControlPlane (initialized) and
 * `<cluster>-kubeconfig` Secret naming one of the workload API servers; the operator is started
 * with the same flags where both have them and timed until every Cluster is Provisioned,
 * connected (`capi_cluster_cache_connection_up` 1) and probed (RemoteConnectionProbe True); the
 * steady state is then measured for `--steady` seconds; the operator is stopped and the namespace
 * removed before the next run. The measurement helpers are bench/operator.ts's.
 *
 * - krtt: `krtt run` as bench/operator.ts starts it (restricted `krtt-manager` identity, leader
 *   election on; its Lease requests are counted apart, as in bench/operator.ts).
 * - upstream: its manager binary (built from the Go module into the cache, see
 *   compare-upstream.ts) with the admin kubeconfig of testenv, `--leader-elect=false`, a
 *   self-signed webhook serving certificate; its webhooks are not registered with the API server
 *   (krtt's are not either); all its controllers run as in a real installation and their requests
 *   are counted.
 *
 * Usage: node bench/compare.ts [--clusters 100] [--small 20] [--workloads 2] [--steady 60]
 *        [--only krtt|upstream] [--json]
 *
 * @module
 */
import { readFileSync } from "node:fs"
import { mkdtemp, rm } from "node:fs/promises"
import { cpus, loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { parseArgs } from "node:util"
import {
  createCluster,
  createNamespace,
  endpointOf,
  expectStatus,
  installManagement,
  type KubeObject,
  managerIdentity,
  mergePatch,
  parseMetrics,
  paths,
  type Sample,
  select,
  sleep,
  startOperator,
  sumOf,
  waitFor,
  writeServingCertificate,
} from "../e2e/fixtures/index.ts"
import { CLUSTER_API_PREVIOUS_VERSION } from "../testenv/clusterapi.ts"
import { type Cluster, startControlPlane } from "../testenv/index.ts"
import { freePorts } from "../testenv/processes.ts"
import {
  ensureUpstreamManager,
  installUpstreamCrdsOf,
  type Observed,
  startUpstream,
} from "./compare-upstream.ts"
import { delta, pool, processStats, requestCounts, splitLeases, total } from "./operator.ts"

/**
 * The release whose core manager and CRDs the comparison runs: v1.13, built in the module's root
 * by `ensureUpstreamManager` (bench/startup.ts measures later releases with `--upstream-version`).
 */
const COMPARED_VERSION = CLUSTER_API_PREVIOUS_VERSION

/** The comparison's documented defaults (each a flag). */
export const COMPARE_DEFAULTS = {
  clusters: 100,
  /** The second size, for RSS per additional Cluster; 0 skips it. */
  small: 20,
  workloads: 2,
  /** Seconds of steady state measured once everything is up. */
  steady: 60,
  /** Seconds of quiet before each start, to measure the apiserver's own background requests. */
  quiet: 20,
} as const

/**
 * The flags both operators have, at the same values (upstream's defaults, which are krtt's):
 * management client QPS and burst, workload client QPS and burst, the two concurrencies.
 */
export const SHARED_FLAGS = [
  "--kube-api-qps=100",
  "--kube-api-burst=200",
  "--clustercache-client-qps=20",
  "--clustercache-client-burst=30",
  "--clustercache-concurrency=100",
  "--cluster-concurrency=50",
] as const

/** Loaded into krtt with `--memory` (see compare-memory.ts). */
const MEMORY_SAMPLER = fileURLToPath(new URL("./compare-memory.ts", import.meta.url))

const OPERATORS = ["krtt", "upstream"] as const
type OperatorName = (typeof OPERATORS)[number]

const log = (line: string) => process.stderr.write(`compare: ${line}\n`)

/** One operator on one size. */
interface RunResult {
  readonly clusters: number
  readonly readySeconds: number
  readonly allProvisionedSeconds: number
  readonly allConnectedSeconds: number
  readonly allProbedSeconds: number
  readonly startRequests: Record<string, number>
  /** Of those, the ones answered 409 Conflict (counted in `startRequests` too). */
  readonly startConflicts: Record<string, number>
  readonly requestsPerClusterStart: number
  readonly steadyRequestsPerClusterMinute: Record<string, number>
  readonly requestsPerClusterMinute: number
  /** The same without `POST events` and `PATCH events` (upstream's recorder drains its backlog late). */
  readonly requestsPerClusterMinuteWithoutEvents: number
  readonly leaseRequestsPerMinute: number
  readonly probesPerClusterMinute: number
  readonly peakRssMiB: number
  readonly rssAfterSteadyMiB: number
  /** With `--memory`: the heap and what else the runtime reports, after the steady window (MiB). */
  readonly memoryAfterSteadyMiB: Record<string, number> | undefined
  readonly cpuSecondsToAllProbed: number
  readonly cpuSeconds: number
  readonly sigterm: { readonly code: number | null; readonly ms: number }
  /** The Events in the run's namespace at its end, by `type reason kind`, summed over their counts. */
  readonly events: Record<string, number>
  /**
   * The machine's 1-minute load average when the operator started, when all were probed and at
   * the end of the steady window: the times of a run on a shared machine are read against it.
   */
  readonly loadAverage: { readonly start: number; readonly allProbed: number; readonly end: number }
}

const load1 = () => Number((loadavg()[0] ?? Number.NaN).toFixed(2))

const parse = () => {
  const { values } = parseArgs({
    options: {
      clusters: { type: "string", default: String(COMPARE_DEFAULTS.clusters) },
      small: { type: "string", default: String(COMPARE_DEFAULTS.small) },
      workloads: { type: "string", default: String(COMPARE_DEFAULTS.workloads) },
      steady: { type: "string", default: String(COMPARE_DEFAULTS.steady) },
      only: { type: "string" },
      memory: { type: "boolean", default: false },
      json: { type: "boolean", default: false },
    },
    strict: true,
  })
  const int = (name: string, value: string, min: number) => {
    const n = Number(value)
    if (!Number.isInteger(n) || n < min) throw new Error(`--${name}: an integer ≥ ${min}, got ${value}`)
    return n
  }
  const clusters = int("clusters", values.clusters, 1)
  const small = int("small", values.small, 0)
  if (small >= clusters) throw new Error(`--small: below --clusters (${clusters}), got ${small}; 0 skips it`)
  const only = values.only
  if (only !== undefined && !(OPERATORS as ReadonlyArray<string>).includes(only))
    throw new Error(`--only: one of ${OPERATORS.join(", ")}, got ${only}`)
  return {
    clusters,
    small,
    workloads: int("workloads", values.workloads, 1),
    steady: int("steady", values.steady, 1),
    operators: only === undefined ? OPERATORS : [only as OperatorName],
    memory: values.memory,
    json: values.json,
  }
}

const conditionTrue = (o: KubeObject, type: string) =>
  (o.status?.conditions as ReadonlyArray<{ type: string; status: string }> | undefined)?.some(
    (c) => c.type === type && c.status === "True",
  ) === true

/** Removes the namespace of a finished run, its Clusters' finalizers first (no operator runs). */
const removeNamespace = async (mgmt: Cluster, ns: string) => {
  const r = await expectStatus(mgmt.request("GET", paths.cluster(ns)), [200], "list clusters")
  await pool((r.body as { items: ReadonlyArray<KubeObject> }).items, 8, async (c) => {
    await mergePatch(mgmt, paths.cluster(ns, c.metadata.name), { metadata: { finalizers: null } })
  })
  await expectStatus(mgmt.request("DELETE", `/api/v1/namespaces/${ns}`), [200, 202, 404], `delete ${ns}`)
  await waitFor(
    `namespace ${ns} gone`,
    async () => ((await mgmt.request("GET", `/api/v1/namespaces/${ns}`)).status === 404 ? true : undefined),
    { timeoutMs: 300_000, intervalMs: 500 },
  )
}

/** `apiserver_request_total` answered 409 Conflict, by `verb resource[/subresource]`. */
const conflictCounts = async (mgmt: Cluster): Promise<Map<string, number>> => {
  const r = await expectStatus(mgmt.request("GET", "/metrics"), [200], "GET /metrics")
  const counts = new Map<string, number>()
  for (const s of select(parseMetrics(r.text), "apiserver_request_total", { code: "409" })) {
    const { verb = "", resource = "", subresource = "" } = s.labels
    const key = `${verb} ${resource}${subresource === "" ? "" : `/${subresource}`}`
    counts.set(key, (counts.get(key) ?? 0) + s.value)
  }
  return counts
}

/** What the operator said in Events: `type reason kind` → occurrences (an Event's count, or 1). */
const eventCounts = async (mgmt: Cluster, ns: string): Promise<Record<string, number>> => {
  const r = await expectStatus(mgmt.request("GET", `/api/v1/namespaces/${ns}/events`), [200], "list events")
  const counts = new Map<string, number>()
  for (const e of (r.body as { items: ReadonlyArray<Record<string, unknown>> }).items) {
    const kind = (e.involvedObject as { kind?: string } | undefined)?.kind ?? ""
    const key = `${String(e.type)} ${String(e.reason)} ${kind}`
    const n = (e.series as { count?: number } | undefined)?.count ?? (e.count as number | undefined) ?? 1
    counts.set(key, (counts.get(key) ?? 0) + n)
  }
  return Object.fromEntries([...counts].sort((a, b) => b[1] - a[1]))
}

const measure = async (
  mgmt: Cluster,
  workloads: ReadonlyArray<Cluster>,
  name: OperatorName,
  n: number,
  steadyS: number,
  start: () => Promise<Observed>,
): Promise<RunResult> => {
  const ns = await createNamespace(mgmt, `${name}-${n}`)
  const names = Array.from({ length: n }, (_, i) => `c${String(i).padStart(4, "0")}`)
  const tc = Date.now()
  await pool(names, 8, async (c) => {
    const w = workloads[Number(c.slice(1)) % workloads.length] as Cluster
    await createCluster(mgmt, {
      namespace: ns,
      name: c,
      kubeconfig: w.admin.kubeconfig,
      endpoint: endpointOf(w.server),
    })
  })
  log(`${name}, ${n} Clusters: created in ${Date.now() - tc} ms`)

  const q0 = await requestCounts(mgmt)
  await sleep(COMPARE_DEFAULTS.quiet * 1_000)
  const q1 = await requestCounts(mgmt)
  const background = new Map([...q1].map(([k, v]) => [k, (v - (q0.get(k) ?? 0)) / COMPARE_DEFAULTS.quiet]))

  let ownLists = 0
  const clusterCounts = async () => {
    ownLists++
    const r = await expectStatus(mgmt.request("GET", paths.cluster(ns)), [200], "list clusters")
    const provisioned = (r.body as { items: ReadonlyArray<KubeObject> }).items.filter(
      (c) => c.status?.phase === "Provisioned",
    )
    return {
      provisioned: provisioned.length,
      probed: provisioned.filter((c) => conditionTrue(c, "RemoteConnectionProbe")).length,
    }
  }
  const connected = (samples: ReadonlyArray<Sample>) =>
    select(samples, "capi_cluster_cache_connection_up", { cluster_namespace: ns }).filter(
      (s) => s.value === 1,
    ).length

  const before = await requestCounts(mgmt)
  const conflictsBefore = await conflictCounts(mgmt)
  const loadAtStart = load1()
  const t0 = Date.now()
  const op = await start()
  try {
    const context = () => op.tail(30)
    const readyMs = await waitFor("/readyz", async () => ((await op.ready()) ? Date.now() - t0 : undefined), {
      timeoutMs: 300_000,
      intervalMs: 100,
      context,
    })
    let connectedMs: number | undefined
    let provisionedMs: number | undefined
    let probedMs: number | undefined
    await waitFor(
      `all ${n} Clusters connected, Provisioned and probed by ${name}`,
      async () => {
        if (connectedMs === undefined && connected(await op.metrics()) === n) connectedMs = Date.now() - t0
        const counts = await clusterCounts()
        if (provisionedMs === undefined && counts.provisioned === n) provisionedMs = Date.now() - t0
        if (probedMs === undefined && counts.probed === n) probedMs = Date.now() - t0
        return connectedMs !== undefined && provisionedMs !== undefined && probedMs !== undefined
          ? true
          : undefined
      },
      { timeoutMs: 180_000 + n * 2_000, intervalMs: 500, context },
    )
    const startS = (Date.now() - t0) / 1_000
    const loadAtProbed = load1()
    const after = await requestCounts(mgmt)
    const startup = splitLeases(
      delta(before, after, startS, background, new Map([["LIST clusters", ownLists]])),
    ).rest
    const atStart = processStats(op.pid)
    const conflicts = delta(conflictsBefore, await conflictCounts(mgmt), 0, new Map())
    log(`${name}, ${n} Clusters: all up after ${startS.toFixed(1)} s; steady state for ${steadyS} s`)

    const probes = async () =>
      sumOf(await op.metrics(), "capi_cluster_cache_healthchecks_total", { cluster_namespace: ns })
    const p0 = await probes()
    await sleep(steadyS * 1_000)
    const p1 = await probes()
    const split = splitLeases(delta(after, await requestCounts(mgmt), steadyS, background))
    const end = processStats(op.pid)
    const memory = await op.memory()
    const loadAtEnd = load1()
    const sigterm = await op.terminate(30_000)
    const events = await eventCounts(mgmt, ns)
    const perMinute = (v: number) => (v / n) * (60 / steadyS)
    return {
      clusters: n,
      readySeconds: readyMs / 1_000,
      allProvisionedSeconds: (provisionedMs as number) / 1_000,
      allConnectedSeconds: (connectedMs as number) / 1_000,
      allProbedSeconds: (probedMs as number) / 1_000,
      startRequests: Object.fromEntries(startup),
      startConflicts: Object.fromEntries(conflicts),
      requestsPerClusterStart: total(startup) / n,
      steadyRequestsPerClusterMinute: Object.fromEntries(
        [...split.rest].map(([k, v]) => [k, Number(perMinute(v).toFixed(3))]),
      ),
      requestsPerClusterMinute: perMinute(total(split.rest)),
      requestsPerClusterMinuteWithoutEvents: perMinute(
        total(new Map([...split.rest].filter(([k]) => !k.endsWith(" events")))),
      ),
      leaseRequestsPerMinute: total(split.leases) * (60 / steadyS),
      probesPerClusterMinute: perMinute(p1 - p0),
      peakRssMiB: end.hwmKb / 1024,
      rssAfterSteadyMiB: end.rssKb / 1024,
      memoryAfterSteadyMiB: memory,
      cpuSecondsToAllProbed: atStart.cpuSeconds,
      cpuSeconds: end.cpuSeconds,
      sigterm,
      events,
      loadAverage: { start: loadAtStart, allProbed: loadAtProbed, end: loadAtEnd },
    }
  } finally {
    await op.kill()
    await removeNamespace(mgmt, ns)
  }
}

/** The figures the issue names, for one operator, from its runs (the last is the size N). */
const summary = (runs: ReadonlyArray<RunResult>) => {
  const big = runs[runs.length - 1] as RunResult
  const small = runs.length > 1 ? (runs[0] as RunResult) : undefined
  return {
    clusters: big.clusters,
    readySeconds: big.readySeconds,
    allProvisionedSeconds: big.allProvisionedSeconds,
    allConnectedSeconds: big.allConnectedSeconds,
    allProbedSeconds: big.allProbedSeconds,
    requestsPerClusterStart: big.requestsPerClusterStart,
    requestsPerClusterMinute: big.requestsPerClusterMinute,
    requestsPerClusterMinuteWithoutEvents: big.requestsPerClusterMinuteWithoutEvents,
    probesPerClusterMinute: big.probesPerClusterMinute,
    peakRssMiB: big.peakRssMiB,
    /** (RSS after the steady window at N − at the small size) / (N − small). */
    rssPerClusterMiB:
      small === undefined
        ? null
        : (big.rssAfterSteadyMiB - small.rssAfterSteadyMiB) / (big.clusters - small.clusters),
    cpuSeconds: big.cpuSecondsToAllProbed,
    /** With `--memory`: the same slope for each part the runtime reports (MiB per Cluster). */
    memoryPerClusterMiB:
      small?.memoryAfterSteadyMiB === undefined || big.memoryAfterSteadyMiB === undefined
        ? undefined
        : Object.fromEntries(
            Object.entries(big.memoryAfterSteadyMiB).map(([k, v]) => [
              k,
              Number(
                ((v - (small.memoryAfterSteadyMiB?.[k] ?? 0)) / (big.clusters - small.clusters)).toFixed(4),
              ),
            ]),
          ),
    runs,
  }
}
type Summary = ReturnType<typeof summary>

const ROWS: ReadonlyArray<readonly [string, (s: Summary) => number | null, number]> = [
  ["time to /readyz (s)", (s) => s.readySeconds, 1],
  ["time to all Provisioned (s)", (s) => s.allProvisionedSeconds, 1],
  ["time to all connected (s)", (s) => s.allConnectedSeconds, 1],
  ["time to all probed (s)", (s) => s.allProbedSeconds, 1],
  ["management requests per Cluster, starting", (s) => s.requestsPerClusterStart, 1],
  ["management requests per Cluster and minute, afterwards", (s) => s.requestsPerClusterMinute, 2],
  ["… of which not Events", (s) => s.requestsPerClusterMinuteWithoutEvents, 2],
  ["health probes per Cluster and minute", (s) => s.probesPerClusterMinute, 2],
  ["peak RSS (MiB)", (s) => s.peakRssMiB, 0],
  ["RSS per additional Cluster (MiB)", (s) => s.rssPerClusterMiB, 2],
  ["CPU seconds to all probed", (s) => s.cpuSeconds, 1],
]

export const table = (results: Partial<Record<OperatorName, Summary>>): string => {
  const k = results.krtt
  const u = results.upstream
  const cell = (s: Summary | undefined, f: (s: Summary) => number | null, digits: number) => {
    const v = s === undefined ? null : f(s)
    return v === null || !Number.isFinite(v) ? "–" : v.toFixed(digits)
  }
  const ratio = (f: (s: Summary) => number | null) => {
    const a = k === undefined ? null : f(k)
    const b = u === undefined ? null : f(u)
    return a === null || b === null || b === 0 ? "–" : `${(a / b).toFixed(2)}`
  }
  const lines = [
    "| | krtt | upstream | krtt / upstream |",
    "|---|---:|---:|---:|",
    ...ROWS.map(
      ([label, f, digits]) => `| ${label} | ${cell(k, f, digits)} | ${cell(u, f, digits)} | ${ratio(f)} |`,
    ),
  ]
  return lines.join("\n")
}

const topRequests = (name: string, r: RunResult) => [
  `${name}, load average (1 min) at its start, when all were probed, at the end: ${r.loadAverage.start}, ${r.loadAverage.allProbed}, ${r.loadAverage.end}`,
  `${name}, requests while starting (top 10, all ${r.clusters} Clusters): ${Object.entries(r.startRequests)
    .slice(0, 10)
    .map(([key, v]) => `${key} ${v}`)
    .join(", ")}`,
  `${name}, of those answered 409 Conflict: ${
    Object.entries(r.startConflicts)
      .map(([key, v]) => `${key} ${v}`)
      .join(", ") || "none"
  }`,
  `${name}, requests afterwards per Cluster and minute: ${Object.entries(r.steadyRequestsPerClusterMinute)
    .slice(0, 10)
    .map(([key, v]) => `${key} ${v}`)
    .join(", ")}`,
  `${name}, Events in the namespace at the end (type reason kind: occurrences): ${Object.entries(r.events)
    .slice(0, 8)
    .map(([key, v]) => `${key} ${v}`)
    .join(", ")}`,
]

const main = async () => {
  const o = parse()
  const started = Date.now()
  const dir = await mkdtemp(join(tmpdir(), "krtt-bench-compare-"))
  // Upstream's binary first: a failed build fails before a control plane is started.
  const binary = o.operators.includes("upstream")
    ? await ensureUpstreamManager(log, COMPARED_VERSION)
    : undefined
  const controlPlane = await startControlPlane({ clusters: 1 + o.workloads })
  try {
    const [mgmt, ...workloads] = controlPlane.clusters as [Cluster, ...Array<Cluster>]
    await installManagement(mgmt, { crds: "upstream", version: COMPARED_VERSION })
    await installUpstreamCrdsOf(mgmt, COMPARED_VERSION)
    const identity = await managerIdentity(mgmt, dir)
    const certDir = join(dir, "serving-certs")
    await writeServingCertificate(certDir, ["127.0.0.1", "localhost"])
    log(`control plane up: upstream Cluster API ${COMPARED_VERSION} CRDs, ${o.workloads} workload cluster(s)`)

    const starters: Record<OperatorName, () => Promise<Observed>> = {
      krtt: async () => {
        const [webhookPort] = await freePorts(1)
        const memoryLog = join(dir, `krtt-memory-${Date.now()}.jsonl`)
        const saved = {
          NODE_OPTIONS: process.env.NODE_OPTIONS,
          KRTT_BENCH_MEMORY_LOG: process.env.KRTT_BENCH_MEMORY_LOG,
        }
        if (o.memory) {
          process.env.NODE_OPTIONS = `${saved.NODE_OPTIONS ?? ""} --import=${MEMORY_SAMPLER}`.trim()
          process.env.KRTT_BENCH_MEMORY_LOG = memoryLog
        }
        const p = await startOperator({
          kubeconfigPath: identity.kubeconfigPath,
          dir,
          args: [...SHARED_FLAGS, `--webhook-port=${webhookPort}`, `--webhook-cert-dir=${certDir}`],
        }).finally(() => {
          for (const [k, v] of Object.entries(saved))
            if (v === undefined) delete process.env[k]
            else process.env[k] = v
        })
        return {
          pid: p.pid,
          command: p.command,
          ready: async () => (await p.probe("/readyz").catch(() => ({ status: 0 }))).status === 200,
          metrics: p.metrics,
          tail: p.tail,
          terminate: async (ms) => {
            const r = await p.terminate(ms)
            return { code: r.code, ms: r.ms }
          },
          kill: p.kill,
          memory: async () => {
            if (!o.memory) return undefined
            const last = readFileSync(memoryLog, "utf8").trim().split("\n").pop() ?? "{}"
            const m = JSON.parse(last) as Record<string, number>
            const mib = (k: string) => Number(((m[k] ?? Number.NaN) / 1_048_576).toFixed(2))
            return {
              heapUsed: mib("heapUsed"),
              heapTotal: mib("heapTotal"),
              external: mib("external"),
              arrayBuffers: mib("arrayBuffers"),
              rss: mib("rss"),
            }
          },
        }
      },
      upstream: () =>
        startUpstream({
          binary: binary as string,
          kubeconfigPath: mgmt.admin.kubeconfigPath,
          dir,
          certDir,
          args: SHARED_FLAGS,
        }),
    }
    const sizes = o.small > 0 ? [o.small, o.clusters] : [o.clusters]
    const results: Partial<Record<OperatorName, Summary>> = {}
    for (const name of o.operators) {
      const runs: Array<RunResult> = []
      for (const n of sizes) runs.push(await measure(mgmt, workloads, name, n, o.steady, starters[name]))
      results[name] = summary(runs)
    }
    const lines = [
      `machine: ${cpus().length} × ${cpus()[0]?.model ?? "unknown"}, Node ${process.version}`,
      `${o.clusters} Clusters over ${o.workloads} workload API server(s)${o.small > 0 ? `; RSS slope between ${o.small} and ${o.clusters}` : ""}; steady state over ${o.steady} s`,
      `same flags for both: ${SHARED_FLAGS.join(" ")}`,
      "krtt: krtt run as the restricted krtt-manager ServiceAccount, leader election on (its Lease requests counted apart)",
      `upstream: Cluster API ${COMPARED_VERSION} core manager as cluster admin, --leader-elect=false, self-signed webhook certificate (webhooks not registered); ALL its controllers run as in a real installation and their requests are counted`,
      "",
      table(results),
      "",
      ...(o.small > 0
        ? [
            `at ${o.small} Clusters (no RSS slope):`,
            table(
              Object.fromEntries(
                Object.entries(results).map(([name, s]) => [name, summary([s.runs[0] as RunResult])]),
              ),
            ),
            "",
          ]
        : []),
      ...Object.entries(results).flatMap(([name, s]) =>
        topRequests(name, s.runs[s.runs.length - 1] as RunResult),
      ),
      `wall time of the comparison: ${((Date.now() - started) / 1_000).toFixed(0)} s`,
    ]
    // With --json the table goes to stderr, the JSON alone to stdout.
    if (o.json) {
      log(`\n${lines.join("\n")}`)
      process.stdout.write(`${JSON.stringify(results, null, 2)}\n`)
    } else process.stdout.write(`${lines.join("\n")}\n`)
  } finally {
    await controlPlane.stop()
    await rm(dir, { recursive: true, force: true })
  }
}

// Run only as a program: the table can be rendered from saved --json output by importing it.
if (import.meta.main) await main()
