/**
 * Benchmark of the operator as users run it: N Clusters on a real control plane (testenv's
 * kube-apiserver and etcd), each with its E2EInfraCluster and E2EControlPlane ready and a
 * kubeconfig Secret naming one of a few workload clusters; then `krtt run` is started with the
 * restricted krtt-manager identity and timed until every Cluster is connected (ClusterCache,
 * `capi_cluster_cache_connection_up` 1), Provisioned (Cluster controller, `status.phase`) and
 * probed (`RemoteConnectionProbe` True: the Cluster controller saw the successful connection).
 *
 * Reports: the times; the management API requests per Cluster while starting and per Cluster
 * and minute afterwards (kube-apiserver's `apiserver_request_total`, read before and after, less
 * the apiserver's own background requests measured in a quiet window, less the benchmark's own
 * polling); health probes per Cluster and minute; the operator's peak and final resident memory
 * and CPU time.
 *
 * Usage: node bench/operator.ts [--clusters 100] [--workloads 2] [--steady 30] [--json]
 * (`--steady`: seconds measured after everything is up; 0 skips that part.)
 *
 * @module
 */
import { readFileSync } from "node:fs"
import { mkdtemp, rm } from "node:fs/promises"
import { cpus, tmpdir } from "node:os"
import { join } from "node:path"
import { parseArgs } from "node:util"
import {
  createCluster,
  createNamespace,
  endpointOf,
  expectStatus,
  installManagement,
  type KubeObject,
  managerIdentity,
  type OperatorProcess,
  parseMetrics,
  paths,
  type Sample,
  select,
  sleep,
  startOperator,
  sumOf,
  waitFor,
} from "../e2e/fixtures/index.ts"
import { type Cluster, startControlPlane } from "../testenv/index.ts"

const log = (line: string) => process.stderr.write(`bench: ${line}\n`)

/** `apiserver_request_total` of a cluster, by `verb resource[/subresource]`. */
export const requestCounts = async (cluster: Cluster): Promise<Map<string, number>> => {
  const r = await expectStatus(cluster.request("GET", "/metrics"), [200], "GET /metrics")
  const counts = new Map<string, number>()
  for (const s of select(parseMetrics(r.text), "apiserver_request_total")) {
    const { verb = "", resource = "", subresource = "" } = s.labels
    const key = `${verb} ${resource}${subresource === "" ? "" : `/${subresource}`}`
    counts.set(key, (counts.get(key) ?? 0) + s.value)
  }
  return counts
}

/** `after - before - background rate × seconds - own`, by key; keys that end at 0 are dropped. */
export const delta = (
  before: Map<string, number>,
  after: Map<string, number>,
  seconds: number,
  background: Map<string, number>,
  own: Map<string, number> = new Map(),
): Map<string, number> => {
  const out = new Map<string, number>()
  for (const [key, value] of after) {
    const d =
      value - (before.get(key) ?? 0) - Math.round((background.get(key) ?? 0) * seconds) - (own.get(key) ?? 0)
    if (d > 0) out.set(key, d)
  }
  return new Map([...out].sort((a, b) => b[1] - a[1]))
}
export const total = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0)
/** Splits off the leader election's Lease requests: they do not grow with the Clusters. */
export const splitLeases = (m: Map<string, number>) => {
  const leases = new Map([...m].filter(([k]) => k.endsWith(" leases")))
  const rest = new Map([...m].filter(([k]) => !k.endsWith(" leases")))
  return { leases, rest }
}

/** Peak and current resident memory (kB) and CPU seconds of a process, from /proc. */
export const processStats = (pid: number) => {
  const status = readFileSync(`/proc/${pid}/status`, "utf8")
  const kb = (field: string) =>
    Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? Number.NaN)
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  const ticks = Number(fields[11]) + Number(fields[12]) // utime + stime (fields 14 and 15)
  return { hwmKb: kb("VmHWM"), rssKb: kb("VmRSS"), cpuSeconds: ticks / 100 }
}

export const pool = async <A>(items: ReadonlyArray<A>, concurrency: number, f: (a: A) => Promise<void>) => {
  let next = 0
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) await f(items[next++] as A)
    }),
  )
}

