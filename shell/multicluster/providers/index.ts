/**
 * Package providers: the multi-cluster providers (seed 003, "Multi-Cluster Integrator" stories),
 * each a module with its own options object and defaults, all health-gated by one engine
 * (`clusterSet.ts`, `health.ts`). `makeProvider` picks one by name, for `krtt run`, `krtt
 * clusters` and sharding.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { parseGoDuration } from "../../../core/krtt/duration.ts"
import type { CacheFactory } from "../../cache/types.ts"
import type { KubeClientShape } from "../../kube/client.ts"
import type { Provider } from "../types.ts"
import { ClusterApiName, makeClusterApiProvider } from "./clusterApi.ts"
import { ClusterProfileName, makeClusterProfileProvider, readAccessConfig } from "./clusterProfile.ts"
import { composeProviders } from "./compose.ts"
import { closest, ProviderUsageError } from "./errors.ts"
import type { HealthOptions } from "./health.ts"
import { KubeconfigFileName, makeKubeconfigFileProvider } from "./kubeconfigFile.ts"
import { KubeconfigSecretsName, makeKubeconfigSecretsProvider } from "./kubeconfigSecrets.ts"
import { makeNamespacesProvider, NamespacesName } from "./namespaces.ts"

export {
  ClusterApiDefaults,
  ClusterApiName,
  type ClusterApiOptions,
  clusterApiName,
  type ExistingClusterCache,
  makeClusterApiProvider,
} from "./clusterApi.ts"
export {
  ClusterProfileDefaults,
  ClusterProfileName,
  type ClusterProfileOptions,
  makeClusterProfileProvider,
  readAccessConfig,
} from "./clusterProfile.ts"
export {
  type AccessConfig,
  type AccessProviderConfig,
  type ClusterProfile,
  ClusterProfiles,
  ProfileAccessError,
  profileKubeconfig,
} from "./clusterProfileAccess.ts"
export { ComposeName, ComposeSeparator, composedName, composeProviders } from "./compose.ts"
export { ProviderUsageError } from "./errors.ts"
export { HealthDefaults, type HealthOptions } from "./health.ts"
export {
  KubeconfigFileDefaults,
  KubeconfigFileName,
  type KubeconfigFileOptions,
  makeKubeconfigFileProvider,
} from "./kubeconfigFile.ts"
export {
  KubeconfigSecretsDefaults,
  KubeconfigSecretsName,
  type KubeconfigSecretsOptions,
  makeKubeconfigSecretsProvider,
} from "./kubeconfigSecrets.ts"
export { DefaultKubeconfigGlobs } from "./kubeconfigSources.ts"
export {
  confineCache,
  confineClient,
  makeNamespacesProvider,
  NamespacesDefaults,
  NamespacesName,
  type NamespacesOptions,
} from "./namespaces.ts"

/** The providers `makeProvider` knows, as `--provider` takes them. */
export const providerNames: ReadonlyArray<string> = [
  KubeconfigSecretsName,
  KubeconfigFileName,
  NamespacesName,
  ClusterApiName,
  ClusterProfileName,
]

/** The provider flags of the command line. */
export interface ProviderFlags {
  /** `--provider-namespace`: kubeconfig-secrets (required), cluster-api (optional: all namespaces). */
  readonly providerNamespace?: string
  /** `--provider-kubeconfig PATH`, repeatable: kubeconfig-file's files, directories and globs (one at least). */
  readonly providerKubeconfig?: string | ReadonlyArray<string>
  /** `--provider-access-config FILE`: cluster-inventory-api's access providers, JSON (required). */
  readonly providerAccessConfig?: string
  /**
   * `--provider-probe-interval DURATION` (Go syntax, `10s`): kubeconfig-secrets' and
   * kubeconfig-file's time between probes of a cluster (`HealthOptions.interval`, default 10s);
   * `0` turns the probes of engaged clusters off (`HealthOptions.probes`).
   */
  readonly providerProbeInterval?: string
  /** Each cluster's cache; the informer cache by default. */
  readonly cacheFactory?: CacheFactory
}

/** The health options `--provider-probe-interval` gives; fails naming the flag when malformed. */
export const probeIntervalHealth = (
  flag: string | undefined,
): Effect.Effect<Partial<HealthOptions>, ProviderUsageError> => {
  if (flag === undefined) return Effect.succeed({})
  const ms = parseGoDuration(flag.trim())
  if (ms === undefined)
    return Effect.fail(
      new ProviderUsageError({
        flag: "--provider-probe-interval",
        message: `--provider-probe-interval: "${flag}" is no duration (e.g. 10s, 1m; 0 turns the probes off)`,
      }),
    )
  return Effect.succeed(ms === 0 ? { probes: false } : { interval: ms })
}

/**
 * The provider called `name` over the hub's client; a comma-separated list (`kubeconfig-file,
 * namespaces`) composes them, their clusters named `<provider>#<cluster>`. Fails with
 * `ProviderUsageError` naming the flag at fault: an unknown name names the closest known one, a
 * missing required flag names it.
 */
export const makeProvider = (
  name: string,
  hub: KubeClientShape,
  flags: ProviderFlags,
): Effect.Effect<Provider, ProviderUsageError, Scope.Scope> => {
  const names = name.split(",").map((n) => n.trim())
  if (names.length > 1) {
    return Effect.flatMap(
      Effect.forEach(names, (n) => makeOne(n, hub, flags)),
      composeProviders,
    )
  }
  return makeOne(name.trim(), hub, flags)
}

const makeOne = (
  name: string,
  hub: KubeClientShape,
  flags: ProviderFlags,
): Effect.Effect<Provider, ProviderUsageError, Scope.Scope> =>
  Effect.suspend(() => {
    const cache = flags.cacheFactory === undefined ? {} : { cacheFactory: flags.cacheFactory }
    switch (name) {
      case KubeconfigSecretsName:
        return Effect.flatMap(probeIntervalHealth(flags.providerProbeInterval), (health) =>
          makeKubeconfigSecretsProvider(hub, { namespace: flags.providerNamespace, health, ...cache }),
        )
      case ClusterApiName:
        return makeClusterApiProvider(hub, { namespace: flags.providerNamespace, ...cache })
      case ClusterProfileName:
        return Effect.flatMap(readAccessConfig(flags.providerAccessConfig), (accessConfig) =>
          makeClusterProfileProvider(hub, { accessConfig, namespace: flags.providerNamespace, ...cache }),
        )
      case NamespacesName:
        return makeNamespacesProvider(hub, cache)
      case KubeconfigFileName:
        return Effect.flatMap(probeIntervalHealth(flags.providerProbeInterval), (health) =>
          makeKubeconfigFileProvider({
            paths:
              typeof flags.providerKubeconfig === "string"
                ? [flags.providerKubeconfig]
                : flags.providerKubeconfig,
            health,
            ...cache,
          }),
        )
      default: {
        const near = closest(name, providerNames)
        return Effect.fail(
          new ProviderUsageError({
            flag: "--provider",
            message: `--provider: unknown provider "${name}"${near === undefined ? "" : ` (did you mean "${near}"?)`}; known: ${providerNames.join(", ")}`,
          }),
        )
      }
    }
  })
