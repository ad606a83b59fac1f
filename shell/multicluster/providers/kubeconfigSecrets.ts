/**
 * The `kubeconfig-secrets` provider: every Secret of one namespace of the hub labelled
 * `sigs.k8s.io/multicluster-runtime-kubeconfig: "true"` is a cluster, named by the Secret, reached
 * with the kubeconfig under its key `kubeconfig` (multicluster-runtime's kubeconfig provider:
 * label, key and naming as upstream).
 *
 * # Expected flow
 * A reflector lists and watches the labelled Secrets. A new Secret is connected, health-gated
 * and engaged by the engine (`clusterSet.ts`); a changed kubeconfig (new server or credentials,
 * told apart by a hash) disengages the old `Cluster` and engages a new one with the new
 * credentials, without a restart; a deleted Secret, or one that loses the label, disengages it.
 *
 * # Guarantees
 * - A malformed kubeconfig, a missing key or a kubeconfig with exec or auth-provider plugins is
 *   a clear reason in `clusters` and one log line; its contents never reach a log.
 * - Changes to a Secret that leave the kubeconfig as it was (labels, annotations) change nothing.
 *
 * @module
 */
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import { informerCacheFactory } from "../../cache/informerCache.ts"
import type { CacheFactory } from "../../cache/types.ts"
import type { KubeClientShape } from "../../kube/client.ts"
import { type KubeObject, Resources } from "../../kube/resource.ts"
import { make as makeReflector } from "../../reflector/reflector.ts"
import { ClusterName } from "../../workqueue/request.ts"
import type { Provider } from "../types.ts"
import { ClusterSetDefaults, makeClusterSet } from "./clusterSet.ts"
import { checkKeys, type Given, ProviderUsageError, withDefaults } from "./errors.ts"
import { HealthDefaults, type HealthOptions } from "./health.ts"
import {
  type ClientFactory,
  currentContextConfig,
  makeClient,
  makeRestClientFactory,
  parseKubeconfigText,
} from "./kubeconfig.ts"

/** The provider's name, as `--provider` takes it. */
export const KubeconfigSecretsName = "kubeconfig-secrets"

/** Options of the kubeconfig-secrets provider. */
export interface KubeconfigSecretsOptions {
  /** The hub namespace holding the Secrets (`--provider-namespace`). Required. */
  readonly namespace: string
  /** Which Secrets are clusters. Default `sigs.k8s.io/multicluster-runtime-kubeconfig=true` (upstream's label). */
  readonly labelSelector: string
  /** The data key holding the kubeconfig. Default `kubeconfig` (upstream's key). */
  readonly key: string
  /** Probes (default: seed 000's 10 s, 5 s, 5). */
  readonly health: HealthOptions
  /** Each cluster's cache. Default: the informer cache. */
  readonly cacheFactory: CacheFactory
  /** Each cluster's client. Default: the REST client with seed 000's client options. */
  readonly clientFactory: ClientFactory
  /** How long a cluster's cache may take to sync. Default 5 min. */
  readonly syncTimeout: Duration.Input
}

/** The defaults of every option but `namespace`. */
export const KubeconfigSecretsDefaults: Omit<KubeconfigSecretsOptions, "namespace"> = {
  labelSelector: "sigs.k8s.io/multicluster-runtime-kubeconfig=true",
  key: "kubeconfig",
  health: HealthDefaults,
  cacheFactory: informerCacheFactory,
  clientFactory: makeRestClientFactory(),
  syncTimeout: ClusterSetDefaults.syncTimeout,
}

const knownKeys = ["namespace", ...Object.keys(KubeconfigSecretsDefaults)]

type SecretObject = KubeObject & { readonly data?: Readonly<Record<string, string>> | undefined }

/** What a caller gives: any option, health field by field. */
export type KubeconfigSecretsInput = Given<Omit<KubeconfigSecretsOptions, "health">> & {
  readonly health?: Given<HealthOptions> | undefined
}

/** Makes the provider; fails when `namespace` is missing or an option is unknown. */
export const makeKubeconfigSecretsProvider = (
  hub: KubeClientShape,
  given: KubeconfigSecretsInput,
): Effect.Effect<Provider, ProviderUsageError> =>
  Effect.gen(function* () {
    yield* checkKeys(`${KubeconfigSecretsName} options`, given, knownKeys)
    if (given.namespace === undefined || given.namespace === "") {
      return yield* new ProviderUsageError({
        flag: "--provider-namespace",
        message: `provider ${KubeconfigSecretsName} needs --provider-namespace: the namespace of the kubeconfig Secrets`,
      })
    }
    const options: KubeconfigSecretsOptions = {
      ...withDefaults(KubeconfigSecretsDefaults, { ...given, health: undefined }),
      namespace: given.namespace,
      health: withDefaults(HealthDefaults, given.health ?? {}),
    }
    const set = makeClusterSet({
      provider: KubeconfigSecretsName,
      health: options.health,
      cacheFactory: options.cacheFactory,
      syncTimeout: options.syncTimeout,
    })

    const run: Provider["run"] = (aware) =>
      Effect.gen(function* () {
        const sink = yield* set.bind(aware)
        const onSecret = (secret: SecretObject) => {
          const name = ClusterName(secret.metadata.name ?? "")
          const where = `secret ${options.namespace}/${name}`
          const encoded = secret.data?.[options.key]
          if (encoded === undefined || encoded === "") {
            return sink.reject(name, `${where} has no data key "${options.key}"`)
          }
          const parsed = parseKubeconfigText(Buffer.from(encoded, "base64").toString("utf8"), where)
          if (Result.isFailure(parsed)) return sink.reject(name, parsed.failure.message)
          const context = currentContextConfig(parsed.success, where, false)
          if (Result.isFailure(context)) return sink.reject(name, context.failure.message)
          const { kubeconfig, generation } = context.success
          return sink.upsert({
            name,
            generation,
            connect: Effect.map(makeClient(options.clientFactory, kubeconfig, name), (client) => ({
              client,
            })),
          })
        }
        const secrets = yield* makeReflector<SecretObject>(hub, {
          resource: Resources.secrets,
          namespace: options.namespace,
          labelSelector: options.labelSelector,
          name: `${KubeconfigSecretsName}/secrets`,
        })
        yield* secrets.subscribe((event) =>
          event._tag === "Deleted"
            ? sink.remove(ClusterName(event.object.metadata.name ?? ""))
            : onSecret(event.object),
        )
      })

    return {
      name: KubeconfigSecretsName,
      get: set.get,
      indexField: set.indexField,
      run,
      clusters: set.clusters,
    } satisfies Provider
  })
