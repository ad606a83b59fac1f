/**
 * Where the manager finds its cluster, in controller-runtime's order: `--kubeconfig`, the
 * `KUBECONFIG` environment variable, the in-cluster service account, `~/.kube/config`.
 *
 * @module
 */
import { existsSync } from "node:fs"
import { homedir } from "node:os"
import { delimiter, join } from "node:path"
import { KubeConfig } from "@kubernetes/client-node"

export interface ResolvedKubeconfig {
  readonly kubeconfig: KubeConfig
  /** Where it came from, for logs (a path or "in-cluster"), never its contents. */
  readonly source: string
}

const SERVICE_ACCOUNT_TOKEN = "/var/run/secrets/kubernetes.io/serviceaccount/token"

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

/** The kubeconfig to use, or `undefined` when no cluster is configured anywhere. */
export const resolveKubeconfig = (
  flag: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
  home: string = homedir(),
): ResolvedKubeconfig | undefined => {
  if (flag !== undefined && flag !== "") return fromFile(flag, "--kubeconfig")
  const fromEnv = env.KUBECONFIG?.split(delimiter).find((p) => p !== "")
  if (fromEnv !== undefined) return fromFile(fromEnv, "KUBECONFIG")
  if (env.KUBERNETES_SERVICE_HOST !== undefined && existsSync(SERVICE_ACCOUNT_TOKEN)) {
    const kc = new KubeConfig()
    kc.loadFromCluster()
    return { kubeconfig: kc, source: "in-cluster" }
  }
  const fallback = join(home, ".kube", "config")
  return existsSync(fallback) ? fromFile(fallback, "kubeconfig") : undefined
}
