/**
 * krtt's multi-cluster runtime beside multicluster-runtime (kubernetes-sigs) on the same work:
 * the uniform controller of multicluster-runtime's kubeconfig example (every ConfigMap of every
 * engaged cluster reconciled: logged, read from that cluster's cache, logged again), clusters
 * from kubeconfig Secrets on the hub (label `sigs.k8s.io/multicluster-runtime-kubeconfig=true`,
 * key `kubeconfig`). The peer is that example built with Go (`--peer-src`, see
 * `multicluster-compare-peer.ts`); krtt's side is `multicluster-compare-krtt.ts`, the same
 * controller on krtt's public entry points with its `kubeconfig-secrets` provider. Each runs as a
 * process of its own against the same testenv control plane.
 *
 * # Expected flow (per cluster count)
 * A control plane (a hub and `--workloads` workload kube-apiservers, no kube-controller-manager)
 * → every cluster is one Secret whose kubeconfig names a workload server (round robin) and a
 * user of its own there (cluster-admin), so that its requests are its own → per run and side:
 * the process starts; its log lines say when all clusters are engaged and when each has found
 * every ConfigMap of its server (all reconciled once); `--steady` seconds more; stopped →
 * requests counted from the API servers' audit logs by user (`multicluster-compare-audit.ts`),
 * CPU and RSS from `/proc` (`multicluster-compare-process.ts`). One idle run per side (no
 * Secrets) gives the RSS of the runtime alone, subtracted for "RSS per engaged cluster".
 *
 * Figures are min / median / max over `--runs`; the ratio is krtt's median over the peer's (below
 * 1: krtt needs less). Timing lives here, never in tests.
 *
 * Usage: node bench/multicluster-compare.ts --peer-src DIR [--clusters 100,1000] [--runs 3] …
 * (`--help` lists every flag).
 *
 * @module
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { cpus, loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { performance } from "node:perf_hooks"
import { type Cluster, startControlPlane } from "../testenv/index.ts"
import {
  type CompareArgs,
  CompareUsageError,
  parseCompareArgs,
  type Side,
  USAGE,
} from "./multicluster-compare-args.ts"
import {
  auditFlags,
  countIn,
  logOffset,
  readEvents,
  total,
  usersIn,
  writeAuditPolicy,
} from "./multicluster-compare-audit.ts"
import { bundleKrtt, commandOf, ensurePeer, parseLogLine } from "./multicluster-compare-peer.ts"
import { startObserved } from "./multicluster-compare-process.ts"
import { type RunResult, renderTable, summarize } from "./multicluster-compare-report.ts"

const log = (line: string) => process.stderr.write(`bench: ${line}\n`)
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))
const FLEET = "bench-fleet"
const EMPTY = "bench-empty"
const LABEL = { "sigs.k8s.io/multicluster-runtime-kubeconfig": "true" }
const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64")
const ok = async (what: string, p: Promise<{ status: number; body: unknown }>) => {
  const r = await p
  if (r.status >= 300 && r.status !== 409) throw new Error(`${what}: ${r.status} ${JSON.stringify(r.body)}`)
  return r
}

/** Grants `users` cluster-admin on `cluster`. */
const grant = (cluster: Cluster, users: ReadonlyArray<string>) =>
  ok(
    `${cluster.name}: ClusterRoleBinding`,
    cluster.request("POST", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", {
      body: {
        metadata: { name: "bench-controllers" },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "cluster-admin" },
        subjects: users.map((name) => ({ kind: "User", apiGroup: "rbac.authorization.k8s.io", name })),
      },
    }),
  )

/** The fleet of one cluster count, ready for runs. */
interface Fleet {
  readonly n: number
  readonly hubKubeconfig: string
  readonly hubUser: string
  readonly logs: { readonly hub: string; readonly workloads: ReadonlyArray<string> }
  /** ConfigMaps per cluster name (all of its server's). */
  readonly expected: ReadonlyMap<string, number>
}

