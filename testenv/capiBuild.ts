// Commands of a Cluster API release built from its Go module, for tests and benchmarks: the core
// manager (`sigs.k8s.io/cluster-api/core`) and clusterctl (`…/cmd/clusterctl`). From v1.14 on the
// API types are a nested module (`sigs.k8s.io/cluster-api/api`) that the release's zip lacks, so
// the command is built from a scratch main module in the cache that requires both at the release
// (`~/.cache/krtt/<name>-<version>/build`); upstream's own replace directive does not apply there.
import { execFile } from "node:child_process"
import { existsSync } from "node:fs"
import { mkdir, rename, rm } from "node:fs/promises"
import { join } from "node:path"
import { promisify } from "node:util"
import { cacheRoot } from "./assets.ts"
import { CLUSTER_API_MODULE, CLUSTER_API_VERSION, goModCache } from "./clusterapi.ts"

const run = promisify(execFile)

/** What to build: a package of the release, into a binary. */
export interface ClusterApiCommand {
  readonly version: string
  /** The package, relative to the module: `core`, `cmd/clusterctl`. */
  readonly pkg: string
  /** The binary's path. */
  readonly binary: string
}

/** Where clusterctl of a release is cached: `~/.cache/krtt/clusterctl-<version>/clusterctl`. */
export const clusterctlPath = (version: string = CLUSTER_API_VERSION, env = process.env): string =>
  join(cacheRoot(env), `clusterctl-${version}`, "clusterctl")

/**
 * Builds the command unless its binary exists (minutes the first time: the module and its
 * dependencies are downloaded and compiled). Fails naming the build folder and Go's answer.
 */
export const buildClusterApiCommand = async (
  command: ClusterApiCommand,
  log: (line: string) => void,
): Promise<string> => {
  const { version, pkg, binary } = command
  if (existsSync(binary)) return binary
  const buildDir = join(binary, "..", "build")
  await rm(buildDir, { recursive: true, force: true })
  await mkdir(buildDir, { recursive: true })
  const partial = `${binary}.${process.pid}.tmp`
  const env = { ...process.env, GOMODCACHE: goModCache(), GOFLAGS: "-mod=mod", GO111MODULE: "on" }
  const go = (args: ReadonlyArray<string>, timeout: number) =>
    run("go", args, { cwd: buildDir, env, timeout, maxBuffer: 64 * 1024 * 1024 })
  log(
    `building ${CLUSTER_API_MODULE}/${pkg}@${version} (a scratch module in ${buildDir}) into ${binary}: takes minutes`,
  )
  try {
    await go(["mod", "init", "krtt.local/capi-build"], 60_000)
    // upstream's go.mod requires the api module at the zero pseudo-version (its replace target);
    // the same version of the real module stands in for it.
    await go(
      [
        "mod",
        "edit",
        `-require=${CLUSTER_API_MODULE}@${version}`,
        `-require=${CLUSTER_API_MODULE}/api@${version}`,
        `-replace=${CLUSTER_API_MODULE}/api@v0.0.0-00010101000000-000000000000=${CLUSTER_API_MODULE}/api@${version}`,
      ],
      60_000,
    )
    await go(["build", "-trimpath", "-o", partial, `${CLUSTER_API_MODULE}/${pkg}`], 3_600_000)
    await rename(partial, binary)
  } catch (e) {
    await rm(partial, { force: true })
    const err = e as Error & { stderr?: string }
    throw new Error(`cannot build ${CLUSTER_API_MODULE}/${pkg} in ${buildDir}: ${err.stderr ?? err.message}`)
  }
  return binary
}

/** clusterctl of the release krtt is tested against, built once into the cache. */
export const ensureClusterctl = (
  log: (line: string) => void,
  version: string = CLUSTER_API_VERSION,
): Promise<string> =>
  buildClusterApiCommand({ version, pkg: "cmd/clusterctl", binary: clusterctlPath(version) }, log)
