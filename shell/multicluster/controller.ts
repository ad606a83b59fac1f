/**
 * The multi-cluster controller: one reconciler, ONE shared work queue fair across clusters, and
 * per engaged cluster one source per watch (seed 003, Proposal: "cluster-aware controllers
 * implement the cluster.Aware interface and are responsible for starting watches on clusters
 * when they are engaged").
 *
 * # Expected flow
 * The manager engages the controller with the hub and with every provider cluster. For each
 * (controller, cluster) pair the controller runs the engagement table (`multicluster.engagement`,
 * `core/multicluster/`) on the shared table runner, one run per trigger: the provider's calls
 * (`engage.ts`), timers and finished steps, and every request a worker takes (`reconcile.ts`).
 * `observe.ts` decides, `interpret.ts` carries out the actions: open the pair's engage scope,
 * wait (at most 2 min) for the watches' informers to sync, apply the manager's indexes, start one
 * source per watch in the engage scope, each with its own copy of the event handler
 * (`DeepCopyFor`, `watches.ts`); when the cluster leaves, close the engage scope. A request is
 * reconciled, requeued while the engagement is under way, or dropped (one log line per
 * departure) when its cluster is gone or not engaged.
 *
 * # Guarantees
 * - The table decides; the other modules only carry out. State changes are synchronous (no lock
 *   at all), and I/O (waiting for a cache to sync) runs on fibers of the pair's engage scope, so
 *   a slow or hanging cluster delays only its own pair (`pairs.ts`).
 * - Each watch runs on the clusters its own engage options and filter select (the controller's
 *   options are their defaults): by default `For`/`Owns` on the hub, `Watches` on provider
 *   clusters (the hub too without a provider).
 * - Requests are `{cluster, namespace, name}` (printed `cluster://<cluster>/<namespace>/<name>`)
 *   or of the controller's own `RequestType`; a request a handler makes that is not of the type
 *   (no `cluster` string, not JSON data) is logged and skipped.
 * - While a reconcile runs, `currentCluster`/`clusterFromContext` (`context.ts`) give its cluster.
 *
 * @module
 */
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { type EngagementConfigOverrides, engagementConfig } from "../../core/multicluster/index.ts"
import { type Controller, make as makeController } from "../controller/controller.ts"
import type { ReconcileResult } from "../controller/result.ts"
import type { BackoffOptions, BucketOptions } from "../workqueue/backoff.ts"
import type { Request } from "../workqueue/request.ts"
import { make as makeQueue, type WorkQueue } from "../workqueue/workQueue.ts"
import { type ControllerHost, type ControllerState, nameWatches } from "./controllerState.ts"
import { disengage, engage } from "./engage.ts"
import { feedFor } from "./engagementRun.ts"
import { type PairView, pairViews } from "./pairs.ts"
import { reconcileRequest } from "./reconcile.ts"
import { type ClusterAware, clusterRequest, type RequestType } from "./request.ts"
import type { Cluster, ClusterName, EngageFailedError } from "./types.ts"
import type { EngageOptions, WatchDeclaration } from "./watchOptions.ts"

/** Options of a multi-cluster controller. */
export interface MultiClusterControllerOptions<E, Req extends ClusterAware = Request>
  extends EngageOptions,
    Partial<BackoffOptions> {
  readonly name: string
  readonly reconcile: (request: Req) => Effect.Effect<ReconcileResult, E>
  /** The request type; default `clusterRequest`, `{cluster, namespace, name}`. */
  readonly requestType?: RequestType<Req> | undefined
  readonly watches: ReadonlyArray<WatchDeclaration<never, Req>>
  /** Workers. Default 1. */
  readonly maxConcurrentReconciles?: number | undefined
  readonly gracefulShutdownTimeout?: Duration.Input | undefined
  /** The engagement table's numbers (cache sync timeout 2 min, engage retry 1 s … 5 min, …). */
  readonly engagement?: EngagementConfigOverrides | undefined
  /** The token bucket the shared queue's retries take turns in. Default 10 qps, burst 100 (`BucketDefaults`). */
  readonly bucket?: Partial<BucketOptions> | undefined
}

/** A running multi-cluster controller. */
export interface MultiClusterController {
  readonly name: string
  readonly queue: WorkQueue
  /** Engages a cluster: its scope closing disengages it (seed 003's `Aware.Engage`). */
  readonly engage: (cluster: Cluster, scope: Scope.Scope) => Effect.Effect<void, EngageFailedError>
  readonly disengage: (cluster: Cluster) => Effect.Effect<void>
  /** Starts the workers until the scope closes (then stops gracefully). */
  readonly start: Effect.Effect<void, never, Scope.Scope>
  /** The pairs this controller knows. */
  readonly pairs: Effect.Effect<ReadonlyArray<PairView>>
  /** Whether the pair (this controller, cluster) is engaged now. */
  readonly isEngaged: (cluster: ClusterName) => Effect.Effect<boolean>
  readonly inner: Controller<never>
}

/** The controllers `make` made (for the manager's `controllers`). */
const made = new WeakSet<object>()

/** Whether a runnable is a multi-cluster controller made by `make`. */
export const isMultiClusterController = (runnable: object): runnable is MultiClusterController =>
  made.has(runnable)

/** Makes a multi-cluster controller; its queue lives until the scope closes. */
export const make = <E, Req extends ClusterAware = Request>(
  host: ControllerHost,
  options: MultiClusterControllerOptions<E, Req>,
): Effect.Effect<MultiClusterController, never, Scope.Scope> =>
  Effect.gen(function* () {
    const { name } = options
    const state: ControllerState<Req> = {
      name,
      host,
      engage: options,
      config: engagementConfig(options.engagement),
      requestType: (options.requestType ?? clusterRequest) as RequestType<Req>,
      watches: nameWatches(options.watches),
      queue: yield* makeQueue({ ...options, name, perClusterMetrics: true }),
      scope: yield* Effect.scope,
      pairs: new Map(),
    }
    const feed = feedFor(state)
    const inner = yield* makeController({
      ...options,
      name,
      queue: state.queue,
      perClusterMetrics: true,
      reconcile: reconcileRequest(state, options.reconcile),
    })
    const controller: MultiClusterController = {
      name,
      queue: state.queue,
      engage: engage(state, feed),
      disengage: disengage(state, feed),
      start: inner.start,
      pairs: Effect.sync(() => pairViews(state.pairs)),
      isEngaged: (cluster) =>
        Effect.sync(() => state.pairs.get(cluster)?.engagement.state._tag === "Engaged"),
      inner,
    }
    made.add(controller)
    return controller
  })
