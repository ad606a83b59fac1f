/**
 * Reading a workload cluster's kubeconfig from its `<cluster>-kubeconfig` Secret (key `value`).
 *
 * Kubeconfigs with exec or auth-provider plugins are refused, as upstream's ClusterCache does:
 * the operator would run programs named by whoever can write the Secret. Error messages never
 * contain the kubeconfig's contents.
 *
 * @module
 */
import { KubeConfig } from "@kubernetes/client-node"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"

/** The kubeconfig Secret is missing, malformed or asks for something the cache does not allow. */
export class InvalidKubeconfigError extends Data.TaggedError("InvalidKubeconfigError")<{
  readonly message: string
}> {}

/** The name of a Cluster's kubeconfig Secret. */
export const kubeconfigSecretName = (cluster: string): string => `${cluster}-kubeconfig`

/** The key of the kubeconfig in the Secret's data. */
export const KUBECONFIG_KEY = "value"

/** Decodes the Secret's `data.value` (base64). */
export const kubeconfigFromSecret = (
  secret: { readonly data?: Readonly<Record<string, string>> | undefined },
  secretName: string,
): Effect.Effect<string, InvalidKubeconfigError> => {
  const encoded = secret.data?.[KUBECONFIG_KEY]
  if (encoded === undefined || encoded === "") {
    return Effect.fail(
      new InvalidKubeconfigError({ message: `secret ${secretName} has no data key "${KUBECONFIG_KEY}"` }),
    )
  }
  return Effect.succeed(Buffer.from(encoded, "base64").toString("utf8"))
}

/** Parses a kubeconfig and checks that the cache may use it. */
export const parseKubeconfig = (
  text: string,
  secretName: string,
): Effect.Effect<KubeConfig, InvalidKubeconfigError> =>
  Effect.suspend(() => {
    const kc = new KubeConfig()
    try {
      kc.loadFromString(text)
    } catch {
      // The parser's message may quote the document: say only where it came from.
      return Effect.fail(
        new InvalidKubeconfigError({ message: `secret ${secretName}: the kubeconfig does not parse` }),
      )
    }
    const context = kc.getCurrentContext()
    const cluster = kc.getCurrentCluster()
    const user = kc.getCurrentUser()
    if (context === "" || cluster === null) {
      return Effect.fail(
        new InvalidKubeconfigError({
          message: `secret ${secretName}: the kubeconfig has no current context with a cluster`,
        }),
      )
    }
    if (user?.exec !== undefined && user.exec !== null) {
      return Effect.fail(
        new InvalidKubeconfigError({
          message: `secret ${secretName}: kubeconfigs with exec plugins are not allowed`,
        }),
      )
    }
    if (user?.authProvider !== undefined && user.authProvider !== null) {
      return Effect.fail(
        new InvalidKubeconfigError({
          message: `secret ${secretName}: kubeconfigs with auth-provider plugins are not allowed`,
        }),
      )
    }
    return Effect.succeed(kc)
  })

/**
 * What a connection's informers depend on: the API server's address, the CA that proves it, and
 * how TLS and proxies reach it. Two kubeconfigs with the same endpoint differ only in their
 * credentials (token, client certificate, user), which new requests can take without
 * reconnecting. Compared as a string; never logged (it may hold a CA bundle).
 */
export const endpointOf = (kc: KubeConfig): string => {
  const c = kc.getCurrentCluster()
  return JSON.stringify([
    c?.server ?? "",
    c?.caData ?? "",
    c?.caFile ?? "",
    c?.tlsServerName ?? "",
    c?.skipTLSVerify ?? false,
    c?.proxyUrl ?? "",
  ])
}
