/**
 * Both runtimes' processes for `bench/multicluster-compare.ts`: how each is started, and what
 * their log lines say (a cluster engaged, a ConfigMap found).
 *
 * - The peer: multicluster-runtime's `examples/kubeconfig`, built with `go build` inside that
 *   example's folder of a source tree given by `--peer-src` (each example is a Go module of its
 *   own that replaces the library with `../..`; multicluster-runtime is not served by the Go
 *   module proxy, so `go install` cannot fetch it). The binary goes to the project's cache
 *   (`~/.cache/krtt/peers/`), nothing into the repository. Its flags: `--namespace` of the
 *   kubeconfig Secrets; the hub from `$KUBECONFIG`; zap's development logging (console lines:
 *   time, level, logger, message, then the fields as JSON).
 * - krtt: `bench/multicluster-compare-krtt.ts`, bundled with esbuild as `npm run build` bundles
 *   the `krtt` command (one ES module, dependencies inside: the form a deployed program loads,
 *   as the peer is a compiled binary) into the bench's temporary folder, or run on the sources
 *   (`--krtt-from source`: Node strips the types of every module it loads, which costs start-up
 *   time and memory); `--provider kubeconfig-secrets --provider-namespace NS`; zap's JSON lines.
 *
 * @module
 */
import { execFile } from "node:child_process"
import { existsSync } from "node:fs"
import { mkdir } from "node:fs/promises"
import { join, resolve } from "node:path"
import { promisify } from "node:util"
import { build } from "esbuild"
import { cacheRoot } from "../testenv/assets.ts"
import { goModCache } from "../testenv/clusterapi.ts"
import type { Side } from "./multicluster-compare-args.ts"

const run = promisify(execFile)

/**
 * The peer's binary: `bin` as given, else built from `src` (minutes the first time, seconds
 * when Go's build cache holds it). Fails with Go's own output.
 */
export const ensurePeer = async (
  src: string | undefined,
  bin: string | undefined,
  log: (line: string) => void,
): Promise<string> => {
  if (bin !== undefined) {
    if (!existsSync(bin)) throw new Error(`--peer-bin: no such file: ${bin}`)
    return resolve(bin)
  }
  if (src === undefined) throw new Error("--peer-src: missing")
  const example = join(resolve(src), "examples", "kubeconfig")
  if (!existsSync(join(example, "go.mod")))
    throw new Error(
      `--peer-src: ${src} has no examples/kubeconfig/go.mod (a multicluster-runtime source tree?)`,
    )
  const out = join(cacheRoot(), "peers", "multicluster-runtime-kubeconfig")
  await mkdir(join(out, ".."), { recursive: true })
  log(`building multicluster-runtime's kubeconfig example in ${example} into ${out}`)
  try {
    await run("go", ["build", "-o", out, "."], {
      cwd: example,
      env: { ...process.env, GOMODCACHE: goModCache(), GOFLAGS: "-mod=mod" },
      timeout: 3_600_000,
      maxBuffer: 64 * 1024 * 1024,
    })
  } catch (e) {
    const err = e as Error & { stderr?: string }
    throw new Error(`cannot build ${example}: ${err.stderr ?? err.message}`)
  }
  return out
}

/** `require` for the CommonJS dependencies inside an ES module bundle (as scripts/bundle.ts). */
const REQUIRE_SHIM =
  'import { createRequire as __krttRequire } from "node:module";const require = __krttRequire(import.meta.url);'

/** Bundles krtt's side into `dir`; returns the bundle's path. */
export const bundleKrtt = async (dir: string): Promise<string> => {
  const outfile = join(dir, "multicluster-compare-krtt.mjs")
  await build({
    absWorkingDir: join(import.meta.dirname, ".."),
    entryPoints: [join(import.meta.dirname, "multicluster-compare-krtt.ts")],
    outfile,
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node22",
    conditions: ["krtt-source"],
    minifyWhitespace: true,
    minifySyntax: true,
    keepNames: true,
    banner: { js: REQUIRE_SHIM },
    logLevel: "warning",
  })
  return outfile
}

/** How to start one side's controller against a hub. */
export const commandOf = (
  side: Side,
  peerBinary: string | undefined,
  hubKubeconfig: string,
  namespace: string,
  krtt: {
    readonly bundle: string | undefined
    readonly cpuProf: string | undefined
    readonly probeInterval?: string | undefined
  },
): { readonly command: string; readonly args: ReadonlyArray<string>; readonly env: NodeJS.ProcessEnv } => {
  const env: NodeJS.ProcessEnv = { ...process.env, KUBECONFIG: hubKubeconfig }
  if (side === "peer") {
    if (peerBinary === undefined) throw new Error("the peer's binary is missing")
    return { command: peerBinary, args: [`--namespace=${namespace}`], env }
  }
  return {
    command: process.execPath,
    args: [
      ...(krtt.cpuProf === undefined ? [] : ["--cpu-prof", `--cpu-prof-dir=${krtt.cpuProf}`]),
      ...(krtt.bundle === undefined
        ? ["--conditions=krtt-source", join(import.meta.dirname, "multicluster-compare-krtt.ts")]
        : [krtt.bundle]),
      "--kubeconfig",
      hubKubeconfig,
      "--provider",
      "kubeconfig-secrets",
      "--provider-namespace",
      namespace,
      ...(krtt.probeInterval === undefined ? [] : ["--provider-probe-interval", krtt.probeInterval]),
    ],
    env,
  }
}

/** What a log line tells the bench. */
export type LogFact =
  | { readonly _tag: "Engaged"; readonly cluster: string }
  | { readonly _tag: "Found"; readonly cluster: string; readonly object: string }

/** The message that says a cluster is engaged, per runtime. */
const ENGAGED: Record<Side, string> = { peer: "Successfully engaged manager", krtt: "cluster engaged" }

/**
 * Reads one log line of either runtime: zap's JSON (`{"msg":...,"cluster":...}`) or zap's
 * development console line (tab-separated, the fields last as JSON). Anything else: undefined.
 */
export const parseLogLine = (side: Side, line: string): LogFact | undefined => {
  let msg: string | undefined
  let fields: Record<string, unknown> | undefined
  try {
    if (line.startsWith("{")) {
      fields = JSON.parse(line) as Record<string, unknown>
      msg = typeof fields.msg === "string" ? fields.msg : undefined
    } else {
      const parts = line.split("\t")
      const last = parts.at(-1) ?? ""
      if (parts.length < 4 || !last.startsWith("{")) return undefined
      fields = JSON.parse(last) as Record<string, unknown>
      msg = parts.at(-2)
    }
  } catch {
    return undefined
  }
  const cluster = fields.cluster
  if (typeof cluster !== "string") return undefined
  if (msg === ENGAGED[side]) return { _tag: "Engaged", cluster }
  if (msg === "ConfigMap found")
    return { _tag: "Found", cluster, object: `${fields.namespace}/${fields.name}` }
  return undefined
}
