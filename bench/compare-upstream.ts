/**
 * Upstream Cluster API's core manager for `bench/compare.ts`: built from the Go module
 * `sigs.k8s.io/cluster-api` (the version krtt is a drop-in for, downloaded by
 * testenv/clusterapi.ts into the project's cache) with `go build` in the module's root, the
 * binary cached beside the control-plane binaries (`~/.cache/krtt/capi-<version>/capi-manager`);
 * nothing of it enters the repository. `go install sigs.k8s.io/cluster-api@<version>` is refused
 * because the module's go.mod has replace directives, hence the build in the module folder.
 * Releases from v1.14 on are built from a scratch module instead (`ensureUpstreamManagerOf`,
 * which `bench/startup.ts` uses for `--upstream-version`), and their CRDs applied with
 * `installUpstreamCrdsOf`.
 *
 * Also: the extra upstream CRDs its manager watches beyond the core ones (ClusterResourceSets,
 * MachineHealthChecks, MachineDrainRules, IPAM, ExtensionConfigs), and the manager as a process.
 *
 * @module
 */
import { execFile } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
import { mkdir, readdir, rename, rm } from "node:fs/promises"
import { join } from "node:path"
import { promisify } from "node:util"
import { parseDocument } from "yaml"
import {
  apply,
  type KubeObject,
  parseMetrics,
  type Sample,
  sleep,
  waitForCrd,
} from "../e2e/fixtures/index.ts"
import { cacheRoot } from "../testenv/assets.ts"
import { buildClusterApiCommand } from "../testenv/capiBuild.ts"
import {
  CLUSTER_API_VERSION,
  clusterApiCrd,
  ensureClusterApiModule,
  goModCache,
} from "../testenv/clusterapi.ts"
import type { Cluster } from "../testenv/index.ts"
import { freePorts, killGroup, onEmergency, startProcess, tail } from "../testenv/processes.ts"

const run = promisify(execFile)

/** Where the built manager of a release is cached: `~/.cache/krtt/capi-<version>/capi-manager`. */
export const upstreamManagerPath = (version: string = CLUSTER_API_VERSION, env = process.env): string =>
  join(cacheRoot(env), `capi-${version}`, "capi-manager")

/**
 * The path of upstream's manager binary of a release before v1.14, built in the downloaded
 * module folder on first use (minutes on 2 cores; later calls read the cache). Fails with Go's
 * own error output when the build fails. {@link ensureUpstreamManagerOf} builds any release.
 */
export const ensureUpstreamManager = async (
  log: (line: string) => void,
  version: string,
): Promise<string> => {
  const binary = upstreamManagerPath(version)
  if (existsSync(binary)) return binary
  const moduleDir = await ensureClusterApiModule(version)
  await mkdir(join(binary, ".."), { recursive: true })
  const partial = `${binary}.${process.pid}.tmp`
  log(`building upstream's manager (sigs.k8s.io/cluster-api@${version}) into ${binary}: takes minutes`)
  try {
    // The module folder is read-only (Go's module cache): only the output goes elsewhere.
    await run("go", ["build", "-trimpath", "-o", partial, "."], {
      cwd: moduleDir,
      env: { ...process.env, GOMODCACHE: goModCache(), GOFLAGS: "-mod=mod", GO111MODULE: "on" },
      timeout: 3_600_000,
      maxBuffer: 64 * 1024 * 1024,
    })
    await rename(partial, binary)
  } catch (e) {
    await rm(partial, { force: true })
    const err = e as Error & { stderr?: string }
    throw new Error(`cannot build upstream's manager in ${moduleDir}: ${err.stderr ?? err.message}`)
  }
  return binary
}

/**
 * The CRDs of upstream's `config/crd/bases` that `installManagement({crds: "upstream"})` leaves
 * out: its manager starts informers for these kinds too and would not become ready without them.
 */
