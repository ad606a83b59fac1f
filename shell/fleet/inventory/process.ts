/**
 * `krtt inventory` as a process: the manager's facilities (metrics or the authenticated
 * diagnostics endpoint, `/healthz` and `/readyz`, leader election, graceful stop — the same
 * `ManagerOptions` and servers as `krtt run`), then the provider and the multi-cluster manager
 * with the inventory's controllers, until interrupted.
 *
 * Expected flow: serve probes and metrics → (leader election: wait to lead) → build the provider
 * against the hub → add the inventory controllers → start the manager → `/readyz` turns ready →
 * on SIGTERM the scope closes: the controllers stop taking work and finish in-flight reconciles
 * (at most the graceful shutdown timeout), the Lease is released. A lost Lease ends the process
 * with an error, as in controller-runtime.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import type * as Scope from "effect/Scope"
import type { InventoryConfig } from "../../../core/inventory/index.ts"
import type { ResolvedKubeconfig } from "../../manager/kubeconfig.ts"
import type { ManagerOptions } from "../../manager/options.ts"
import { makeCluster, makeManager } from "../../multicluster/index.ts"
import { makeProvider, type ProviderFlags } from "../../multicluster/providers/index.ts"
import { startFleetProcess } from "../start.ts"
import { addToManager } from "./controller.ts"

/** Everything `krtt inventory` runs with. */
export interface InventoryRunOptions {
  readonly manager: ManagerOptions
  /** `--provider`: a provider name, or a comma-separated list (composed). */
  readonly provider: string
  readonly providerFlags: ProviderFlags
  /** `--namespace`: where `krtt-inventory` lives on the hub. */
  readonly namespace: string
  readonly config: Partial<InventoryConfig>
}

/** Runs the inventory until interrupted (or until the Lease is lost: an error). */
export const runInventory = (
  options: InventoryRunOptions,
  resolved: ResolvedKubeconfig,
): Effect.Effect<void, Error, Scope.Scope> =>
  Effect.gen(function* () {
    const m = options.manager
    const { client, ready, lost } = yield* startFleetProcess("inventory", m, resolved, {
      provider: options.provider,
      namespace: options.namespace,
    })

    const provider = yield* makeProvider(options.provider, client, options.providerFlags)
    const manager = yield* makeManager({ hub: yield* makeCluster({ client }), provider })
    yield* addToManager(manager, {
      namespace: options.namespace,
      config: options.config,
      gracefulShutdownTimeout: m.gracefulShutdownTimeout,
    })
    yield* manager.start
    yield* Ref.set(ready, true)
    yield* Effect.logInfo("krtt inventory started")
    yield* lost
  })