const prepare = async (
  hub: Cluster,
  workloads: ReadonlyArray<Cluster>,
  n: number,
  dir: string,
): Promise<Fleet> => {
  const perServer = Math.ceil(n / workloads.length)
  const hubUser = hub.info.pool[0] as { user: string; token: string }
  await grant(hub, [hubUser.user])
  const hubKubeconfig = join(dir, "hub-controller.kubeconfig")
  await writeFile(hubKubeconfig, hub.kubeconfigFor(hubUser.user, hubUser.token), { mode: 0o600 })
  for (const ns of [FLEET, EMPTY])
    await ok(
      `namespace ${ns}`,
      hub.request("POST", "/api/v1/namespaces", { body: { metadata: { name: ns } } }),
    )
  const counts: Array<number> = []
  for (const w of workloads) {
    await grant(
      w,
      w.info.pool.slice(0, perServer).map((u) => u.user),
    )
    await ok(
      `${w.name}: namespace`,
      w.request("POST", "/api/v1/namespaces", { body: { metadata: { name: "bench-data" } } }),
    )
    await ok(
      `${w.name}: ConfigMap`,
      w.request("POST", "/api/v1/namespaces/bench-data/configmaps", {
        body: { metadata: { name: "one" }, data: { x: "1" } },
      }),
    )
    const list = await ok(`${w.name}: ConfigMaps`, w.request("GET", "/api/v1/configmaps"))
    counts.push((list.body as { items: ReadonlyArray<unknown> }).items.length)
  }
  const expected = new Map<string, number>()
  const names = Array.from({ length: n }, (_, i) => i)
  for (let start = 0; start < n; start += 32) {
    await Promise.all(
      names.slice(start, start + 32).map((i) => {
        const w = workloads[i % workloads.length] as Cluster
        const user = w.info.pool[Math.floor(i / workloads.length)] as { user: string; token: string }
        const name = `c${String(i).padStart(4, "0")}`
        expected.set(name, counts[i % workloads.length] as number)
        return ok(
          `secret ${name}`,
          hub.request("POST", `/api/v1/namespaces/${FLEET}/secrets`, {
            body: {
              metadata: { name, labels: LABEL },
              data: { kubeconfig: b64(w.kubeconfigFor(user.user, user.token)) },
            },
          }),
        )
      }),
    )
  }
  log(
    `${n} kubeconfig Secrets over ${workloads.length} workload servers; ConfigMaps per server: ${counts.join(", ")}`,
  )
  return {
    n,
    hubKubeconfig,
    hubUser: hubUser.user,
    logs: {
      hub: join(hub.info.dir, "kube-apiserver.log"),
      workloads: workloads.map((w) => join(w.info.dir, "kube-apiserver.log")),
    },
    expected,
  }
}

/** What each side runs: the peer's binary, krtt's bundle (undefined: the sources). */
interface Binaries {
  readonly peer: string | undefined
  readonly krttBundle: string | undefined
}

/**
 * Follows one process's log: which clusters are engaged, which ConfigMaps each found, and when
 * (ms after `t0`) all were engaged and all reconciled once.
 */
const makeProgress = (side: Side, fleet: Fleet, t0: number) => {
  const engaged = new Set<string>()
  const found = new Map<string, Set<string>>()
  const state = { complete: 0, engagedMs: Number.NaN, reconciledMs: Number.NaN }
  const onLine = (line: string) => {
    const fact = parseLogLine(side, line)
    if (fact === undefined) return
    if (fact._tag === "Engaged") {
      engaged.add(fact.cluster)
      if (engaged.size === fleet.n && Number.isNaN(state.engagedMs)) state.engagedMs = performance.now() - t0
    } else {
      const set = found.get(fact.cluster) ?? new Set<string>()
      found.set(fact.cluster, set)
      const before = set.size
      set.add(fact.object)
      if (before < set.size && set.size === fleet.expected.get(fact.cluster)) state.complete++
    }
    if (state.complete === fleet.n && engaged.size === fleet.n && Number.isNaN(state.reconciledMs))
      state.reconciledMs = performance.now() - t0
  }
  return { onLine, state, engaged: () => engaged.size }
}