export const UPSTREAM_EXTRA_CRDS = [
  "cluster.x-k8s.io_machinehealthchecks.yaml",
  "cluster.x-k8s.io_machinedrainrules.yaml",
  "addons.cluster.x-k8s.io_clusterresourcesets.yaml",
  "addons.cluster.x-k8s.io_clusterresourcesetbindings.yaml",
  "ipam.cluster.x-k8s.io_ipaddresses.yaml",
  "ipam.cluster.x-k8s.io_ipaddressclaims.yaml",
  "runtime.cluster.x-k8s.io_extensionconfigs.yaml",
] as const

export const installUpstreamExtraCrds = async (cluster: Cluster): Promise<void> => {
  const crds = (await Promise.all(
    UPSTREAM_EXTRA_CRDS.map((f) => clusterApiCrd(f)),
  )) as unknown as ReadonlyArray<KubeObject>
  for (const crd of crds) await apply(cluster, crd)
  for (const crd of crds) await waitForCrd(cluster, crd.metadata.name)
}

/** An operator process as the comparison observes it, whichever operator it is. */
export interface Observed {
  readonly pid: number
  readonly command: string
  readonly ready: () => Promise<boolean>
  readonly metrics: () => Promise<ReadonlyArray<Sample>>
  readonly tail: (lines?: number) => string
  /** SIGTERM, then SIGKILL after `timeoutMs`. */
  readonly terminate: (timeoutMs?: number) => Promise<{ readonly code: number | null; readonly ms: number }>
  readonly kill: () => Promise<void>
  /** Parts of the process's memory as its runtime reports them (MiB), when asked for. */
  readonly memory: () => Promise<Record<string, number> | undefined>
}

const getText = async (url: string): Promise<{ readonly status: number; readonly text: string }> => {
  const r = await fetch(url, { signal: AbortSignal.timeout(10_000) })
  return { status: r.status, text: await r.text() }
}

/**
 * Starts upstream's manager: `--kubeconfig`, `--leader-elect=false`, plain-HTTP diagnostics
 * (`--insecure-diagnostics`), the webhook server on a free port with the certificate in
 * `certDir`, plus `args`. Returns once /metrics and /healthz answer.
 */
export const startUpstream = async (options: {
  readonly binary: string
  readonly kubeconfigPath: string
  readonly dir: string
  readonly certDir: string
  readonly args: ReadonlyArray<string>
}): Promise<Observed> => {
  const [metricsPort, healthPort, webhookPort] = (await freePorts(3)) as [number, number, number]
  const logPath = join(options.dir, `capi-manager-${Date.now()}.log`)
  const args = [
    `--kubeconfig=${options.kubeconfigPath}`,
    "--leader-elect=false",
    `--diagnostics-address=127.0.0.1:${metricsPort}`,
    "--insecure-diagnostics",
    `--health-addr=127.0.0.1:${healthPort}`,
    `--webhook-port=${webhookPort}`,
    `--webhook-cert-dir=${options.certDir}`,
    ...options.args,
  ]
  const env: NodeJS.ProcessEnv = { ...process.env }
  delete env.KUBECONFIG
  const p = await startProcess("capi-manager", options.binary, args, { cwd: options.dir, logPath, env })
  const unregister = onEmergency(() => killGroup(p.pid, "SIGKILL"))
  void p.exited.then(unregister)
  const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`
  const healthUrl = `http://127.0.0.1:${healthPort}`
  const observed: Observed = {
    pid: p.pid,
    command: `${options.binary} ${args.join(" ")}`,
    ready: async () => (await getText(`${healthUrl}/readyz`).catch(() => ({ status: 0 }))).status === 200,
    metrics: async () => {
      const r = await getText(metricsUrl)
      if (r.status !== 200) throw new Error(`GET ${metricsUrl}: ${r.status}`)
      return parseMetrics(r.text)
    },
    tail: (lines = 40) => `last lines of ${logPath}:\n${tail(logPath, lines)}`,
    terminate: async (timeoutMs = 30_000) => {
      const started = Date.now()
      if (p.exit() === undefined) process.kill(p.pid, "SIGTERM")
      const timedOut = await Promise.race([p.exited.then(() => false), sleep(timeoutMs).then(() => true)])
      if (timedOut) killGroup(p.pid, "SIGKILL")
      const exit = await p.exited
      return { code: exit.code, ms: Date.now() - started }
    },
    kill: async () => {
      if (p.exit() !== undefined) return
      killGroup(p.pid, "SIGKILL")
      await Promise.race([p.exited, sleep(10_000)])
    },
    // Go's own figures, from its /metrics (always there, so always reported).
    memory: async () => {
      const samples = await observed.metrics()
      const mib = (name: string) =>
        Number(((samples.find((x) => x.name === name)?.value ?? Number.NaN) / 1_048_576).toFixed(2))
      return {
        heapInuse: mib("go_memstats_heap_inuse_bytes"),
        heapAlloc: mib("go_memstats_heap_alloc_bytes"),
        stackInuse: mib("go_memstats_stack_inuse_bytes"),
        sys: mib("go_memstats_sys_bytes"),
      }
    },
  }
  const deadline = Date.now() + 120_000
  for (;;) {
    const exit = p.exit()
    if (exit !== undefined)
      throw new Error(
        `upstream's manager exited (${JSON.stringify(exit)}) before serving; ${observed.tail()}`,
      )
    const up = await Promise.all([getText(metricsUrl), getText(`${healthUrl}/healthz`)]).then(
      () => true,
      () => false,
    )
    if (up) return observed
    if (Date.now() > deadline) {
      await observed.kill()
      throw new Error(
        `upstream's manager did not serve /metrics and /healthz within 120 s; ${observed.tail()}`,
      )
    }
    await sleep(200)
  }
}

