/**
 * The operator's controllers, assembled once for every process that runs them: `krtt run`
 * (`run.ts`, on the REST client, its flags and feature gates) and the chaos harness's operator
 * suite (`shell/chaos/operatorSuite.ts`, on a fault-injecting client of the in-memory API server).
 * What differs between them is data (`OperatorOptions`); the wiring is this module's.
 *
 * Expected flow: the Cluster reflector (namespace and watch filter applied) → the reflector of the
 * Clusters' Secrets (label-selected, as upstream's secret cache), waited for → the ClusterCache
 * over both → the ClusterCache controller → the Cluster controller → `start` forks every
 * controller's workers into the caller's scope.
 *
 * Guarantees: nothing reconciles before `start`; the controllers' workers, the reflectors and the
 * ClusterCache's connections stop when the scope `make` ran in closes.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type { ClusterControllerConfig } from "../../core/cluster/config.ts"
import { ClusterNameLabel } from "../../core/cluster/contract.ts"
import type { FeatureGates } from "../../core/cluster/types.ts"
import type { ClusterCacheConfig } from "../../core/clustercache/config.ts"
import { makeClusterController } from "../cluster/controller.ts"
import { makeClusterCacheController } from "../clustercache/controller.ts"
import {
  type ClusterCacheShape,
  ClusterResource,
  type ConnectionFactory,
  make as makeClusterCache,
} from "../clustercache/service.ts"
import { KubeClient, type KubeClientShape } from "../kube/client.ts"
import { type KubeObject, Resources } from "../kube/resource.ts"
import { make as makeReflector, type Reflector } from "../reflector/reflector.ts"

/** The operator's controllers, by the names `krtt chaos --controllers` and the manager's log use. */
export type OperatorController = "clustercache" | "cluster"

/** What the operator is assembled with. */
export interface OperatorOptions {
  /** Reconcile only Clusters (and read only Secrets) of this namespace; absent: all namespaces. */
  readonly namespace?: string | undefined
  /** A label selector the Clusters must match (`--watch-filter`); absent: every Cluster. */
  readonly clusterSelector?: string | undefined
  /** The ClusterCache's numbers (its clients' QPS, burst, timeout); absent: its defaults. */
  readonly clusterCacheConfig?: ClusterCacheConfig | undefined
  /** How the ClusterCache connects to a workload cluster; absent: over HTTP with the REST client. */
  readonly connectionFactory?: ConnectionFactory | undefined
  /** ClusterCache reconciles at a time. */
  readonly clusterCacheConcurrency: number
  /** Cluster controller reconciles at a time. */
  readonly clusterConcurrency: number
  readonly featureGates?: FeatureGates | undefined
  readonly clusterConfig?: ClusterControllerConfig | undefined
  /** Every Cluster is reconciled again at least this often; absent or 0: only on events and requeues. */
  readonly syncPeriod?: number | undefined
  /** Which controllers run; absent: both. */
  readonly controllers?: ReadonlyArray<OperatorController> | undefined
}

/** The assembled operator, not yet reconciling. */
export interface Operator {
  /** The Clusters the operator reconciles (its readiness: this reflector has synced). */
  readonly clusters: Reflector<KubeObject>
  readonly cache: ClusterCacheShape
  /** The controllers that run, in the order they start. */
  readonly controllers: ReadonlyArray<OperatorController>
  /** Starts the controllers: each forks its workers into the scope. */
  readonly start: Effect.Effect<void, never, Scope.Scope>
}

/** Assembles the operator's controllers on `client`, in the scope. */
export const make = (
  client: KubeClientShape,
  options: OperatorOptions,
): Effect.Effect<Operator, never, Scope.Scope> =>
  Effect.gen(function* () {
    const runs = (c: OperatorController) =>
      options.controllers === undefined || options.controllers.includes(c)
    const clusters = yield* makeReflector(client, {
      resource: ClusterResource,
      name: "clusters",
      namespace: options.namespace,
      labelSelector: options.clusterSelector,
    })
    // The Clusters' Secrets (kubeconfig, CA), label-selected as upstream's secret cache: read
    // without a request per reconcile, and a rotated kubeconfig is noticed from its events.
    const secrets = yield* makeReflector(client, {
      resource: Resources.secrets,
      name: "secrets",
      namespace: options.namespace,
      labelSelector: ClusterNameLabel,
    })
    yield* secrets.waitForSync
    const cache = yield* makeClusterCache({
      config: options.clusterCacheConfig,
      connectionFactory: options.connectionFactory,
      clusters: clusters.store,
      secrets: secrets.store,
    }).pipe(Effect.provideService(KubeClient, client))
    const starts: Array<Effect.Effect<void, never, Scope.Scope>> = []
    const controllers: Array<OperatorController> = []
    if (runs("clustercache")) {
      const controller = yield* makeClusterCacheController(cache, clusters, {
        concurrency: options.clusterCacheConcurrency,
        secrets,
      })
      starts.push(controller.start)
      controllers.push("clustercache")
    }
    if (runs("cluster")) {
      const controller = yield* makeClusterController(
        { client, clusters, cache },
        {
          concurrency: options.clusterConcurrency,
          featureGates: options.featureGates,
          config: options.clusterConfig,
          syncPeriod: options.syncPeriod,
          secrets: secrets.store,
        },
      )
      starts.push(controller.start)
      controllers.push("cluster")
    }
    return {
      clusters,
      cache,
      controllers,
      start: Effect.forEach(starts, (start) => start, { discard: true }),
    }
  })
