// Files of Go modules for tests (CRDs that other projects publish, e.g. cert-manager's and
// prometheus-operator's): the module downloaded with `go mod download` into the project's cache,
// like the control-plane binaries, and read from there. Nothing of it is copied into the
// repository.
import { execFile } from "node:child_process"
import { existsSync } from "node:fs"
import { join } from "node:path"
import { promisify } from "node:util"
import { goModCache } from "./clusterapi.ts"

const run = promisify(execFile)

/** A module at a version, and a file of it that tells a complete download from none. */
export interface GoModuleFile {
  readonly module: string
  readonly version: string
  /** A path inside the module, `/`-separated. */
  readonly path: string
}

/** cert-manager's CRDs (Issuer, Certificate, …), of the release whose manifests config/certmanager uses. */
export const CERT_MANAGER_CRDS = (name: string): GoModuleFile => ({
  module: "github.com/cert-manager/cert-manager",
  version: "v1.21.2",
  path: `deploy/crds/cert-manager.io_${name}.yaml`,
})

/** prometheus-operator's CRDs (ServiceMonitor, …); the newest release the module proxy serves here. */
export const PROMETHEUS_OPERATOR_CRDS = (name: string): GoModuleFile => ({
  module: "github.com/prometheus-operator/prometheus-operator",
  version: "v0.85.0",
  path: `example/prometheus-operator-crd/monitoring.coreos.com_${name}.yaml`,
})

/**
 * The absolute path of a module's file, downloading the module on first use (later calls read
 * the cache). Fails with a message naming the module when Go or the module proxy cannot be had.
 */
export const goModuleFile = async (
  file: GoModuleFile,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> => {
  const cache = goModCache(env)
  const cached = join(cache, `${file.module}@${file.version}`, ...file.path.split("/"))
  if (existsSync(cached)) return cached
  try {
    const { stdout } = await run("go", ["mod", "download", "-json", `${file.module}@${file.version}`], {
      env: { ...env, GOMODCACHE: cache, GOFLAGS: "-mod=mod", GO111MODULE: "on" },
      timeout: 600_000,
      maxBuffer: 16 * 1024 * 1024,
    })
    const dir = (JSON.parse(stdout) as { Dir?: string }).Dir
    if (dir === undefined) throw new Error(stdout)
    const path = join(dir, ...file.path.split("/"))
    if (!existsSync(path)) throw new Error(`the module has no ${file.path}`)
    return path
  } catch (e) {
    throw new Error(
      `cannot read ${file.path} of ${file.module}@${file.version} ('go mod download' into ${cache}): ${(e as Error).message}`,
    )
  }
}
