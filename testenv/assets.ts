// The control plane's binaries: kube-apiserver, etcd and kubectl, the set envtest users know,
// plus kube-controller-manager (garbage collector, namespace controller, ClusterRole aggregation).
// Taken from KUBEBUILDER_ASSETS when it is set (kube-controller-manager when it is there, else
// from the cache), otherwise built once from Go modules and cached outside the repository
// (XDG_CACHE_HOME or ~/.cache), so that the second run costs nothing.
import { spawn, spawnSync } from "node:child_process"
import { constants, existsSync } from "node:fs"
import { access, mkdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises"
import { homedir, hostname } from "node:os"
import { delimiter, join } from "node:path"
import { isAlive } from "./processes.ts"

export const KUBERNETES_VERSION = "v1.34.4"
export const ETCD_VERSION = "v3.6.6"
/** The staging modules of k8s.io/kubernetes 1.34: its go.mod requires them at v0.0.0 with local replaces. */
export const STAGING_MODULES = [
  "api",
  "apiextensions-apiserver",
  "apimachinery",
  "apiserver",
  "cli-runtime",
  "client-go",
  "cloud-provider",
  "cluster-bootstrap",
  "code-generator",
  "component-base",
  "component-helpers",
  "controller-manager",
  "cri-api",
  "cri-client",
  "csi-translation-lib",
  "dynamic-resource-allocation",
  "endpointslice",
  "externaljwt",
  "kms",
  "kube-aggregator",
  "kube-controller-manager",
  "kube-proxy",
  "kube-scheduler",
  "kubectl",
  "kubelet",
  "metrics",
  "mount-utils",
  "pod-security-admission",
  "sample-apiserver",
] as const

export const BINARIES = ["kube-apiserver", "etcd", "kubectl"] as const
/**
 * Not in envtest's set (setup-envtest's folders lack it): looked for in KUBEBUILDER_ASSETS, else
 * taken from the cache, built there when needed. Runs the garbage collector, the namespace
 * controller and ClusterRole aggregation (see controlplane.ts).
 */
export const CONTROLLER_MANAGER = "kube-controller-manager"
export type Binary = (typeof BINARIES)[number] | typeof CONTROLLER_MANAGER

export interface Assets {
  /** The folder that holds kube-apiserver, etcd and kubectl. */
  readonly dir: string
  readonly source: "KUBEBUILDER_ASSETS" | "cache" | "built"
  readonly kubeApiserver: string
  readonly etcd: string
  readonly kubectl: string
  /** kube-controller-manager: in `dir` or in the cache; undefined when not asked for (`controllerManager: false`). */
  readonly kubeControllerManager: string | undefined
}

export interface AssetsOptions {
  readonly env?: NodeJS.ProcessEnv
  /** Where build progress goes; stderr by default, never stdout. */
  readonly log?: (line: string) => void
  /** The Go toolchain to build with; found on PATH by default; null: build nothing. */
  readonly go?: string | null
  /** Provide kube-controller-manager too (built into the cache when needed); true by default. */
  readonly controllerManager?: boolean
}

export class AssetsError extends Error {
  override readonly name = "AssetsError"
}

const defaultLog = (line: string): void => {
  process.stderr.write(`testenv: ${line}\n`)
}

/** `$XDG_CACHE_HOME/krtt` or `~/.cache/krtt`. */
export const cacheRoot = (env: NodeJS.ProcessEnv = process.env): string => {
  const xdg = env.XDG_CACHE_HOME
  return join(xdg !== undefined && xdg !== "" ? xdg : join(homedir(), ".cache"), "krtt")
}

/** The folder where built binaries are cached, e.g. `~/.cache/krtt/k8s-v1.34.4`. */
export const cacheDir = (env: NodeJS.ProcessEnv = process.env): string =>
  join(cacheRoot(env), `k8s-${KUBERNETES_VERSION}`)

const isExecutable = async (path: string): Promise<boolean> => {
  try {
    await access(path, constants.X_OK)
    return true
  } catch {
    return false
  }
}

/** The binaries of `binaries` (the envtest three by default) that `dir` lacks or holds without the execute bit. */
export const missingBinaries = async (
  dir: string,
  binaries: ReadonlyArray<Binary> = BINARIES,
): Promise<ReadonlyArray<Binary>> => {
  const missing: Array<Binary> = []
  for (const binary of binaries) {
    if (!(await isExecutable(join(dir, binary)))) missing.push(binary)
  }
  return missing
}

const assetsIn = (
  dir: string,
  source: Assets["source"],
  kubeControllerManager: string | undefined = undefined,
): Assets => ({
  dir,
  source,
  kubeApiserver: join(dir, "kube-apiserver"),
  etcd: join(dir, "etcd"),
  kubectl: join(dir, "kubectl"),
  kubeControllerManager,
})

/**
 * Where kube-controller-manager is, without building: KUBEBUILDER_ASSETS's folder when it holds
 * one, else the cache. `present` tells whether the file is there (and executable).
 */
export const locateControllerManager = async (
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ readonly path: string; readonly present: boolean }> => {
  const kubebuilder = env.KUBEBUILDER_ASSETS
  if (kubebuilder !== undefined && kubebuilder !== "") {
    const path = join(kubebuilder, CONTROLLER_MANAGER)
    if (await isExecutable(path)) return { path, present: true }
  }
  const path = join(cacheDir(env), CONTROLLER_MANAGER)
  return { path, present: await isExecutable(path) }
}

/** The Go toolchain: `go` on PATH, else the usual /usr/local/go/bin/go. */
export const findGo = (env: NodeJS.ProcessEnv = process.env): string | undefined => {
  const candidates = [
    ...(env.PATH ?? "")
      .split(delimiter)
      .filter((p) => p !== "")
      .map((p) => join(p, "go")),
    "/usr/local/go/bin/go",
  ]
  for (const candidate of candidates) {
    if (!existsSync(candidate)) continue
    const probe = spawnSync(candidate, ["version"], { env, encoding: "utf8" })
    if (probe.status === 0) return candidate
  }
  return undefined
}

/**
 * Where the binaries are, without building anything: KUBEBUILDER_ASSETS when set, else the cache.
 * `missing` lists what the chosen folder lacks.
 */
export const locateAssets = async (
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ readonly assets: Assets; readonly missing: ReadonlyArray<Binary> }> => {
  const kubebuilder = env.KUBEBUILDER_ASSETS
  if (kubebuilder !== undefined && kubebuilder !== "") {
    return {
      assets: assetsIn(kubebuilder, "KUBEBUILDER_ASSETS"),
      missing: await missingBinaries(kubebuilder),
    }
  }
  const dir = cacheDir(env)
  return { assets: assetsIn(dir, "cache"), missing: await missingBinaries(dir) }
}

/**
 * The binaries, built when needed. With KUBEBUILDER_ASSETS set, its folder must hold kube-apiserver,
 * etcd and kubectl (an explicit choice is never silently replaced by a build); kube-controller-manager,
 * which envtest's folders lack, is taken from there when it is there, else from the cache. Whatever
 * the cache lacks is built from Go modules, under a lock so that concurrent installs build once.
 */
export const ensureAssets = async (options: AssetsOptions = {}): Promise<Assets> => {
  const env = options.env ?? process.env
  const log = options.log ?? defaultLog
  const withControllerManager = options.controllerManager ?? true
  const located = await locateAssets(env)
  if (located.missing.length > 0 && located.assets.source === "KUBEBUILDER_ASSETS") {
    throw new AssetsError(
      `KUBEBUILDER_ASSETS=${located.assets.dir} lacks ${located.missing.join(", ")}: ` +
        `point it at a folder that holds kube-apiserver, etcd and kubectl, or unset it to build them with Go`,
    )
  }
  const controllerManager = withControllerManager ? await locateControllerManager(env) : undefined
  const kubeControllerManager = controllerManager?.path
  const wanted: Array<Binary> = [...located.missing]
  if (controllerManager !== undefined && !controllerManager.present) wanted.push(CONTROLLER_MANAGER)
  if (wanted.length === 0) return { ...located.assets, kubeControllerManager }
  const go = options.go === undefined ? findGo(env) : (options.go ?? undefined)
  if (go === undefined) {
    const fromKubebuilder = located.assets.source === "KUBEBUILDER_ASSETS"
    throw new AssetsError(
      fromKubebuilder
        ? `${CONTROLLER_MANAGER} missing: KUBEBUILDER_ASSETS=${located.assets.dir} holds none and neither does ` +
            `the cache (${cacheDir(env)}), and no Go toolchain was found (looked for go on PATH and ` +
            `/usr/local/go/bin/go). Put a ${CONTROLLER_MANAGER} ${KUBERNETES_VERSION} into KUBEBUILDER_ASSETS, ` +
            `install Go 1.24 or newer to build it, or start the control plane without it ` +
            `(controllerManager: false; testenv up --no-controller-manager)`
        : `${wanted.join(", ")} missing: KUBEBUILDER_ASSETS is not set and no Go toolchain was found ` +
            `(looked for go on PATH and /usr/local/go/bin/go). Install Go 1.24 or newer to build ` +
            `kube-apiserver ${KUBERNETES_VERSION}, etcd ${ETCD_VERSION}, kubectl and ${CONTROLLER_MANAGER} into ` +
            `${cacheDir(env)}, or set KUBEBUILDER_ASSETS to a folder that holds kube-apiserver, etcd and kubectl`,
    )
  }
  const dir = cacheDir(env)
  await withLock(join(cacheRoot(env), `k8s-${KUBERNETES_VERSION}.lock`), log, async () => {
    // Someone else may have built while we waited for the lock.
    const missing = await missingBinaries(dir, wanted)
    if (missing.length === 0) return
    await mkdir(dir, { recursive: true })
    const kubernetes = missing.filter((b) => b !== "etcd")
    if (kubernetes.length > 0) {
      await buildKubernetes(
        {
          go,
          env,
          log,
          binDir: dir,
          buildDir: join(cacheRoot(env), "build", `k8s-${KUBERNETES_VERSION}`),
        },
        kubernetes,
      )
    }
    if (missing.includes("etcd")) {
      await buildEtcd({
        go,
        env,
        log,
        binDir: dir,
        buildDir: join(cacheRoot(env), "build", `etcd-${ETCD_VERSION}`),
      })
    }
  })
  const after = await missingBinaries(dir, wanted)
  if (after.length > 0) throw new AssetsError(`build finished but ${after.join(", ")} missing in ${dir}`)
  return located.missing.length > 0
    ? assetsIn(dir, "built", kubeControllerManager)
    : { ...located.assets, kubeControllerManager }
}

// ---------------------------------------------------------------------------------------------
// Building from Go modules

interface BuildContext {
  readonly go: string
  readonly env: NodeJS.ProcessEnv
  readonly log: (line: string) => void
  readonly binDir: string
  readonly buildDir: string
}

/** The wrapper module that makes `k8s.io/kubernetes` buildable outside its repository. */
export const kubernetesGoMod = (): string => {
  const staging = KUBERNETES_VERSION.replace(/^v1\./, "v0.")
  return [
    "module krtt.local/testenv-k8s",
    "",
    "go 1.24.0",
    "",
    `require k8s.io/kubernetes ${KUBERNETES_VERSION}`,
    "",
    "replace (",
    ...STAGING_MODULES.map((m) => `\tk8s.io/${m} => k8s.io/${m} ${staging}`),
    ")",
    "",
  ].join("\n")
}

const kubernetesTools = [
  "//go:build tools",
  "",
  "package tools",
  "",
  "import (",
  '\t_ "k8s.io/kubernetes/cmd/kube-apiserver"',
  '\t_ "k8s.io/kubernetes/cmd/kube-controller-manager"',
  '\t_ "k8s.io/kubernetes/cmd/kubectl"',
  ")",
  "",
].join("\n")

export const etcdGoMod = (): string =>
  [
    "module krtt.local/testenv-etcd",
    "",
    "go 1.24",
    "",
    `require go.etcd.io/etcd/server/v3 ${ETCD_VERSION}`,
    "",
  ].join("\n")

const etcdTools = [
  "//go:build tools",
  "",
  "package tools",
  "",
  'import _ "go.etcd.io/etcd/server/v3"',
  "",
].join("\n")

const goEnv = (env: NodeJS.ProcessEnv): NodeJS.ProcessEnv => ({
  ...env,
  CGO_ENABLED: "0",
  GOWORK: "off",
  GOFLAGS: `${env.GOFLAGS ?? ""} -mod=mod`.trim(),
})

const run = (
  command: string,
  args: ReadonlyArray<string>,
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<void> =>
  new Promise((resolve, reject) => {
    // Go's output goes to stderr: stdout belongs to the caller (`testenv path` prints only the folder).
    const child = spawn(command, args, { cwd, env, stdio: ["ignore", process.stderr, process.stderr] })
    child.on("error", reject)
    child.on("exit", (code, signal) => {
      if (code === 0) resolve()
      else
        reject(new AssetsError(`${command} ${args.join(" ")} failed in ${cwd} (${signal ?? `exit ${code}`})`))
    })
  })

const writeModule = async (dir: string, goMod: string, tools: string): Promise<void> => {
  await mkdir(dir, { recursive: true })
  // Keep a tidied go.mod and its go.sum while the wrapper is unchanged; start over otherwise.
  const stamp = join(dir, "wrapper.go.mod")
  if ((await readFile(stamp, "utf8").catch(() => "")) !== goMod) {
    await rm(join(dir, "go.sum"), { force: true })
    await writeFile(join(dir, "go.mod"), goMod)
    await writeFile(stamp, goMod)
  }
  await writeFile(join(dir, "tools.go"), tools)
}

const goBuild = async (
  ctx: BuildContext,
  pkg: string,
  binary: Binary,
  ldflags: ReadonlyArray<string>,
): Promise<void> => {
  const started = Date.now()
  const tmp = join(ctx.binDir, `.${binary}.tmp-${process.pid}`)
  const args = ["build", "-trimpath"]
  if (ldflags.length > 0) args.push("-ldflags", ldflags.join(" "))
  args.push("-o", tmp, pkg)
  ctx.log(`building ${binary} (${pkg})`)
  try {
    await run(ctx.go, args, ctx.buildDir, goEnv(ctx.env))
    await rename(tmp, join(ctx.binDir, binary))
  } finally {
    await rm(tmp, { force: true })
  }
  ctx.log(`built ${binary} in ${((Date.now() - started) / 1000).toFixed(0)} s`)
}

/** Builds `binaries` (kube-apiserver, kubectl, kube-controller-manager: one module, one tidy). */
const buildKubernetes = async (ctx: BuildContext, binaries: ReadonlyArray<Binary>): Promise<void> => {
  ctx.log(
    `building ${binaries.join(", ")} ${KUBERNETES_VERSION} from Go modules into ${ctx.binDir} ` +
      "(once; the first time downloads about 1 GB of modules and takes 5 to 15 minutes)",
  )
  await writeModule(ctx.buildDir, kubernetesGoMod(), kubernetesTools)
  await run(ctx.go, ["mod", "tidy"], ctx.buildDir, goEnv(ctx.env))
  const [major, minor] = KUBERNETES_VERSION.replace(/^v/, "").split(".")
  const ldflags = [
    `-X k8s.io/component-base/version.gitVersion=${KUBERNETES_VERSION}`,
    `-X k8s.io/component-base/version.gitMajor=${major}`,
    `-X k8s.io/component-base/version.gitMinor=${minor}`,
  ]
  for (const binary of binaries) {
    await goBuild(ctx, `k8s.io/kubernetes/cmd/${binary}`, binary, ldflags)
  }
}

const buildEtcd = async (ctx: BuildContext): Promise<void> => {
  ctx.log(`building etcd ${ETCD_VERSION} from Go modules into ${ctx.binDir} (once)`)
  await writeModule(ctx.buildDir, etcdGoMod(), etcdTools)
  await run(ctx.go, ["mod", "tidy"], ctx.buildDir, goEnv(ctx.env))
  await goBuild(ctx, "go.etcd.io/etcd/server/v3", "etcd", [])
}

// ---------------------------------------------------------------------------------------------
// A lock shared by concurrent installs (two test runs, `up` and a test run, ...)

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * Runs `body` holding a lock: a directory created atomically, with the owner's pid and host inside.
 * A lock whose owner died on this host is taken over.
 */
export const withLock = async <A>(
  path: string,
  log: (line: string) => void,
  body: () => Promise<A>,
): Promise<A> => {
  const owner = join(path, "owner")
  let waiting = false
  for (;;) {
    try {
      await mkdir(join(path, ".."), { recursive: true })
      await mkdir(path)
      await writeFile(owner, JSON.stringify({ pid: process.pid, host: hostname() }))
      break
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e
    }
    const holder = await readFile(owner, "utf8")
      .then((text) => JSON.parse(text) as { pid: number; host: string })
      .catch(() => undefined)
    const abandoned =
      holder === undefined
        ? // created but never filled in: its creator died between the two steps
          Date.now() - ((await stat(path).catch(() => undefined))?.mtimeMs ?? Date.now()) > 10_000
        : holder.host === hostname() && !isAlive(holder.pid)
    if (abandoned) {
      log(`taking over the lock ${path}: its owner is gone`)
      await rm(path, { recursive: true, force: true })
      continue
    }
    if (!waiting) {
      log(
        `waiting for another install to finish (lock ${path}${holder ? `, held by pid ${holder.pid}` : ""})`,
      )
      waiting = true
    }
    await sleep(1000)
  }
  try {
    return await body()
  } finally {
    await rm(path, { recursive: true, force: true })
  }
}