/**
 * Whether a Cluster API release keeps its core manager in `core/` and its API types in the nested
 * module `sigs.k8s.io/cluster-api/api` (v1.14 and later). The module zip of such a release lacks
 * the `./api` folder its go.mod replaces that module with, so `go build` in the module folder
 * fails ("replacement directory ./api does not exist").
 */
export const hasNestedApiModule = (version: string): boolean => {
  const m = /^v(\d+)\.(\d+)\./.exec(version)
  if (m === null) throw new Error(`not a Cluster API release: ${version} (e.g. v1.14.2)`)
  return Number(m[1]) > 1 || Number(m[2]) >= 14
}

/**
 * The path of upstream's manager binary for any release, built on first use into the same place
 * as {@link ensureUpstreamManager}'s (`~/.cache/krtt/capi-<version>/capi-manager`). Releases
 * before v1.14 are built by {@link ensureUpstreamManager}. From v1.14 on, a scratch main module
 * in the cache (`~/.cache/krtt/capi-<version>/build`) requires `sigs.k8s.io/cluster-api` and
 * `sigs.k8s.io/cluster-api/api` at that version from the module proxy, and `go build
 * sigs.k8s.io/cluster-api/core` builds the manager from it; the replace directive of
 * upstream's go.mod does not apply there (only the main module's do).
 */
export const ensureUpstreamManagerOf = async (
  log: (line: string) => void,
  version: string,
): Promise<string> => {
  if (!hasNestedApiModule(version)) return ensureUpstreamManager(log, version)
  const binary = upstreamManagerPath(version)
  if (existsSync(binary)) return binary
  return buildClusterApiCommand({ version, pkg: "core", binary }, log)
}

/**
 * Applies every CRD of a Cluster API release's own manifests (`config/crd/bases`, or
 * `core/config/crd/bases` from v1.14 on) and waits until each is served: over
 * `installManagement({ crds: "upstream" })` and {@link installUpstreamExtraCrds}, that
 * release's schemas.
 */
export const installUpstreamCrdsOf = async (cluster: Cluster, version: string): Promise<number> => {
  const moduleDir = await ensureClusterApiModule(version)
  const bases = join(moduleDir, ...(hasNestedApiModule(version) ? ["core"] : []), "config", "crd", "bases")
  const files = (await readdir(bases)).filter((f) => f.endsWith(".yaml")).sort()
  const crds = files.map((f) => parseDocument(readFileSync(join(bases, f), "utf8")).toJS() as KubeObject)
  for (const crd of crds) await apply(cluster, crd)
  for (const crd of crds) await waitForCrd(cluster, crd.metadata.name)
  return crds.length
}