const main = async () => {
  const { values } = parseArgs({
    options: {
      clusters: { type: "string", default: "100" },
      workloads: { type: "string", default: "2" },
      steady: { type: "string", default: "30" },
      json: { type: "boolean", default: false },
    },
  })
  const N = Number(values.clusters)
  const WORKLOADS = Number(values.workloads)
  const STEADY_S = Number(values.steady)
  if (!Number.isInteger(N) || N < 1) throw new Error(`--clusters: a positive integer, got ${values.clusters}`)
  if (!Number.isInteger(WORKLOADS) || WORKLOADS < 1) throw new Error(`--workloads: a positive integer`)
  if (!Number.isFinite(STEADY_S) || STEADY_S < 0) throw new Error(`--steady: seconds ≥ 0`)
  const started = Date.now()
  const dir = await mkdtemp(join(tmpdir(), "krtt-bench-operator-"))
  const controlPlane = await startControlPlane({ clusters: 1 + WORKLOADS })
  let op: OperatorProcess | undefined
  try {
    const [mgmt, ...workloads] = controlPlane.clusters as [Cluster, ...Array<Cluster>]
    log(
      `control plane up (${controlPlane.startupMs} ms): 1 management cluster, ${WORKLOADS} workload cluster(s)`,
    )
    await installManagement(mgmt)
    const identity = await managerIdentity(mgmt, dir)
    const ns = await createNamespace(mgmt, "bench")
    const names = Array.from({ length: N }, (_, i) => `c${String(i).padStart(4, "0")}`)
    const t = Date.now()
    await pool(names, 8, async (name) => {
      const w = workloads[Number(name.slice(1)) % WORKLOADS] as Cluster
      await createCluster(mgmt, {
        namespace: ns,
        name,
        kubeconfig: w.admin.kubeconfig,
        endpoint: endpointOf(w.server),
      })
    })
    log(`${N} Clusters created in ${Date.now() - t} ms (each: InfraCluster, ControlPlane, kubeconfig Secret)`)

    // The apiserver's own requests (its leases, endpoints), measured while nothing else runs.
    const quietS = 10
    const q0 = await requestCounts(mgmt)
    await sleep(quietS * 1_000)
    const q1 = await requestCounts(mgmt)
    const background = new Map([...q1].map(([k, v]) => [k, (v - (q0.get(k) ?? 0)) / quietS]))

    let ownLists = 0
    /** Clusters Provisioned, and of those with RemoteConnectionProbe True (a probe succeeded). */
    const provisionedCount = async () => {
      ownLists++
      const r = await expectStatus(mgmt.request("GET", paths.cluster(ns)), [200], "list clusters")
      const items = (r.body as { items: ReadonlyArray<KubeObject> }).items
      const provisioned = items.filter((c) => c.status?.phase === "Provisioned")
      const probed = provisioned.filter((c) =>
        (c.status?.conditions as ReadonlyArray<{ type: string; status: string }> | undefined)?.some(
          (x) => x.type === "RemoteConnectionProbe" && x.status === "True",
        ),
      )
      return { provisioned: provisioned.length, probed: probed.length }
    }
    const connectedCount = (samples: ReadonlyArray<Sample>) =>
      select(samples, "capi_cluster_cache_connection_up", { cluster_namespace: ns }).filter(
        (s) => s.value === 1,
      ).length

    const before = await requestCounts(mgmt)
    const t0 = Date.now()
    op = await startOperator({ kubeconfigPath: identity.kubeconfigPath, dir })
    const running = op
    const context = () => running.tail(20)
    const readyMs = await waitFor(
      "/readyz",
      async () => ((await running.probe("/readyz")).status === 200 ? Date.now() - t0 : undefined),
      { timeoutMs: 120_000, intervalMs: 100, context },
    )
    let connectedMs: number | undefined
    let provisionedMs: number | undefined
    let probedMs: number | undefined
    const timeoutMs = 120_000 + N * 2_000
    await waitFor(
      `all ${N} Clusters connected, Provisioned and probed`,
      async () => {
        if (connectedMs === undefined && connectedCount(await running.metrics()) === N)
          connectedMs = Date.now() - t0
        const counts = await provisionedCount()
        if (provisionedMs === undefined && counts.provisioned === N) provisionedMs = Date.now() - t0
        if (probedMs === undefined && counts.probed === N) probedMs = Date.now() - t0
        return connectedMs !== undefined && provisionedMs !== undefined && probedMs !== undefined
          ? true
          : undefined
      },
      { timeoutMs, intervalMs: 500, context },
    )
    const startS = (Date.now() - t0) / 1_000
    const after = await requestCounts(mgmt)
    const startup = splitLeases(
      delta(before, after, startS, background, new Map([["LIST clusters", ownLists]])),
    ).rest
    const atStart = processStats(running.pid) // all connected, Provisioned and probed

    let steady = new Map<string, number>()
    let leasesPerMinute = Number.NaN
    let probesPerClusterMinute = Number.NaN
    if (STEADY_S > 0) {
      const p0 = sumOf(await running.metrics(), "capi_cluster_cache_healthchecks_total", {
        cluster_namespace: ns,
      })
      await sleep(STEADY_S * 1_000)
      const p1 = sumOf(await running.metrics(), "capi_cluster_cache_healthchecks_total", {
        cluster_namespace: ns,
      })
      const split = splitLeases(delta(after, await requestCounts(mgmt), STEADY_S, background))
      steady = split.rest
      leasesPerMinute = total(split.leases) * (60 / STEADY_S)
      probesPerClusterMinute = ((p1 - p0) / N) * (60 / STEADY_S)
    }
    const end = processStats(running.pid)
    const stop = await running.terminate(30_000)

    const perMinute = (n: number) => (n / N) * (60 / STEADY_S)
    const result = {
      machine: { nproc: cpus().length, cpu: cpus()[0]?.model ?? "unknown", node: process.version },
      clusters: N,
      workloadClusters: WORKLOADS,
      readyMs,
      connectedMs,
      provisionedMs,
      remoteConnectionProbeTrueMs: probedMs,
      startup: {
        seconds: startS,
        requestsPerCluster: total(startup) / N,
        byRequest: Object.fromEntries([...startup].map(([k, v]) => [k, v])),
      },
      steady:
        STEADY_S > 0
          ? {
              seconds: STEADY_S,
              requestsPerClusterMinute: perMinute(total(steady)),
              byRequestPerClusterMinute: Object.fromEntries(
                [...steady].map(([k, v]) => [k, Number(perMinute(v).toFixed(2))]),
              ),
              probesPerClusterMinute,
              leaderElectionRequestsPerMinute: leasesPerMinute,
            }
          : undefined,
      memory: {
        peakRssMiB: end.hwmKb / 1024,
        rssWhenAllProbedMiB: atStart.rssKb / 1024,
        rssAtEndMiB: end.rssKb / 1024,
      },
      cpuSeconds: { toAllProbed: atStart.cpuSeconds, atEnd: end.cpuSeconds },
      sigterm: { code: stop.code, ms: stop.ms },
      wallSeconds: (Date.now() - started) / 1_000,
    }
    if (values.json) {
      process.stdout.write(`${JSON.stringify(result, null, 2)}\n`)
      return
    }
    const mib = (n: number) => `${n.toFixed(0)} MiB`
    const lines = [
      `machine: ${result.machine.nproc} × ${result.machine.cpu}, Node ${result.machine.node}`,
      `${N} Clusters over ${WORKLOADS} workload cluster(s)`,
      `krtt run: /readyz after ${readyMs} ms; all connected after ${connectedMs} ms; all Provisioned after ${provisionedMs} ms; RemoteConnectionProbe True on all after ${probedMs} ms`,
      `management API requests while starting (Leases aside): ${total(startup)} (${result.startup.requestsPerCluster.toFixed(1)} per Cluster)`,
      ...[...startup].slice(0, 12).map(([k, v]) => `  ${k}: ${v}`),
      ...(STEADY_S > 0
        ? [
            `afterwards, over ${STEADY_S} s: ${result.steady?.requestsPerClusterMinute.toFixed(2)} management requests per Cluster and minute`,
            ...[...steady].slice(0, 12).map(([k, v]) => `  ${k}: ${perMinute(v).toFixed(2)}/Cluster/min`),
            `  health probes: ${probesPerClusterMinute.toFixed(2)}/Cluster/min (workload clusters)`,
            `  leader election: ${leasesPerMinute.toFixed(0)} Lease requests/min (whatever the number of Clusters)`,
          ]
        : []),
      `operator memory: peak RSS ${mib(result.memory.peakRssMiB)}, RSS ${mib(result.memory.rssWhenAllProbedMiB)} when all were Provisioned and probed, ${mib(result.memory.rssAtEndMiB)} at the end`,
      `operator CPU: ${atStart.cpuSeconds.toFixed(1)} s until all were Provisioned and probed, ${end.cpuSeconds.toFixed(1)} s in all`,
      `SIGTERM: exit code ${stop.code} after ${stop.ms} ms`,
      `wall time of the benchmark: ${result.wallSeconds.toFixed(0)} s`,
    ]
    process.stdout.write(`${lines.join("\n")}\n`)
  } finally {
    await op?.kill()
    await controlPlane.stop()
    await rm(dir, { recursive: true, force: true })
  }
}

// Run only as a program: bench/compare.ts imports the helpers above.
if (import.meta.main) await main()