/** The requests of a run, from the audit logs written since `offsets`, split when all reconciled. */
const requestsOf = (
  fleet: Fleet,
  offsets: { readonly hub: number; readonly workloads: ReadonlyArray<number> },
  window: { readonly start: number; readonly reconciled: number; readonly end: number },
) => {
  const hubEvents = readEvents(fleet.logs.hub, offsets.hub)
  const workEvents = fleet.logs.workloads.flatMap((path, i) =>
    readEvents(path, offsets.workloads[i] as number).map((e) => ({ ...e, user: `${i}/${e.user}` })),
  )
  const isHub = (u: string) => u === fleet.hubUser
  const isWork = (u: string) => /\/user-\d+$/.test(u)
  const { start, reconciled, end } = window
  return {
    hubStarting: countIn(hubEvents, isHub, start, reconciled),
    workloadStarting: countIn(workEvents, isWork, start, reconciled),
    hubAfter: countIn(hubEvents, isHub, reconciled, end),
    workloadAfter: countIn(workEvents, isWork, reconciled, end),
    clustersSeen: usersIn(workEvents, isWork, start, reconciled).size,
  }
}

/** One run of one side over the fleet. */
const runOnce = async (
  side: Side,
  fleet: Fleet,
  args: CompareArgs,
  bins: Binaries,
  dir: string,
  run: number,
): Promise<RunResult> => {
  const offsets = { hub: logOffset(fleet.logs.hub), workloads: fleet.logs.workloads.map(logOffset) }
  const t0 = performance.now()
  const start = Date.now()
  const progress = makeProgress(side, fleet, t0)
  const cmd = commandOf(side, bins.peer, fleet.hubKubeconfig, FLEET, {
    bundle: bins.krttBundle,
    cpuProf: args.cpuProf,
    probeInterval: args.krttProbeInterval,
  })
  const p = await startObserved({
    name: side,
    ...cmd,
    cwd: dir,
    logPath: join(dir, `${side}-${fleet.n}-${run}.log`),
    onLine: progress.onLine,
  })
  try {
    const { state } = progress
    while (Number.isNaN(state.reconciledMs)) {
      if (p.exit() !== undefined) throw new Error(`${side} exited ${JSON.stringify(p.exit())}; ${p.tail()}`)
      if (performance.now() - t0 > args.timeout * 1000)
        throw new Error(
          `${side}: ${progress.engaged()} of ${fleet.n} engaged, ${state.complete} reconciled within ${args.timeout} s; ${p.tail()}`,
        )
      await sleep(50)
    }
    const atReconciled = p.sample()
    const reconciled = Date.now()
    await sleep(args.steady * 1000)
    const atEnd = p.sample()
    const end = Date.now()
    await p.stop()
    await sleep(500)
    const result: RunResult = {
      side,
      engagedS: state.engagedMs / 1000,
      reconciledS: state.reconciledMs / 1000,
      cpuToReconciledS: atReconciled.cpuS,
      cpuPerMinuteAfterS:
        args.steady === 0 ? Number.NaN : ((atEnd.cpuS - atReconciled.cpuS) / args.steady) * 60,
      rssAtReconciledKiB: atReconciled.rssKiB,
      rssEndKiB: atEnd.rssKiB,
      peakRssKiB: atEnd.peakRssKiB,
      ...requestsOf(fleet, offsets, { start, reconciled, end }),
    }
    log(
      `${side} run ${run}, ${fleet.n} clusters: engaged ${result.engagedS.toFixed(2)} s, reconciled ${result.reconciledS.toFixed(2)} s, CPU ${result.cpuToReconciledS.toFixed(2)} s, RSS ${(result.rssEndKiB / 1024).toFixed(0)} MiB, requests while starting hub ${total(result.hubStarting)} workload ${total(result.workloadStarting)} (${result.clustersSeen} cluster users), after hub ${total(result.hubAfter)} workload ${total(result.workloadAfter)}`,
    )
    return result
  } finally {
    await p.stop()
  }
}

