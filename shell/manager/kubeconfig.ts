/**
 * The manager's kubeconfig, read with client-node from where `kubeconfigSource.ts` finds it:
 * `--kubeconfig`, the `KUBECONFIG` environment variable, the in-cluster service account,
 * `~/.kube/config`.
 *
 * @module
 */
import { KubeConfig } from "@kubernetes/client-node"
import { findKubeconfig, type KubeconfigSource } from "./kubeconfigSource.ts"

/** The kubeconfig the manager runs with, and where it was found. */
export interface ResolvedKubeconfig {
  readonly kubeconfig: KubeConfig
  /** Where it came from, for logs (a path or "in-cluster"), never its contents. */
  readonly source: string
}

const fromFile = (path: string, what: string): ResolvedKubeconfig => {
  const kc = new KubeConfig()
  try {
    kc.loadFromFile(path)
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    throw new Error(`${what} ${path}: ${code === "ENOENT" ? "no such file" : "not a readable kubeconfig"}`)
  }
  if (kc.getCurrentCluster() === null) throw new Error(`${what} ${path}: no current context with a cluster`)
  return { kubeconfig: kc, source: path }
}

/** Reads the kubeconfig at `source`; throws an error naming where it came from, never its contents. */
export const loadKubeconfig = (source: KubeconfigSource): ResolvedKubeconfig => {
  if (source._tag === "File") return fromFile(source.path, source.what)
  const kc = new KubeConfig()
  kc.loadFromCluster()
  return { kubeconfig: kc, source: "in-cluster" }
}

/** The kubeconfig to use, or `undefined` when no cluster is configured anywhere. */
export const resolveKubeconfig = (
  flag: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
  home?: string,
): ResolvedKubeconfig | undefined => {
  const source = findKubeconfig(flag, env, home)
  return source === undefined ? undefined : loadKubeconfig(source)
}
