/**
 * Start-up of krtt, and of upstream Cluster API's core manager beside it: how long a command takes
 * from exec until it has done its job, with how much CPU and memory. A program run by hand, never
 * a timed test.
 *
 * Measured, each `--runs` times after one warm-up run that is not counted (so the file cache is
 * warm), as min / median / max:
 *
 * - `node bin/krtt.js --help` and `node bin/krtt.js tables --json`: wall time from spawn to exit,
 *   and the CPU time (user + system) and peak resident set (`ru_maxrss`) that `wait4` reports for
 *   the process, through GNU time (`/usr/bin/time`).
 * - `krtt run` and upstream's manager binary: wall time from spawn to the first 200 on `/readyz`
 *   (polled every 10 ms), the CPU time (`utime + stime` of `/proc/<pid>/stat`) and peak resident
 *   set (`VmHWM`) at that moment; from spawn to the Cluster controller's `Starting workers` log
 *   line (its caches synced; both log it); then the resident set (`VmRSS`), peak and CPU time
 *   `--settle` seconds later, with no Cluster in the management cluster. The two run one after
 *   the other, alternating, against one real control plane the benchmark starts itself
 *   (testenv), prepared as bench/compare.ts prepares it: upstream's CRDs (those of
 *   `--upstream-version`), krtt's RBAC, the manager's restricted identity, a
 *   self-signed webhook serving certificate. Each gets the command line that `startOperator`
 *   (e2e/fixtures/operator.ts) and `startUpstream` (compare-upstream.ts) give it in
 *   bench/compare.ts, with `SHARED_FLAGS`; they are started here rather than through those
 *   helpers, which poll every 200 ms: too coarse for sub-second start-up. krtt: the
 *   `krtt-manager` ServiceAccount's kubeconfig, leader election on (its Lease is deleted before
 *   each run, so that no run waits for the previous one's); upstream: the admin kubeconfig,
 *   `--leader-elect=false`.
 *
 * The two `/readyz` do not say the same: upstream's turns 200 once its webhook server has started
 * (its only readiness check); krtt's once it holds the Lease and its Cluster reflector has synced.
 *
 * Every command runs on the Node that runs the benchmark. Upstream's manager is built on first
 * use (`ensureUpstreamManagerOf`, minutes).
 *
 * Usage: node bench/startup.ts [--runs 5] [--settle 5] [--json] [--upstream-version v1.13.6]
 *        [--krtt DIR] [--only cli,krtt,upstream]
 * (`--krtt`: the checkout whose `bin/krtt.js` runs, this one by default; `--only`: which parts,
 * all by default: `cli` the two commands, `krtt` and `upstream` the two managers.)
 *
 * @module
 */
