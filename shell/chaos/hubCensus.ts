/**
 * The hub census: a single-cluster manager (no provider) beside the multi-cluster suite's, as a
 * user of `krtt/multicluster` runs one controller on its own cluster. A field index is added
 * before start (on a manager without a provider it reaches the hub only), the controller's watch
 * defaults to the hub (a manager without a provider runs its watches there), and each reconcile
 * logs the Secrets with a kubeconfig the namespace holds, as the hub's cache counts them through
 * the index. The log is in every run's digest; the manager stops with the process. It runs
 * without the harness's observers of work and informers, as every process outside the campaign
 * does, so the runtime's paths without them run too.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { done } from "../controller/result.ts"
import type { KubeClientShape } from "../kube/client.ts"
import { type KubeObject, Resources } from "../kube/resource.ts"
import {
  type BuilderError,
  type Cluster,
  controllerManagedBy,
  enqueueRequestsFromMapFunc,
  makeCluster,
  makeManager,
} from "../multicluster/index.ts"
import { ReflectorObserver } from "../reflector/observer.ts"
import { WorkObserver } from "../workqueue/observer.ts"
import { hasKubeconfig } from "./hubSecrets.ts"

const INDEX = "chaos-kubeconfig"

/** Starts the hub census on `client` (the management server's) until the scope closes. */
export const startHubCensus = (client: KubeClientShape): Effect.Effect<void, BuilderError, Scope.Scope> =>
  Effect.gen(function* () {
    const manager = yield* makeManager({ hub: yield* makeCluster({ client }) })
    yield* manager.indexField(Resources.secrets, INDEX, (o) => (hasKubeconfig(o) ? ["true"] : []))
    yield* controllerManagedBy(manager)
      .named("chaos-hub-census")
      .watches(
        Resources.secrets,
        enqueueRequestsFromMapFunc((o: KubeObject, c: Cluster) => [
          { cluster: c.name, namespace: o.metadata.namespace ?? "", name: "census" },
        ]),
      )
      .complete((request) =>
        Effect.gen(function* () {
          const hub = yield* manager.getCluster(request.cluster)
          const kubeconfigs = yield* hub.cache.list(Resources.secrets, {
            namespace: request.namespace,
            index: { name: INDEX, value: "true" },
          })
          yield* Effect.logInfo("hub census").pipe(
            Effect.annotateLogs({
              cluster: `"${hub.name}"`,
              namespace: request.namespace,
              kubeconfigs: kubeconfigs.map((o) => o.metadata.name).sort(),
            }),
          )
          return done()
        }),
      )
    yield* manager.start
  }).pipe(Effect.provideService(WorkObserver, undefined), Effect.provideService(ReflectorObserver, undefined))