/** RSS (KiB) of a side's process with no clusters, 15 s after its start. */
const idleRss = async (
  side: Side,
  fleet: Fleet,
  bins: Binaries,
  dir: string,
  probeInterval: string | undefined,
): Promise<number> => {
  const { command, args, env } = commandOf(side, bins.peer, fleet.hubKubeconfig, EMPTY, {
    bundle: bins.krttBundle,
    cpuProf: undefined,
    probeInterval,
  })
  const p = await startObserved({
    name: side,
    command,
    args,
    env,
    cwd: dir,
    logPath: join(dir, `${side}-idle.log`),
    onLine: () => {},
  })
  try {
    await sleep(15_000)
    if (p.exit() !== undefined) throw new Error(`${side} exited while idle; ${p.tail()}`)
    return p.sample().rssKiB
  } finally {
    await p.stop()
  }
}

const main = async () => {
  let args: CompareArgs
  try {
    args = parseCompareArgs(process.argv.slice(2))
  } catch (e) {
    if (!(e instanceof CompareUsageError)) throw e
    process.stderr.write(`multicluster-compare: ${e.message}\n${USAGE}\n`)
    process.exitCode = 2
    return
  }
  if (args.help) {
    process.stdout.write(`${USAGE}\n`)
    return
  }
  const binDir = await mkdtemp(join(tmpdir(), "krtt-mc-compare-bin-"))
  const bins: Binaries = {
    peer: args.sides.includes("peer") ? await ensurePeer(args.peerSrc, args.peerBin, log) : undefined,
    krttBundle:
      args.sides.includes("krtt") && args.krttFrom === "bundle" ? await bundleKrtt(binDir) : undefined,
  }
  const sizes = []
  const idle: Partial<Record<Side, number>> = {}
  for (const n of args.clusters) {
    const loadBefore = loadavg()
    const dir = await mkdtemp(join(tmpdir(), "krtt-mc-compare-"))
    const policy = await writeAuditPolicy(dir)
    const plane = await startControlPlane({
      clusters: 1 + args.workloads,
      users: Math.ceil(n / args.workloads) + 1,
      controllerManager: false,
      apiserverArgs: auditFlags(policy),
    })
    try {
      const [hub, ...workloads] = plane.clusters as [Cluster, ...Array<Cluster>]
      log(`control plane up in ${plane.startupMs} ms: a hub and ${workloads.length} workload servers`)
      const fleet = await prepare(hub, workloads, n, dir)
      for (const side of args.sides)
        if (idle[side] === undefined)
          idle[side] = await idleRss(side, fleet, bins, dir, args.krttProbeInterval)
      const runs: Array<RunResult> = []
      for (let run = 1; run <= args.runs; run++) {
        const order = run % 2 === 1 ? args.sides : [...args.sides].reverse()
        for (const side of order) runs.push(await runOnce(side, fleet, args, bins, dir, run))
      }
      sizes.push(
        summarize({
          n,
          workloads: args.workloads,
          steady: args.steady,
          runs,
          idle,
          load: { before: loadBefore, after: loadavg() },
        }),
      )
      await rm(dir, { recursive: true, force: true })
    } finally {
      await plane.stop()
    }
  }
  await rm(binDir, { recursive: true, force: true })
  const machine = { nproc: cpus().length, cpu: cpus()[0]?.model ?? "unknown", node: process.version }
  if (args.json) process.stdout.write(`${JSON.stringify({ machine, sizes }, null, 2)}\n`)
  else process.stdout.write(`${renderTable(machine, sizes)}\n`)
}

await main()