import { execFile, spawn } from "node:child_process"
import { existsSync, readFileSync, statSync } from "node:fs"
import { mkdtemp, rm } from "node:fs/promises"
import { get as httpGet } from "node:http"
import { cpus, loadavg, release, tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { performance } from "node:perf_hooks"
import { parseArgs, promisify } from "node:util"
import {
  expectStatus,
  installManagement,
  MANAGER_NAMESPACE,
  managerIdentity,
  repoRoot,
  sleep,
  writeServingCertificate,
} from "../e2e/fixtures/index.ts"
import { UpstreamManagerDefaults } from "../shell/manager/options.ts"
import { ETCD_VERSION, KUBERNETES_VERSION } from "../testenv/assets.ts"
import { CLUSTER_API_VERSION } from "../testenv/clusterapi.ts"
import { type Cluster, startControlPlane } from "../testenv/index.ts"
import { freePorts, killGroup, type Managed, onEmergency, startProcess, tail } from "../testenv/processes.ts"
import { SHARED_FLAGS } from "./compare.ts"
import {
  ensureUpstreamManagerOf,
  installUpstreamCrdsOf,
  installUpstreamExtraCrds,
} from "./compare-upstream.ts"
import { processStats } from "./operator.ts"

const run = promisify(execFile)
const log = (line: string) => process.stderr.write(`startup: ${line}\n`)

const GNU_TIME = "/usr/bin/time"
/** How often `/readyz` is asked while a manager starts. */
const READY_POLL_MS = 10
const READY_TIMEOUT_MS = 120_000
const PARTS = ["cli", "krtt", "upstream"] as const
type Part = (typeof PARTS)[number]

/** The goals, judged on the median. */
export const GOALS = {
  helpWallS: 0.25,
  helpPeakRssMiB: 80,
  tablesWallS: 0.4,
  runReadyS: 1.0,
  runIdleRssMiB: 120,
} as const

const parse = () => {
  const { values } = parseArgs({
    options: {
      runs: { type: "string", default: "5" },
      settle: { type: "string", default: "5" },
      json: { type: "boolean", default: false },
      "upstream-version": { type: "string", default: CLUSTER_API_VERSION },
      krtt: { type: "string", default: repoRoot },
      only: { type: "string", default: PARTS.join(",") },
    },
    strict: true,
  })
  const runs = Number(values.runs)
  if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs: an integer ≥ 1, got ${values.runs}`)
  const settle = Number(values.settle)
  if (!Number.isFinite(settle) || settle < 0) throw new Error(`--settle: seconds ≥ 0, got ${values.settle}`)
  const parts = values.only.split(",").filter((p) => p !== "")
  for (const p of parts)
    if (!(PARTS as ReadonlyArray<string>).includes(p))
      throw new Error(`--only: a comma-separated list of ${PARTS.join(", ")}, got ${p}`)
  const krttDir = resolve(values.krtt)
  if (!existsSync(join(krttDir, "bin", "krtt.js"))) throw new Error(`--krtt: no bin/krtt.js in ${krttDir}`)
  return {
    runs,
    settle,
    json: values.json,
    upstreamVersion: values["upstream-version"],
    krttDir,
    parts: new Set(parts as ReadonlyArray<Part>),
  }
}
type Options = ReturnType<typeof parse>

/** min / median / max of some runs, and the runs. */
export interface Spread {
  readonly min: number
  readonly median: number
  readonly max: number
  readonly values: ReadonlyArray<number>
}

export const spread = (values: ReadonlyArray<number>): Spread => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  const median =
    sorted.length % 2 === 1
      ? (sorted[mid] as number)
      : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2
  return { min: sorted[0] as number, median, max: sorted[sorted.length - 1] as number, values }
}

const load1 = () => Number((loadavg()[0] ?? Number.NaN).toFixed(2))

/** One run of a short command. */
interface CommandRun {
  readonly wallS: number
  readonly cpuS: number
  readonly peakRssMiB: number
  readonly stdoutBytes: number
}

/**
 * Runs `node <krtt>/bin/krtt.js <args>` under GNU time: wall time from spawn to exit (GNU time's
 * own fork and exec, about a millisecond, included), CPU and peak RSS of the node process as
 * `wait4` reports them. Fails unless it exits 0 and prints something.
 */
const timeCommand = async (
  krttDir: string,
  args: ReadonlyArray<string>,
  scratch: string,
): Promise<CommandRun> => {
  const out = join(scratch, `time-${process.pid}-${performance.now().toFixed(0)}.txt`)
  const argv = ["-f", "%U %S %M", "-o", out, process.execPath, join(krttDir, "bin", "krtt.js"), ...args]
  const t0 = performance.now()
  const child = spawn(GNU_TIME, argv, { cwd: krttDir, stdio: ["ignore", "pipe", "pipe"] })
  let stdoutBytes = 0
  let stderr = ""
  child.stdout.on("data", (chunk: Buffer) => {
    stdoutBytes += chunk.length
  })
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk
  })
  const code = await new Promise<number | null>((settle, reject) => {
    child.once("error", reject)
    child.once("close", settle)
  })
  const wallS = (performance.now() - t0) / 1_000
  const report = readFileSync(out, "utf8").trim().split("\n")
  await rm(out, { force: true })
  if (code !== 0 || stdoutBytes === 0)
    throw new Error(
      `krtt ${args.join(" ")} exited ${code} after ${stdoutBytes} bytes: ${report.join(" ")} ${stderr}`,
    )
  const [user, system, maxRssKb] = (report[report.length - 1] ?? "").split(" ").map(Number) as [
    number,
    number,
    number,
  ]
  return { wallS, cpuS: user + system, peakRssMiB: maxRssKb / 1024, stdoutBytes }
}

/** One start of a manager. */
interface ManagerRun {
  readonly readyS: number
  /** From spawn to the Cluster controller's "Starting workers" log line (its caches synced). */
  readonly workersS: number
  readonly cpuAtReadyS: number
  readonly peakRssAtReadyMiB: number
  readonly rssAtReadyMiB: number
  /** `--settle` seconds after ready, no Cluster yet. */
  readonly rssIdleMiB: number
  readonly peakRssIdleMiB: number
  readonly cpuIdleS: number
  readonly load1: number
}

/** GET `/readyz`: its status, or 0 when nothing answers yet. */
const readyz = (port: number): Promise<number> =>
  new Promise((settle) => {
    const req = httpGet({ host: "127.0.0.1", port, path: "/readyz", agent: false, timeout: 5_000 }, (res) => {
      res.resume()
      settle(res.statusCode ?? 0)
    })
    req.once("error", () => settle(0))
    req.once("timeout", () => req.destroy())
  })

/**
 * Starts a manager (`command` given its ports), times it to the first 200 on `/readyz`, reads
 * its /proc figures then and `settleS` later, and ends it with SIGTERM (SIGKILL after 30 s).
 */
const timeManager = async (
  name: string,
  dir: string,
  settleS: number,
  start: (ports: { readonly metrics: number; readonly health: number; readonly webhook: number }) => {
    readonly command: string
    readonly args: ReadonlyArray<string>
    readonly cwd: string
    readonly env: NodeJS.ProcessEnv
    /** When the log says the Cluster controller's workers started (epoch ms), if it does. */
    readonly workersStarted: (log: string, year: number) => number | undefined
  },
): Promise<ManagerRun> => {
  const [metrics, health, webhook] = (await freePorts(3)) as [number, number, number]
  const c = start({ metrics, health, webhook })
  const logPath = join(dir, `${name}-${Date.now()}.log`)
  const load = load1()
  const spawnedAt = Date.now()
  const t0 = performance.now()
  const p: Managed = await startProcess(name, c.command, c.args, { cwd: c.cwd, logPath, env: c.env })
  const unregister = onEmergency(() => killGroup(p.pid, "SIGKILL"))
  void p.exited.then(unregister)
  try {
    for (;;) {
      if ((await readyz(health)) === 200) break
      const exit = p.exit()
      if (exit !== undefined)
        throw new Error(`${name} exited (${JSON.stringify(exit)}) before ready; ${tail(logPath, 30)}`)
      if (performance.now() - t0 > READY_TIMEOUT_MS)
        throw new Error(`${name}: no 200 on /readyz within ${READY_TIMEOUT_MS} ms; ${tail(logPath, 30)}`)
      await sleep(READY_POLL_MS)
    }
    const readyS = (performance.now() - t0) / 1_000
    const atReady = processStats(p.pid)
    await sleep(settleS * 1_000)
    const idle = processStats(p.pid)
    const workers = c.workersStarted(readFileSync(logPath, "utf8"), new Date(spawnedAt).getFullYear())
    return {
      readyS,
      workersS: workers === undefined ? Number.NaN : (workers - spawnedAt) / 1_000,
      cpuAtReadyS: atReady.cpuSeconds,
      peakRssAtReadyMiB: atReady.hwmKb / 1024,
      rssAtReadyMiB: atReady.rssKb / 1024,
      rssIdleMiB: idle.rssKb / 1024,
      peakRssIdleMiB: idle.hwmKb / 1024,
      cpuIdleS: idle.cpuSeconds,
      load1: load,
    }
  } finally {
    p.child.ref()
    if (p.exit() === undefined) process.kill(p.pid, "SIGTERM")
    const timer = setTimeout(() => killGroup(p.pid, "SIGKILL"), 30_000)
    await p.exited
    clearTimeout(timer)
  }
}

/** The timestamp of krtt's JSON log line `Starting workers` of the Cluster controller. */
export const krttWorkersStarted = (log: string): number | undefined => {
  for (const line of log.split("\n")) {
    if (!line.includes('"Starting workers"')) continue
    try {
      const entry = JSON.parse(line) as { timestamp?: string; annotations?: { controller?: string } }
      if (entry.annotations?.controller === "cluster" && entry.timestamp !== undefined)
        return Date.parse(entry.timestamp)
    } catch {
      // not a JSON line
    }
  }
  return undefined
}

/**
 * The time of upstream's klog line `"Starting workers" controller="cluster"`: klog writes the
 * local time without the year (`I1126 00:53:51.276809`).
 */
export const upstreamWorkersStarted = (log: string, year: number): number | undefined => {
  const m =
    /^[IWE](\d\d)(\d\d) (\d\d):(\d\d):(\d\d)\.(\d{6}) .*"Starting workers" controller="cluster" /m.exec(log)
  if (m === null) return undefined
  const [month, day, h, min, sec, micros] = m.slice(1).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ]
  return new Date(year, month - 1, day, h, min, sec, micros / 1_000).getTime()
}

/** `git describe --always --dirty` of a checkout, or why not. */
const describe = async (dir: string): Promise<string> =>
  run("git", ["-C", dir, "describe", "--always", "--dirty", "--abbrev=7"]).then(
    (r) => r.stdout.trim(),
    (e: Error) => `unknown (${e.message.split("\n")[0]})`,
  )

/** What `bin/krtt.js` of a checkout runs: a build in dist/ (which, and when it was built) or the sources. */
const krttEntry = (dir: string): string => {
  const bin = readFileSync(join(dir, "bin", "krtt.js"), "utf8")
  const target = bin.match(/\.\.\/(dist\/[\w/.-]+\.js)/)?.[1]
  if (target === undefined) return "the TypeScript sources (type stripping)"
  const main = join(dir, target)
  return existsSync(main)
    ? `${target} (built ${statSync(main).mtime.toISOString()})`
    : `${target} (not built: run npm run build)`
}

const fmt = (s: Spread | undefined, digits: number) =>
  s === undefined ? "–" : `${s.min.toFixed(digits)} / ${s.median.toFixed(digits)} / ${s.max.toFixed(digits)}`

const main = async () => {
  const o: Options = parse()
  const started = Date.now()
  const scratch = await mkdtemp(join(tmpdir(), "krtt-bench-startup-"))
  const loadAtStart = load1()
  const [krttVersion, krttCommit] = [
    (JSON.parse(readFileSync(join(o.krttDir, "package.json"), "utf8")) as { version: string }).version,
    await describe(o.krttDir),
  ]
  const wantsRun = o.parts.has("krtt") || o.parts.has("upstream")
  if (o.parts.has("cli") && !existsSync(GNU_TIME))
    throw new Error(`the cli part needs GNU time at ${GNU_TIME} (apt-get install time)`)
  // Upstream's binary first: a failed build fails before anything else runs.
  const binary = o.parts.has("upstream") ? await ensureUpstreamManagerOf(log, o.upstreamVersion) : undefined
  const goVersion =
    binary === undefined
      ? undefined
      : await run("go", ["version", binary]).then(
          (r) => r.stdout.trim().split(": ").pop() ?? "",
          () => "unknown",
        )

  const cli: Partial<Record<"help" | "tables", ReadonlyArray<CommandRun>>> = {}
  const managers: Partial<Record<"krtt" | "upstream", ReadonlyArray<ManagerRun>>> = {}
  const loads: Array<number> = []
  try {
    if (o.parts.has("cli")) {
      for (const [key, args] of [
        ["help", ["--help"]],
        ["tables", ["tables", "--json"]],
      ] as const) {
        await timeCommand(o.krttDir, args, scratch) // warm-up, not counted
        const runs: Array<CommandRun> = []
        for (let i = 0; i < o.runs; i++) {
          loads.push(load1())
          runs.push(await timeCommand(o.krttDir, args, scratch))
        }
        cli[key] = runs
        log(`krtt ${args.join(" ")}: ${runs.map((r) => r.wallS.toFixed(3)).join(", ")} s`)
      }
    }
    if (wantsRun) {
      const controlPlane = await startControlPlane({
        clusters: 1,
        controllerManagerControllers: ["clusterrole-aggregation-controller"],
      })
      try {
        const mgmt = controlPlane.clusters[0] as Cluster
        await installManagement(mgmt, { crds: "upstream" })
        await installUpstreamExtraCrds(mgmt)
        if (o.upstreamVersion !== CLUSTER_API_VERSION) await installUpstreamCrdsOf(mgmt, o.upstreamVersion)
        const identity = await managerIdentity(mgmt, scratch)
        const certDir = join(scratch, "serving-certs")
        await writeServingCertificate(certDir, ["127.0.0.1", "localhost"])
        log(
          `control plane up (${controlPlane.startupMs} ms), Cluster API ${o.upstreamVersion} CRDs installed`,
        )

        const starters = {
          // startOperator's command line (e2e/fixtures/operator.ts) with compare.ts's flags.
          krtt: async () => {
            await expectStatus(
              mgmt.request(
                "DELETE",
                `/apis/coordination.k8s.io/v1/namespaces/${MANAGER_NAMESPACE}/leases/${UpstreamManagerDefaults.leaderElectId}`,
              ),
              [200, 404],
              "delete the Lease",
            )
            return timeManager("krtt-run", scratch, o.settle, (port) => {
              const env: NodeJS.ProcessEnv = { ...process.env, POD_NAMESPACE: MANAGER_NAMESPACE }
              delete env.KUBECONFIG
              return {
                command: process.execPath,
                args: [
                  join(o.krttDir, "bin", "krtt.js"),
                  "run",
                  "--kubeconfig",
                  identity.kubeconfigPath,
                  `--diagnostics-address=127.0.0.1:${port.metrics}`,
                  "--insecure-diagnostics",
                  `--health-addr=127.0.0.1:${port.health}`,
                  "--leader-elect",
                  "--logging-format=json",
                  ...SHARED_FLAGS,
                  `--webhook-port=${port.webhook}`,
                  `--webhook-cert-dir=${certDir}`,
                ],
                cwd: o.krttDir,
                env,
                workersStarted: krttWorkersStarted,
              }
            })
          },
          // startUpstream's command line (compare-upstream.ts) with compare.ts's flags.
          upstream: () =>
            timeManager("capi-manager", scratch, o.settle, (port) => {
              const env: NodeJS.ProcessEnv = { ...process.env }
              delete env.KUBECONFIG
              return {
                command: binary as string,
                args: [
                  `--kubeconfig=${mgmt.admin.kubeconfigPath}`,
                  "--leader-elect=false",
                  `--diagnostics-address=127.0.0.1:${port.metrics}`,
                  "--insecure-diagnostics",
                  `--health-addr=127.0.0.1:${port.health}`,
                  `--webhook-port=${port.webhook}`,
                  `--webhook-cert-dir=${certDir}`,
                  ...SHARED_FLAGS,
                ],
                cwd: scratch,
                env,
                workersStarted: upstreamWorkersStarted,
              }
            }),
        }
        const names = (["krtt", "upstream"] as const).filter((n) => o.parts.has(n))
        for (const n of names) await starters[n]() // warm-up, not counted
        const runs: Record<"krtt" | "upstream", Array<ManagerRun>> = { krtt: [], upstream: [] }
        // Alternating, so that both see the same changes of the machine's load.
        for (let i = 0; i < o.runs; i++)
          for (const n of names) {
            const r = await starters[n]()
            runs[n].push(r)
            loads.push(r.load1)
            log(
              `${n} run ${i + 1}: ready after ${r.readyS.toFixed(3)} s, ${r.rssIdleMiB.toFixed(0)} MiB idle`,
            )
          }
        for (const n of names) managers[n] = runs[n]
      } finally {
        await controlPlane.stop()
      }
    }
  } finally {
    await rm(scratch, { recursive: true, force: true })
  }

  // A figure a run could not give (a log line missing) is left out of its spread.
  const of = <A>(runs: ReadonlyArray<A> | undefined, f: (a: A) => number) => {
    const values = (runs ?? []).map(f).filter(Number.isFinite)
    return values.length === 0 ? undefined : spread(values)
  }
  const commandFigures = (runs: ReadonlyArray<CommandRun> | undefined) => ({
    wallS: of(runs, (r) => r.wallS),
    cpuS: of(runs, (r) => r.cpuS),
    peakRssMiB: of(runs, (r) => r.peakRssMiB),
  })
  const managerFigures = (runs: ReadonlyArray<ManagerRun> | undefined) => ({
    readyS: of(runs, (r) => r.readyS),
    workersS: of(runs, (r) => r.workersS),
    cpuAtReadyS: of(runs, (r) => r.cpuAtReadyS),
    peakRssAtReadyMiB: of(runs, (r) => r.peakRssAtReadyMiB),
    rssIdleMiB: of(runs, (r) => r.rssIdleMiB),
    peakRssIdleMiB: of(runs, (r) => r.peakRssIdleMiB),
    cpuIdleS: of(runs, (r) => r.cpuIdleS),
  })
  const figures = {
    help: commandFigures(cli.help),
    tables: commandFigures(cli.tables),
    krtt: managerFigures(managers.krtt),
    upstream: managerFigures(managers.upstream),
  }
  const machine = {
    cpus: cpus().length,
    model: cpus()[0]?.model ?? "unknown",
    kernel: `Linux ${release()}`,
    loadAverage1m: {
      start: loadAtStart,
      end: load1(),
      runs: loads.length === 0 ? undefined : { min: Math.min(...loads), max: Math.max(...loads) },
    },
  }
  const versions = {
    node: `${process.version} (${process.execPath})`,
    krtt: `${krttVersion} at ${krttCommit} in ${o.krttDir}, running ${krttEntry(o.krttDir)}`,
    upstream:
      binary === undefined
        ? undefined
        : `Cluster API ${o.upstreamVersion} core manager ${binary} (${goVersion})`,
    controlPlane: wantsRun
      ? `kube-apiserver ${KUBERNETES_VERSION}, etcd ${ETCD_VERSION} (testenv)`
      : undefined,
  }

  const verdict = (s: Spread | undefined, goal: number) =>
    s === undefined ? "–" : s.median <= goal ? "met" : "not met"
  const ratio = (a: Spread | undefined, b: Spread | undefined) =>
    a === undefined || b === undefined || b.median === 0 ? "–" : (a.median / b.median).toFixed(2)
  type Row = readonly [string, Spread | undefined, number, number | undefined, Spread | undefined]
  const k = figures.krtt
  const u = figures.upstream
  const rows: ReadonlyArray<Row> = [
    ["`krtt --help`: wall (s)", figures.help.wallS, 3, GOALS.helpWallS, undefined],
    ["`krtt --help`: CPU (s)", figures.help.cpuS, 2, undefined, undefined],
    ["`krtt --help`: peak RSS (MiB)", figures.help.peakRssMiB, 0, GOALS.helpPeakRssMiB, undefined],
    ["`krtt tables --json`: wall (s)", figures.tables.wallS, 3, GOALS.tablesWallS, undefined],
    ["`krtt tables --json`: CPU (s)", figures.tables.cpuS, 2, undefined, undefined],
    ["`krtt tables --json`: peak RSS (MiB)", figures.tables.peakRssMiB, 0, undefined, undefined],
    ["manager: exec to the first 200 on /readyz (s)", k.readyS, 3, GOALS.runReadyS, u.readyS],
    ["manager: exec to the Cluster controller's workers started (s)", k.workersS, 3, undefined, u.workersS],
    ["manager: CPU to ready (s)", k.cpuAtReadyS, 2, undefined, u.cpuAtReadyS],
    ["manager: peak RSS to ready (MiB)", k.peakRssAtReadyMiB, 0, undefined, u.peakRssAtReadyMiB],
    [
      `manager: RSS ${o.settle} s after ready, no Cluster (MiB)`,
      k.rssIdleMiB,
      0,
      GOALS.runIdleRssMiB,
      u.rssIdleMiB,
    ],
    [`manager: peak RSS ${o.settle} s after ready (MiB)`, k.peakRssIdleMiB, 0, undefined, u.peakRssIdleMiB],
    [`manager: CPU until ${o.settle} s after ready (s)`, k.cpuIdleS, 2, undefined, u.cpuIdleS],
  ]
  const shown = rows.filter(([, a, , , b]) => a !== undefined || b !== undefined)
  const lines = [
    `machine: ${machine.cpus} × ${machine.model}, ${machine.kernel}; load average (1 min) ${machine.loadAverage1m.start} at the start, ${machine.loadAverage1m.end} at the end${machine.loadAverage1m.runs === undefined ? "" : `, ${machine.loadAverage1m.runs.min} to ${machine.loadAverage1m.runs.max} at the runs' starts`}`,
    `node: ${versions.node}`,
    `krtt: ${versions.krtt}`,
    ...(versions.upstream === undefined ? [] : [`upstream: ${versions.upstream}`]),
    ...(versions.controlPlane === undefined ? [] : [`control plane: ${versions.controlPlane}`]),
    `${o.runs} runs of each after one warm-up run; min / median / max; goals judged on the median`,
    "",
    "| | krtt | goal | | upstream | krtt / upstream |",
    "|---|---:|---:|---|---:|---:|",
    ...shown.map(
      ([label, a, digits, goal, b]) =>
        `| ${label} | ${fmt(a, digits)} | ${goal === undefined ? "" : `≤ ${goal}`} | ${goal === undefined ? "" : verdict(a, goal)} | ${b === undefined ? "" : fmt(b, digits)} | ${b === undefined ? "" : ratio(a, b)} |`,
    ),
    "",
    `wall time of the benchmark: ${((Date.now() - started) / 1_000).toFixed(0)} s`,
  ]
  // With --json the table goes to stderr, the JSON alone to stdout.
  if (o.json) {
    log(`\n${lines.join("\n")}`)
    const goals = Object.fromEntries(
      shown.flatMap(([label, a, , goal]) =>
        goal === undefined ? [] : [[label, { goal, verdict: verdict(a, goal) }]],
      ),
    )
    process.stdout.write(
      `${JSON.stringify({ machine, versions, runs: o.runs, settleSeconds: o.settle, figures, goals, cli, managers }, null, 2)}\n`,
    )
  } else process.stdout.write(`${lines.join("\n")}\n`)
}

if (import.meta.main) await main()
