/**
 * Benchmark of the IPAM controller as users run it (`node bin/krtt.js ipam`): N openmcp Clusters
 * on a real control plane (testenv's kube-apiserver and etcd), two injection rules (a /24 with a
 * /26 sliced from it for `mcp` Clusters, a /26 from another parent for `workload` ones, both for
 * every fifth Cluster); the controller is started once they exist and timed until every Cluster
 * carries its applied-rules annotation and its ClusterConfigs. Each run has a control plane of
 * its own.
 *
 * Reports per run and as min/median/max over the runs: wall time from the process start to all
 * allocated (and to ready: state restored, workers up), API requests of the controller (the
 * apiserver's `apiserver_request_total`, before and after, less the benchmark's own polling),
 * the process's peak resident memory and CPU time; and checks that the CIDRs are pairwise
 * disjoint.
 *
 * Usage: node bench/ipam.ts [--clusters 1000] [--runs 3] [--concurrency 10] [--json]
 *
 * @module
 */
import { readFileSync } from "node:fs"
import { mkdtemp, rm } from "node:fs/promises"
import { cpus, tmpdir } from "node:os"
import { join } from "node:path"
import { parseArgs } from "node:util"
import { apply, expectStatus, parseMetrics, select } from "../e2e/fixtures/index.ts"
import {
  appliedRules,
  cidrsOf,
  clusterObject,
  createCluster,
  type IpamProcess,
  installIpamCrds,
  listClusterConfigs,
  listClusters,
  overlapping,
  startIpam,
} from "../e2e/ipam/support.ts"
import { type Cluster, startControlPlane } from "../testenv/index.ts"

const { values } = parseArgs({
  options: {
    clusters: { type: "string", default: "1000" },
    runs: { type: "string", default: "3" },
    concurrency: { type: "string", default: "10" },
    json: { type: "boolean", default: false },
  },
})
const N = Number(values.clusters)
const RUNS = Number(values.runs)
const CONCURRENCY = Number(values.concurrency)
for (const [flag, v] of [
  ["clusters", N],
  ["runs", RUNS],
  ["concurrency", CONCURRENCY],
] as const)
  if (!Number.isInteger(v) || v < 1) throw new Error(`--${flag}: a positive integer, got ${v}`)

const log = (line: string) => process.stderr.write(`bench: ${line}\n`)
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** `apiserver_request_total` by `verb resource[/subresource]`. */
const requestCounts = async (cluster: Cluster): Promise<Map<string, number>> => {
  const r = await expectStatus(cluster.request("GET", "/metrics"), [200], "GET /metrics")
  const counts = new Map<string, number>()
  for (const s of select(parseMetrics(r.text), "apiserver_request_total")) {
    const { verb = "", resource = "", subresource = "" } = s.labels
    const key = `${verb} ${resource}${subresource === "" ? "" : `/${subresource}`}`
    counts.set(key, (counts.get(key) ?? 0) + s.value)
  }
  return counts
}

/** Peak and current resident memory (kB) and CPU seconds of a process, from /proc. */
const processStats = (pid: number) => {
  const status = readFileSync(`/proc/${pid}/status`, "utf8")
  const kb = (field: string) =>
    Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? Number.NaN)
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  return { hwmKb: kb("VmHWM"), cpuSeconds: (Number(fields[11]) + Number(fields[12])) / 100 }
}

const pool = async <A>(items: ReadonlyArray<A>, concurrency: number, f: (a: A) => Promise<void>) => {
  let next = 0
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) await f(items[next++] as A)
    }),
  )
}

const RUN_LABEL = "bench.krtt.dev/ipam"
const purposesOf = (i: number) => (i % 5 === 0 ? ["mcp", "workload"] : i % 2 === 0 ? ["mcp"] : ["workload"])
const rulesOf = (purposes: ReadonlyArray<string>) => purposes.filter((p) => p === "mcp" || p === "workload")

