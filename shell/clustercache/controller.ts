/**
 * The ClusterCache controller: every Cluster of the management cluster is reconciled by the
 * ClusterCache service (one accessor per Cluster), requeued as the tables decide.
 *
 * @module
 */
import { Effect, type Scope } from "effect"
import { make as makeController } from "../controller/controller.ts"
import { done, requeueAfter } from "../controller/result.ts"
import { forObjects } from "../controller/source.ts"
import type { KubeObject } from "../kube/resource.ts"
import type { Reflector } from "../reflector/reflector.ts"
import type { ClusterCacheShape } from "./service.ts"

export interface ClusterCacheControllerOptions {
  /** Reconciles at a time (upstream's `--clustercache-concurrency`, default 100). */
  readonly concurrency: number
}

/** Makes the controller; `start` it in a scope. */
export const makeClusterCacheController = (
  cache: ClusterCacheShape,
  clusters: Reflector<KubeObject>,
  options: ClusterCacheControllerOptions,
): Effect.Effect<{ readonly start: Effect.Effect<void, never, Scope.Scope> }, never, Scope.Scope> =>
  Effect.gen(function* () {
    const controller = yield* makeController({
      name: "clustercache",
      maxConcurrentReconciles: options.concurrency,
      reconcile: (request) =>
        Effect.map(cache.reconcile({ namespace: request.namespace, name: request.name }), (outcome) => {
          const row = outcome.rows.at(-1)
          return outcome.requeueAfter === undefined ? done(row) : requeueAfter(outcome.requeueAfter, row)
        }),
    })
    yield* controller.watch(forObjects(clusters))
    return { start: controller.start }
  })
