/**
 * `krtt propagate` as a process: the manager's facilities (metrics or the authenticated
 * diagnostics endpoint, `/healthz` and `/readyz`, leader election, graceful stop: the same
 * `ManagerOptions` and servers as `krtt run`), then the provider (every cluster on the scoped
 * cache) and the multi-cluster manager with the propagation controllers, until interrupted.
 *
 * Expected flow: serve probes and metrics → (leader election: wait to lead) → build the provider
 * against the hub, its clusters' caches scoped (`makeScopedCacheFactory`, permissions re-checked
 * every `permissionRecheckInterval`) → add the controllers → start the manager → `/readyz` turns
 * ready → on SIGTERM the scope closes (in-flight reconciles finish within the graceful shutdown
 * timeout, the Lease is released). A lost Lease ends the process with an error.
 *
 * @module
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import type * as Scope from "effect/Scope"
import { type PropagateConfig, PropagateConfigError, propagateConfig } from "../../../core/propagate/index.ts"
import type { ResolvedKubeconfig } from "../../manager/kubeconfig.ts"
import type { ManagerOptions } from "../../manager/options.ts"
import { makeCluster, makeManager } from "../../multicluster/index.ts"
import { makeProvider, type ProviderFlags } from "../../multicluster/providers/index.ts"
import { makeScopedCacheFactory } from "../../scopedcache/index.ts"
import { startFleetProcess } from "../start.ts"
import { addToManager } from "./controller.ts"
import { kubeconfigSecretLabels } from "./observe.ts"

/** Everything `krtt propagate` runs with. */
export interface PropagateRunOptions {
  readonly manager: ManagerOptions
  /** `--provider`: a provider name, or a comma-separated list (composed). */
  readonly provider: string
  readonly providerFlags: Omit<ProviderFlags, "cacheFactory">
  /** `--namespace`: where `krtt-propagate-pending` lives on the hub. */
  readonly namespace: string
  readonly config: Partial<PropagateConfig>
}

/**
 * The workload clusters' cache: the scoped cache, each new informer reviewed first (a namespace
 * the identity may not read is `Forbidden` at once: `propagate.copy#7`) and every running one
 * re-reviewed every `permissionRecheckInterval` (a revoked Role is noticed within it).
 */
export const makePropagateCacheFactory = (config: PropagateConfig) =>
  makeScopedCacheFactory({
    accessReview: true,
    permissionRecheckInterval: Duration.millis(config.permissionRecheckInterval),
  })

/** Runs the propagation until interrupted (or until the Lease is lost: an error). */
export const runPropagate = (
  options: PropagateRunOptions,
  resolved: ResolvedKubeconfig,
): Effect.Effect<void, Error, Scope.Scope> =>
  Effect.gen(function* () {
    const m = options.manager
    const config = yield* Effect.try({
      try: () => propagateConfig(options.config),
      catch: (e) =>
        e instanceof PropagateConfigError ? e : new PropagateConfigError({ message: String(e) }),
    })
    const { client, ready, lost } = yield* startFleetProcess("propagate", m, resolved, {
      provider: options.provider,
    })
    const cacheFactory = makePropagateCacheFactory(config)
    const provider = yield* makeProvider(options.provider, client, {
      ...options.providerFlags,
      cacheFactory,
    })
    const manager = yield* makeManager({ hub: yield* makeCluster({ client }), provider })
    // kubeconfig-secrets: a cluster's labels for krtt.io/propagation are its Secret's.
    const secretsNamespace = options.providerFlags.providerNamespace
    const clusterLabels =
      options.provider.trim() === "kubeconfig-secrets" && secretsNamespace !== undefined
        ? kubeconfigSecretLabels(manager, secretsNamespace)
        : undefined
    yield* addToManager(manager, client, {
      pendingNamespace: options.namespace,
      config,
      clusterLabels,
      // namespaces: a logical cluster is one namespace; copies go into it.
      ...(options.provider.trim() === "namespaces" ? { copyNamespace: () => "" } : {}),
    })
    yield* manager.start
    yield* Ref.set(ready, true)
    yield* Effect.logInfo("krtt propagate started")
    yield* lost
  })