interface RunResult {
  readonly readyMs: number
  readonly allocatedMs: number
  readonly requests: number
  readonly requestsByKind: Record<string, number>
  readonly peakMiB: number
  readonly cpuSeconds: number
  readonly cidrs: number
}

const oneRun = async (run: number): Promise<RunResult> => {
  const dir = await mkdtemp(join(tmpdir(), "krtt-bench-ipam-"))
  const controlPlane = await startControlPlane({ clusters: 1, users: 0, controllerManager: false })
  let ipam: IpamProcess | undefined
  try {
    const [c] = controlPlane.clusters as [Cluster]
    await installIpamCrds(c)
    const ns = "bench"
    await expectStatus(
      c.request("POST", "/api/v1/namespaces", { body: { metadata: { name: ns } } }),
      [201],
      "ns",
    )
    await apply(c, {
      apiVersion: "gardener.clusters.openmcp.cloud/v1alpha1",
      kind: "IPAMConfig",
      metadata: { name: "bench" },
      spec: {
        parentCIDRs: { nodes: ["10.0.0.0/12"], services: ["10.32.0.0/14"] },
        injectionRules: [
          {
            id: "mcp",
            matchLabels: { [RUN_LABEL]: "true" },
            matchPurposes: [{ operator: "ContainsAll", values: ["mcp"] }],
            injections: [
              { id: "n", path: "/spec/networking/nodes", parents: ["nodes"], subnetSize: 24 },
              { path: "/spec/networking/pods", parents: ["n"], subnetSize: 26 },
            ],
          },
          {
            id: "workload",
            matchLabels: { [RUN_LABEL]: "true" },
            matchPurposes: [{ operator: "ContainsAny", values: ["workload"] }],
            injections: [{ path: "/spec/networking/services", parents: ["services"], subnetSize: 26 }],
          },
        ],
      },
    })
    const names = Array.from({ length: N }, (_, i) => `c${String(i).padStart(4, "0")}`)
    const t = Date.now()
    await pool(names, 8, (name) =>
      createCluster(
        c,
        clusterObject(ns, name, {
          labels: { [RUN_LABEL]: "true" },
          purposes: purposesOf(Number(name.slice(1))),
        }),
      ).then(() => undefined),
    )
    log(`run ${run}: ${N} Clusters created in ${((Date.now() - t) / 1000).toFixed(1)} s`)
    const expected = names.reduce((n, name) => n + rulesOf(purposesOf(Number(name.slice(1)))).length, 0)
    const before = await requestCounts(c)
    const started = Date.now()
    ipam = await startIpam({
      kubeconfigPath: c.admin.kubeconfigPath,
      dir,
      config: "bench",
      args: [`--concurrency=${CONCURRENCY}`],
    })
    const readyMs = Date.now() - started
    let polls = 0
    for (;;) {
      polls++
      const clusters = await listClusters(c, ns)
      const done = clusters.filter((x) => Object.keys(appliedRules(x)).length > 0).length
      if (done === N) break
      if (Date.now() - started > 30 * 60_000) throw new Error(`only ${done} of ${N} allocated after 30 min`)
      await sleep(250)
    }
    const allocatedMs = Date.now() - started
    const stats = processStats(ipam.pid)
    const after = await requestCounts(c)
    // ClusterConfigs are created after the annotation: wait for all, outside the timing.
    let ccs = await listClusterConfigs(c, ns, "bench")
    for (let i = 0; ccs.length < expected && i < 240; i++) {
      await sleep(250)
      ccs = await listClusterConfigs(c, ns, "bench")
    }
    if (ccs.length !== expected) throw new Error(`${ccs.length} ClusterConfigs, expected ${expected}`)
    const held = ccs.flatMap((cc) =>
      cidrsOf(cc).map((cidr) => ({
        owner: cc.metadata.labels?.["ipam.gardener.clusters.openmcp.cloud/cluster"] ?? "",
        cidr,
      })),
    )
    const clash = overlapping(held)
    if (clash.length > 0) throw new Error(`overlapping CIDRs: ${clash.slice(0, 5).join("; ")}`)
    const byKind: Record<string, number> = {}
    for (const [key, value] of after) {
      // The benchmark's own requests: its polls are LISTs of clusters; /metrics is no resource.
      const d = value - (before.get(key) ?? 0) - (key === "LIST clusters" ? polls : 0)
      if (d > 0 && key.trim() !== "GET") byKind[key] = d
    }
    const requests = Object.values(byKind).reduce((a, b) => a + b, 0)
    return {
      readyMs,
      allocatedMs,
      requests,
      requestsByKind: byKind,
      peakMiB: stats.hwmKb / 1024,
      cpuSeconds: stats.cpuSeconds,
      cidrs: held.length,
    }
  } finally {
    await ipam?.kill()
    await controlPlane.stop()
    await rm(dir, { recursive: true, force: true })
  }
}

