/**
 * Kubeconfigs as the kubeconfig providers read them: parsing that fails with an
 * `UnusableKubeconfigError` whose message never quotes the document, one `KubeConfig` per context, and a generation (a hash of what a context connects
 * with) that changes exactly when the endpoint or the credentials do.
 *
 * @module
 */
import { createHash } from "node:crypto"
import { KubeConfig } from "@kubernetes/client-node"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import type { KubeClientShape } from "../../kube/client.ts"
import type { ClientOptions } from "../../kube/options.ts"
import { makeRestClient } from "../../kube/restClient.ts"
import { ConnectFailedError } from "./clusterSet.ts"

/** Builds a cluster's client from its kubeconfig; replaceable (tests map servers to in-memory fakes). */
export type ClientFactory = (kubeconfig: KubeConfig, cluster: string) => Effect.Effect<KubeClientShape>

/** Clients of workload clusters: seed 000's ClientOptions (QPS 20, burst 30, timeout 10 s) by default. */
export const makeRestClientFactory =
  (options: Partial<ClientOptions> = {}): ClientFactory =>
  (kubeconfig) =>
    makeRestClient(kubeconfig, { userAgent: "krtt-provider", ...options })

/**
 * A kubeconfig (or one of its contexts) cannot be used: it does not parse, a context is missing
 * or names no known cluster, or its user needs plugins that are not allowed. The message says
 * where the kubeconfig came from and is safe for logs: it never quotes the document.
 */
export class UnusableKubeconfigError extends Data.TaggedError("UnusableKubeconfigError")<{
  readonly message: string
}> {}

const unusable = (message: string) => Result.fail(new UnusableKubeconfigError({ message }))

/** Parses kubeconfig YAML; the failure never contains the document. */
export const parseKubeconfigText = (
  text: string,
  where: string,
): Result.Result<KubeConfig, UnusableKubeconfigError> => {
  const kc = new KubeConfig()
  try {
    kc.loadFromString(text)
  } catch {
    // The parser's message may quote the document: say only where it came from.
    return unusable(`${where}: the kubeconfig does not parse`)
  }
  return Result.succeed(kc)
}

/** Whether a context's user runs a program (exec) or an auth-provider plugin. */
const pluginOf = (kc: KubeConfig): string | undefined => {
  const user = kc.getCurrentUser()
  if (user?.exec !== undefined && user.exec !== null) return "exec plugins"
  if (user?.authProvider !== undefined && user.authProvider !== null) return "auth-provider plugins"
  return undefined
}

/** One context of a kubeconfig, as a kubeconfig of its own with that context current. */
export interface ContextConfig {
  readonly context: string
  readonly kubeconfig: KubeConfig
  /** Hash of the context, its cluster and its user: changes with the endpoint or credentials. */
  readonly generation: string
}

/** A short hash of a value (for generations). */
export const hashOf = (value: unknown): string =>
  createHash("sha256").update(JSON.stringify(value)).digest("hex").slice(0, 16)

/**
 * The context `name` of `kc` as a kubeconfig of its own. Fails when the context has
 * no cluster, or (with `allowPlugins: false`) when its user needs exec or auth-provider plugins:
 * whoever writes a Secret must not make the operator run programs (upstream ClusterCache's rule).
 */
export const contextConfig = (
  kc: KubeConfig,
  name: string,
  where: string,
  allowPlugins: boolean,
): Result.Result<ContextConfig, UnusableKubeconfigError> => {
  const context = kc.getContextObject(name)
  if (context === null || context === undefined) return unusable(`${where}: no context "${name}"`)
  const cluster = kc.getCluster(context.cluster)
  if (cluster === null) return unusable(`${where}: context "${name}" names no known cluster`)
  const user = context.user === undefined ? null : kc.getUser(context.user)
  const one = new KubeConfig()
  one.loadFromOptions({
    clusters: [cluster],
    users: user === null ? [] : [user],
    contexts: [context],
    currentContext: name,
  })
  const plugin = pluginOf(one)
  if (plugin !== undefined && !allowPlugins)
    return unusable(`${where}: kubeconfigs with ${plugin} are not allowed`)
  return Result.succeed({ context: name, kubeconfig: one, generation: hashOf([context, cluster, user]) })
}

/** The current context of a kubeconfig, checked as `contextConfig` does. */
export const currentContextConfig = (
  kc: KubeConfig,
  where: string,
  allowPlugins: boolean,
): Result.Result<ContextConfig, UnusableKubeconfigError> => {
  const current = kc.getCurrentContext()
  if (current === "" || current === undefined)
    return unusable(`${where}: the kubeconfig has no current context`)
  return contextConfig(kc, current, where, allowPlugins)
}

/** Runs a client factory, turning a defect (a bad certificate, say) into a reason without details. */
export const makeClient = (
  factory: ClientFactory,
  kc: KubeConfig,
  cluster: string,
): Effect.Effect<KubeClientShape, ConnectFailedError> =>
  Effect.catchDefect(factory(kc, cluster), (defect) =>
    Effect.fail(
      new ConnectFailedError({
        message: `cannot build a client for ${cluster}: ${defect instanceof Error ? defect.name : "defect"}`,
      }),
    ),
  )
