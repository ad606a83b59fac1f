// Upstream Cluster API's own CRDs for tests: the Go module `sigs.k8s.io/cluster-api` downloaded
// with `go mod download` into the project's cache (like the control-plane binaries), read from
// its `config/crd/bases`. Nothing of it is copied into the repository.
import { execFile } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { promisify } from "node:util"
import { parseAllDocuments } from "yaml"
import { cacheRoot } from "./assets.ts"

/** The Cluster API release the operator is a drop-in for. */
export const CLUSTER_API_VERSION = "v1.13.6"
export const CLUSTER_API_MODULE = "sigs.k8s.io/cluster-api"

const run = promisify(execFile)

/** Where `go mod download` puts the module: `~/.cache/krtt/gomod`. */
export const goModCache = (env: NodeJS.ProcessEnv = process.env): string => join(cacheRoot(env), "gomod")

/**
 * The folder of the downloaded module (downloaded on first use; later calls read the cache).
 * Fails with a message naming what is missing when Go or the module proxy cannot be had.
 */
export const ensureClusterApiModule = async (
  version: string = CLUSTER_API_VERSION,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> => {
  const cache = goModCache(env)
  const dir = join(cache, `${CLUSTER_API_MODULE}@${version}`)
  if (existsSync(join(dir, "config", "crd", "bases"))) return dir
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

/** The CRDs of `config/crd/bases` of the module, by file name (e.g. `cluster.x-k8s.io_clusters.yaml`). */
export const clusterApiCrd = async (file: string, version: string = CLUSTER_API_VERSION): Promise<Crd> => {
  const dir = await ensureClusterApiModule(version)
  const text = readFileSync(join(dir, "config", "crd", "bases", file), "utf8")
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