const stats = (xs: ReadonlyArray<number>) => {
  const s = [...xs].sort((a, b) => a - b)
  return {
    min: s[0] ?? Number.NaN,
    median: s[Math.floor((s.length - 1) / 2)] ?? Number.NaN,
    max: s[s.length - 1] ?? Number.NaN,
  }
}

const main = async () => {
  const results: Array<RunResult> = []
  for (let run = 1; run <= RUNS; run++) {
    const r = await oneRun(run)
    log(
      `run ${run}: ready ${(r.readyMs / 1000).toFixed(1)} s, all ${N} allocated ${(r.allocatedMs / 1000).toFixed(1)} s, ` +
        `${r.requests} requests, peak ${r.peakMiB.toFixed(0)} MiB, CPU ${r.cpuSeconds.toFixed(1)} s, ${r.cidrs} CIDRs disjoint`,
    )
    results.push(r)
  }
  const summary = {
    clusters: N,
    runs: RUNS,
    concurrency: CONCURRENCY,
    machine: { nproc: cpus().length, cpu: cpus()[0]?.model ?? "unknown", node: process.version },
    allocatedSeconds: stats(results.map((r) => r.allocatedMs / 1000)),
    readySeconds: stats(results.map((r) => r.readyMs / 1000)),
    requests: stats(results.map((r) => r.requests)),
    requestsPerCluster: stats(results.map((r) => r.requests / N)),
    peakMiB: stats(results.map((r) => r.peakMiB)),
    cpuSeconds: stats(results.map((r) => r.cpuSeconds)),
    requestsByKind: results[results.length - 1]?.requestsByKind,
  }
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ summary, results }, null, 2)}\n`)
    return
  }
  const fmt = (x: { min: number; median: number; max: number }, digits = 1) =>
    `min ${x.min.toFixed(digits)}, median ${x.median.toFixed(digits)}, max ${x.max.toFixed(digits)}`
  process.stdout.write(
    [
      `krtt ipam, ${N} Clusters, ${RUNS} runs, concurrency ${CONCURRENCY}`,
      `machine: ${summary.machine.nproc} × ${summary.machine.cpu}, Node ${summary.machine.node}`,
      `start to all allocated (s): ${fmt(summary.allocatedSeconds)}`,
      `start to ready (s):         ${fmt(summary.readySeconds)}`,
      `API requests:               ${fmt(summary.requests, 0)} (${fmt(summary.requestsPerCluster, 2)} per Cluster)`,
      `peak resident memory (MiB): ${fmt(summary.peakMiB, 0)}`,
      `CPU time (s):               ${fmt(summary.cpuSeconds)}`,
      `requests of the last run: ${Object.entries(summary.requestsByKind ?? {})
        .sort((a, b) => b[1] - a[1])
        .map(([k, v]) => `${k} ${v}`)
        .join(", ")}`,
      "",
    ].join("\n"),
  )
}

main().catch((e: unknown) => {
  process.stderr.write(`bench: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`)
  process.exit(1)
})
