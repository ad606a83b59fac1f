/**
 * The ClusterCache controller: every Cluster of the management cluster is reconciled by the
 * ClusterCache service (one accessor per Cluster), requeued as the tables decide.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { make as makeController } from "../controller/controller.ts"
import { enqueueRequestForObject, enqueueRequestsFromMapFunc } from "../controller/handler.ts"
import { done, requeueAfter } from "../controller/result.ts"
import * as Source from "../controller/source.ts"
import type { KubeObject } from "../kube/resource.ts"
import type { Reflector } from "../reflector/reflector.ts"
import { makeRequest } from "../workqueue/request.ts"
import type { ClusterCacheShape } from "./service.ts"

/** Options of the ClusterCache's controller. */
export interface ClusterCacheControllerOptions {
  /** Reconciles at a time (upstream's `--clustercache-concurrency`, default 100). */
  readonly concurrency: number
  /**
   * The reflector of the Clusters' Secrets: a change of `<cluster>-kubeconfig` reconciles its
   * Cluster at once, so that a rotated kubeconfig is used without waiting for the old one to fail.
   */
  readonly secrets?: Reflector<KubeObject> | undefined
}

const KUBECONFIG_SUFFIX = "-kubeconfig"

/** The Cluster a `<cluster>-kubeconfig` Secret belongs to. */
export const clusterOfKubeconfigSecret = (o: KubeObject) => {
  const name = o.metadata.name ?? ""
  return name.endsWith(KUBECONFIG_SUFFIX) && name.length > KUBECONFIG_SUFFIX.length
    ? [makeRequest({ namespace: o.metadata.namespace ?? "", name: name.slice(0, -KUBECONFIG_SUFFIX.length) })]
    : []
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
      forKind: { group: "cluster.x-k8s.io", kind: "Cluster" },
      maxConcurrentReconciles: options.concurrency,
      reconcile: (request) =>
        Effect.map(cache.reconcile({ namespace: request.namespace, name: request.name }), (outcome) => {
          const row = outcome.rows.at(-1)
          return outcome.requeueAfter === undefined ? done(row) : requeueAfter(outcome.requeueAfter, row)
        }),
    })
    yield* controller.watch(Source.kind(clusters, enqueueRequestForObject()))
    if (options.secrets !== undefined)
      yield* controller.watch(
        Source.kind(
          options.secrets,
          enqueueRequestsFromMapFunc(clusterOfKubeconfigSecret, "kubeconfig Secrets"),
        ),
      )
    return { start: controller.start }
  })
