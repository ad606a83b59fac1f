/**
 * The `cluster-inventory-api` provider: every SIG-Multicluster `ClusterProfile`
 * (`multicluster.x-k8s.io/v1alpha1`) of the hub is a cluster named `<namespace>/<name>`, reached
 * through its access providers with the consumer's exec plugins (upstream's
 * cluster-inventory-api provider with its access-provider strategy; `clusterProfileAccess.ts`).
 *
 * # Expected flow
 * A reflector lists and watches the ClusterProfiles (of one namespace, or all). A profile whose
 * `ControlPlaneHealthy` condition is `True` (upstream's default readiness) and that offers one of
 * the configured access providers is connected, health-gated and engaged by the engine
 * (`clusterSet.ts`); a changed endpoint or plugin invocation re-engages it; a profile that turns
 * not ready, loses its access provider or is deleted is disengaged.
 *
 * # Guarantees
 * - A profile that cannot be used is a clear reason in `clusters` (naming the profile and the
 *   field) and one log line; credentials never reach a log (the plugin prints them to the client).
 * - Changes that leave readiness and access as they were (properties, labels) change nothing.
 *
 * @module
 */
import { readFileSync } from "node:fs"
import { KubeConfig } from "@kubernetes/client-node"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import { informerCacheFactory } from "../../cache/informerCache.ts"
import type { CacheFactory } from "../../cache/types.ts"
import type { KubeClientShape } from "../../kube/client.ts"
import { make as makeReflector } from "../../reflector/reflector.ts"
import { ClusterName } from "../../workqueue/request.ts"
import type { Provider } from "../types.ts"
import {
  type AccessConfig,
  type ClusterProfile,
  ClusterProfiles,
  checkAccessConfig,
  isReady,
  profileKubeconfig,
} from "./clusterProfileAccess.ts"
import { ClusterSetDefaults, makeClusterSet } from "./clusterSet.ts"
import { checkKeys, type Given, ProviderUsageError, withDefaults } from "./errors.ts"
import { HealthDefaults, type HealthOptions } from "./health.ts"
import { type ClientFactory, makeClient, makeRestClientFactory } from "./kubeconfig.ts"

/** The provider's name, as `--provider` takes it (upstream's provider folder). */
export const ClusterProfileName = "cluster-inventory-api"

/** Options of the cluster-inventory-api provider. */
export interface ClusterProfileOptions {
  /** The consumer's access providers (`--provider-access-config FILE`, JSON). Required. */
  readonly accessConfig: AccessConfig
  /** Only ClusterProfiles of this namespace (`--provider-namespace`). Default: all namespaces. */
  readonly namespace: string | undefined
  /** Whether a profile is ready to engage. Default: `ControlPlaneHealthy` is `True` (upstream's). */
  readonly isReady: (profile: ClusterProfile) => boolean
  readonly health: HealthOptions
  readonly cacheFactory: CacheFactory
  readonly clientFactory: ClientFactory
  readonly syncTimeout: Duration.Input
}

/** The defaults of every option but `accessConfig`. */
export const ClusterProfileDefaults: Omit<ClusterProfileOptions, "accessConfig"> = {
  namespace: undefined,
  isReady,
  health: HealthDefaults,
  cacheFactory: informerCacheFactory,
  clientFactory: makeRestClientFactory(),
  syncTimeout: ClusterSetDefaults.syncTimeout,
}

const knownKeys = ["accessConfig", ...Object.keys(ClusterProfileDefaults)]

/** What a caller gives. */
export type ClusterProfileInput = Given<Omit<ClusterProfileOptions, "health">> & {
  readonly health?: Given<HealthOptions> | undefined
}

/** Reads and checks an access configuration file; the error names the flag and the field. */
export const readAccessConfig = (path: string | undefined): Effect.Effect<AccessConfig, ProviderUsageError> =>
  Effect.suspend(() => {
    const flag = "--provider-access-config"
    if (path === undefined || path === "")
      return Effect.fail(
        new ProviderUsageError({
          flag,
          message: `provider ${ClusterProfileName} needs ${flag}: a JSON file naming the access providers and their exec plugins`,
        }),
      )
    let parsed: unknown
    try {
      parsed = JSON.parse(readFileSync(path, "utf8"))
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code
      return Effect.fail(
        new ProviderUsageError({
          flag,
          message: `${flag} ${path}: ${code === undefined ? "not JSON" : `cannot be read (${code})`}`,
        }),
      )
    }
    return Effect.fromResult(checkAccessConfig(parsed, `${flag} ${path}`))
  })

/** Makes the provider; fails when `accessConfig` is missing or malformed, or an option is unknown. */
export const makeClusterProfileProvider = (
  hub: KubeClientShape,
  given: ClusterProfileInput,
): Effect.Effect<Provider, ProviderUsageError> =>
  Effect.gen(function* () {
    yield* checkKeys(`${ClusterProfileName} options`, given, knownKeys)
    const checked = yield* Effect.fromResult(
      checkAccessConfig(given.accessConfig, `${ClusterProfileName} options: accessConfig`),
    )
    const options: ClusterProfileOptions = {
      ...withDefaults(ClusterProfileDefaults, (({ accessConfig: _, health: __, ...rest }) => rest)(given)),
      accessConfig: checked,
      health: withDefaults(HealthDefaults, given.health ?? {}),
    }
    const set = makeClusterSet({
      provider: ClusterProfileName,
      health: options.health,
      cacheFactory: options.cacheFactory,
      syncTimeout: options.syncTimeout,
    })
    const nameOf = (p: ClusterProfile) =>
      ClusterName(`${p.metadata.namespace ?? ""}/${p.metadata.name ?? ""}`)

    const run: Provider["run"] = (aware) =>
      Effect.gen(function* () {
        const sink = yield* set.bind(aware)
        const onProfile = (profile: ClusterProfile) => {
          const name = nameOf(profile)
          if (!options.isReady(profile))
            return sink.reject(name, `ClusterProfile ${name} is not ready: ControlPlaneHealthy is not True`)
          const built = profileKubeconfig(profile, options.accessConfig)
          if (Result.isFailure(built)) return sink.reject(name, built.failure.message)
          const kubeconfig = new KubeConfig()
          kubeconfig.loadFromOptions(built.success)
          return sink.upsert({
            name,
            generation: built.success.generation,
            connect: Effect.map(makeClient(options.clientFactory, kubeconfig, name), (client) => ({
              client,
            })),
          })
        }
        const profiles = yield* makeReflector<ClusterProfile>(hub, {
          resource: ClusterProfiles,
          ...(options.namespace === undefined ? {} : { namespace: options.namespace }),
          name: `${ClusterProfileName}/clusterprofiles`,
        })
        yield* profiles.subscribe((event) =>
          event._tag === "Deleted" ? sink.remove(nameOf(event.object)) : onProfile(event.object),
        )
      })

    return {
      name: ClusterProfileName,
      get: set.get,
      indexField: set.indexField,
      run,
      clusters: set.clusters,
    } satisfies Provider
  })
