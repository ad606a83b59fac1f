// Upstream Cluster API's own CRDs for tests: the Go module `sigs.k8s.io/cluster-api` downloaded
// with `go mod download` into the project's cache (like the control-plane binaries), read from
// its CRD folder (`core/config/crd/bases` from v1.14 on, `config/crd/bases` before). Nothing of
// it is copied into the repository.
import { execFile } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { promisify } from "node:util"
import { parseAllDocuments } from "yaml"
import { cacheRoot } from "./assets.ts"

/** The Cluster API release krtt is tested against: the default of every function here. */
export const CLUSTER_API_VERSION = "v1.14.2"
/** The previous release krtt is still a drop-in for, tested by one e2e suite of its own. */
export const CLUSTER_API_PREVIOUS_VERSION = "v1.13.6"
export const CLUSTER_API_MODULE = "sigs.k8s.io/cluster-api"

const run = promisify(execFile)

/** Where `go mod download` puts the module: `~/.cache/krtt/gomod`. */
export const goModCache = (env: NodeJS.ProcessEnv = process.env): string => join(cacheRoot(env), "gomod")

/** The module's folder of CRDs, relative to the module: the first of the layouts that exists. */
const CRD_FOLDERS: ReadonlyArray<ReadonlyArray<string>> = [
  ["core", "config", "crd", "bases"],
  ["config", "crd", "bases"],
]

/** The folder holding a downloaded release's CRDs, whichever layout the release has. */
export const clusterApiCrdFolder = (moduleDir: string): string => {
  for (const parts of CRD_FOLDERS) {
    const dir = join(moduleDir, ...parts)
    if (existsSync(dir)) return dir
  }
  throw new Error(
    `no CRD folder in ${moduleDir} (looked for ${CRD_FOLDERS.map((p) => p.join("/")).join(" and ")})`,
  )
}

/**
 * The folder of the downloaded module (downloaded on first use; later calls read the cache).
 * Only the module itself is downloaded: from v1.14 on its zip lacks the nested `./api` module,
 * which reading its files does not need. Fails with a message naming what is missing when Go or
 * the module proxy cannot be had.
 */
export const ensureClusterApiModule = async (
  version: string = CLUSTER_API_VERSION,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> => {
  const cache = goModCache(env)
  const dir = join(cache, `${CLUSTER_API_MODULE}@${version}`)
  if (CRD_FOLDERS.some((parts) => existsSync(join(dir, ...parts)))) return dir
  try {
    const { stdout } = await run("go", ["mod", "download", "-json", `${CLUSTER_API_MODULE}@${version}`], {
      env: { ...env, GOMODCACHE: cache, GOFLAGS: "-mod=mod", GO111MODULE: "on" },
      timeout: 600_000,
      maxBuffer: 16 * 1024 * 1024,
    })
    const downloaded = (JSON.parse(stdout) as { Dir?: string; Error?: string }).Dir
    if (downloaded === undefined) throw new Error(stdout)
    return downloaded
  } catch (e) {
    throw new Error(
      `cannot download ${CLUSTER_API_MODULE}@${version} with 'go mod download' into ${cache}: ${(e as Error).message}`,
    )
  }
}

/** A CustomResourceDefinition, as far as tests read it. */
export interface Crd {
  readonly apiVersion: string
  readonly kind: string
  readonly metadata: { readonly name: string; readonly labels?: Record<string, string> }
  readonly spec: {
    readonly group: string
    readonly names: { readonly kind: string; readonly plural: string }
    readonly versions: ReadonlyArray<{
      readonly name: string
      readonly served: boolean
      readonly storage: boolean
      readonly deprecated?: boolean
      readonly schema?: { readonly openAPIV3Schema: Record<string, unknown> }
    }>
  }
}

/** A CRD of a release's CRD folder, by file name (e.g. `cluster.x-k8s.io_clusters.yaml`). */
export const clusterApiCrd = async (file: string, version: string = CLUSTER_API_VERSION): Promise<Crd> => {
  const dir = await ensureClusterApiModule(version)
  const text = readFileSync(join(clusterApiCrdFolder(dir), file), "utf8")
  const docs = parseAllDocuments(text).map((d) => d.toJS() as Crd)
  const crd = docs[0]
  if (crd === undefined) throw new Error(`no CRD in ${file}`)
  return crd
}

/** The core CRDs the Cluster controller reads: Cluster, ClusterClass and the descendants. */
export const CLUSTER_API_CORE_CRDS = [
  "cluster.x-k8s.io_clusters.yaml",
  "cluster.x-k8s.io_clusterclasses.yaml",
  "cluster.x-k8s.io_machines.yaml",
  "cluster.x-k8s.io_machinesets.yaml",
  "cluster.x-k8s.io_machinedeployments.yaml",
  "cluster.x-k8s.io_machinepools.yaml",
] as const
