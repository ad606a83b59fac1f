/**
 * Where the manager finds its cluster, in controller-runtime's order: `--kubeconfig`, the
 * `KUBECONFIG` environment variable, the in-cluster service account, `~/.kube/config`. Only
 * where: reading it (`kubeconfig.ts`) needs client-node, which a command without a cluster
 * never loads.
 *
 * @module
 */
import { existsSync } from "node:fs"
import { homedir } from "node:os"
import { delimiter, join } from "node:path"

/** A kubeconfig to read: a file (`what` names where its path came from, for errors) or in-cluster. */
export type KubeconfigSource =
  | { readonly _tag: "File"; readonly path: string; readonly what: string }
  | { readonly _tag: "InCluster" }

const SERVICE_ACCOUNT_TOKEN = "/var/run/secrets/kubernetes.io/serviceaccount/token"

/** Where the kubeconfig is, or `undefined` when no cluster is configured anywhere. */
export const findKubeconfig = (
  flag: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
  home: string = homedir(),
): KubeconfigSource | undefined => {
  if (flag !== undefined && flag !== "") return { _tag: "File", path: flag, what: "--kubeconfig" }
  const fromEnv = env.KUBECONFIG?.split(delimiter).find((p) => p !== "")
  if (fromEnv !== undefined) return { _tag: "File", path: fromEnv, what: "KUBECONFIG" }
  if (env.KUBERNETES_SERVICE_HOST !== undefined && existsSync(SERVICE_ACCOUNT_TOKEN))
    return { _tag: "InCluster" }
  const fallback = join(home, ".kube", "config")
  return existsSync(fallback) ? { _tag: "File", path: fallback, what: "kubeconfig" } : undefined
}
