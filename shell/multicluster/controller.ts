/**
 * The multi-cluster controller: one reconciler, ONE shared work queue fair across clusters, and
 * per engaged cluster one source per watch (seed 003, Proposal: "cluster-aware controllers
 * implement the cluster.Aware interface and are responsible for starting watches on clusters
 * when they are engaged").
 *
 * # Expected flow
 * The manager engages the controller with the hub and with every provider cluster. For each
 * (controller, cluster) pair the controller feeds the engagement table
 * (`multicluster.engagement`, `core/multicluster/`) its triggers and performs the actions it
 * returns: start the cluster's cache, wait (at most 2 min) for the watches' informers to sync,
 * apply the manager's indexes, open the pair's engage scope and start one source per watch in
 * it, each with its own copy of the event handler (`DeepCopyFor`); when the cluster leaves, close
 * the engage scope. Every request the workers take is fed to the table too: reconciled, requeued
 * while the engagement is under way, or dropped (one log line per departure) when its cluster is
 * gone or not engaged.
 *
 * # Guarantees
 * - The table decides; this module only performs. State changes are synchronous (no lock at
 *   all), and I/O (waiting for a cache to sync) runs on a fiber of the pair's own lifetime scope,
 *   so a slow or hanging cluster delays only its own pair.
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
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import {
  absent,
  type Engagement,
  type EngagementAction,
  type EngagementConfig,
  type EngagementConfigOverrides,
  type EngagementOptions,
  type EngagementTrigger,
  engagementConfig,
  engagementTransition,
  sourcesFor,
  type WatchKind,
  type WatchSpec,
} from "../../core/multicluster/index.ts"
import { type Controller, make as makeController } from "../controller/controller.ts"
import type { Predicate } from "../controller/predicate.ts"
import { done, type ReconcileResult, requeueAfter } from "../controller/result.ts"
import type { KubeObject, ResourceRef } from "../kube/resource.ts"
import type { BackoffOptions } from "../workqueue/backoff.ts"
import type { Request } from "../workqueue/request.ts"
import { make as makeQueue, type WorkQueue } from "../workqueue/workQueue.ts"
import { withCluster } from "./context.ts"
import { type ClusterEventHandler, handlerFor } from "./handler.ts"
import { type ClusterAware, checkRequest, clusterRequest, type RequestType } from "./request.ts"
import type { Cluster, ClusterName, EngageFailed } from "./types.ts"

/**
 * Which clusters a controller, or one of its watches, engages with (seed 003,
 * "EngageWithDefaultCluster"; upstream's per-watch engage options). A watch's own options win
 * over the controller's.
 */
export interface EngageOptions {
  /** Engage with the hub `""`. Default: true without a provider, false with one. */
  readonly engageWithLocalCluster?: boolean | undefined
  /**
   * Engage with the provider's clusters. Default: true for `Watches`; `For`/`Owns` only when
   * they set it themselves (seed 003: they are the hub's).
   */
  readonly engageWithProviderClusters?: boolean | undefined
  /** Only provider clusters this accepts (evaluated when a cluster is added or replaced). */
  readonly clusterFilter?: ((cluster: Cluster) => boolean) | undefined
}

/** One watch of the controller, with its own engage options. */
export interface WatchDeclaration<T extends KubeObject = KubeObject, Req extends ClusterAware = Request>
  extends EngageOptions {
  readonly kind: WatchKind
  readonly resource: ResourceRef
  /** Only this namespace (all when absent). */
  readonly namespace?: string | undefined
  readonly handler: ClusterEventHandler<T, Req>
  readonly predicates?: ReadonlyArray<Predicate<T>> | undefined
}

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
}

/** What the controller needs from its manager. */
export interface ControllerHost {
  readonly hasProvider: boolean
  /** Adds the manager's field indexes to a cluster's cache (`ApplyIndexes`). */
  readonly applyIndexes: (cluster: Cluster) => Effect.Effect<void>
  /** Whether the provider reports the cluster unhealthy (its scope closing means unhealthy, not removed). */
  readonly unhealthyReason: (cluster: ClusterName) => Effect.Effect<string | undefined>
}

/** The state of one pair, for `krtt clusters`, tests and logs. */
export interface PairView {
  readonly cluster: ClusterName
  readonly state: Engagement["state"]["_tag"]
  readonly generation: string | undefined
  readonly dropped: number
}

/** A running multi-cluster controller. */
export interface MultiClusterController {
  readonly name: string
  readonly queue: WorkQueue
  /** Engages a cluster: its scope closing disengages it (seed 003's `Aware.Engage`). */
  readonly engage: (cluster: Cluster, scope: Scope.Scope) => Effect.Effect<void, EngageFailed>
  readonly disengage: (cluster: Cluster) => Effect.Effect<void>
  /** Starts the workers until the scope closes (then stops gracefully). */
  readonly start: Effect.Effect<void, never, Scope.Scope>
  /** The pairs this controller knows. */
  readonly pairs: Effect.Effect<ReadonlyArray<PairView>>
  /** Whether the pair (this controller, cluster) is engaged now. */
  readonly isEngaged: (cluster: ClusterName) => Effect.Effect<boolean>
  readonly inner: Controller<never>
}

interface Pair {
  engagement: Engagement
  /** The cluster of the current generation. */
  cluster: Cluster | undefined
  /** The provider's scope of the current generation: fibers of this pair's actions run in it. */
  lifetime: Scope.Scope | undefined
  /** The cluster filters' verdicts (the controller's and each watch's), taken when the cluster was added or replaced. */
  filter: Filters
  /** Engage scopes by generation (normally at most one). */
  readonly engageScopes: Map<string, Scope.Closeable>
}

type Verdict = "accept" | "reject" | undefined
interface Filters {
  readonly controller: Verdict
  readonly watches: ReadonlyMap<string, Verdict>
}
const noFilters: Filters = { controller: undefined, watches: new Map() }
const judge = (filter: ((cluster: Cluster) => boolean) | undefined, cluster: Cluster): Verdict =>
  filter === undefined ? undefined : filter(cluster) ? "accept" : "reject"

const watchName = (w: Pick<WatchDeclaration, "kind" | "resource" | "namespace">, i: number) =>
  `${w.kind}(${w.resource.group === "" ? "" : `${w.resource.group}/`}${w.resource.version}/${w.resource.kind}${
    w.namespace === undefined ? "" : ` in ${w.namespace}`
  })#${i}`

/** Makes a multi-cluster controller; its queue lives until the scope closes. */
export const make = <E, Req extends ClusterAware = Request>(
  host: ControllerHost,
  options: MultiClusterControllerOptions<E, Req>,
): Effect.Effect<MultiClusterController, never, Scope.Scope> =>
  Effect.gen(function* () {
    const { name } = options
    const requestType = (options.requestType ?? clusterRequest) as RequestType<Req>
    const config: EngagementConfig = engagementConfig(options.engagement)
    const queue = yield* makeQueue({ ...options, name, perClusterMetrics: true })
    const watches = options.watches.map((w, i) => ({ ...w, name: watchName(w, i) }))
    const pairs = new Map<ClusterName, Pair>()
    const controllerScope = yield* Effect.scope

    const optionsFor = (clusterName: ClusterName, filters: Filters): EngagementOptions => ({
      cluster: clusterName,
      hasProvider: host.hasProvider,
      engageWithLocalCluster: options.engageWithLocalCluster,
      engageWithProviderClusters: options.engageWithProviderClusters,
      clusterFilter: filters.controller,
      watches: watches.map(
        (w): WatchSpec => ({
          name: w.name,
          kind: w.kind,
          engageWithLocalCluster: w.engageWithLocalCluster,
          engageWithProviderClusters: w.engageWithProviderClusters,
          clusterFilter: filters.watches.get(w.name),
        }),
      ),
    })

    /** Queues the requests a handler made, skipping (and logging) those not of the request type. */
    const enqueue = (requests: ReadonlyArray<Req>, cluster: ClusterName) =>
      Effect.forEach(
        requests,
        (r) => {
          const bad = checkRequest(requestType.name, r)
          return bad === undefined
            ? queue.add(requestType.toQueue(r))
            : log("warn", "skipping a request that is not of the controller's request type", cluster, {
                error: bad.message,
              })
        },
        { discard: true },
      )

    const pairOf = (cluster: ClusterName): Pair => {
      let pair = pairs.get(cluster)
      if (pair === undefined) {
        pair = {
          engagement: absent,
          cluster: undefined,
          lifetime: undefined,
          filter: noFilters,
          engageScopes: new Map(),
        }
        pairs.set(cluster, pair)
      }
      return pair
    }

    const log = (level: "info" | "warn", message: string, cluster: ClusterName, extra: object = {}) =>
      (level === "info" ? Effect.logInfo(message) : Effect.logWarning(message)).pipe(
        Effect.annotateLogs({ controller: name, cluster, ...extra }),
      )

    /** Feeds one trigger to the table for a pair and performs the actions (returns the request-path ones). */
    const feed = (
      clusterName: ClusterName,
      trigger: EngagementTrigger,
    ): Effect.Effect<ReadonlyArray<EngagementAction>> =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const pair = pairOf(clusterName)
        const result = engagementTransition(
          {
            observed: pair.engagement,
            desired: optionsFor(clusterName, pair.filter),
            trigger,
            now,
          },
          config,
        )
        pair.engagement = result.status
        if (trigger._tag !== "RequestArrived")
          yield* Effect.logDebug("engagement").pipe(
            Effect.annotateLogs({
              controller: name,
              cluster: clusterName,
              trigger: trigger._tag,
              state: result.status.state._tag,
              row: result.row,
            }),
          )
        const requestPath: Array<EngagementAction> = []
        for (const action of result.actions) {
          if (
            action._tag === "Reconcile" ||
            action._tag === "RequeueRequest" ||
            action._tag === "DropRequest"
          )
            requestPath.push(action)
          else yield* perform(clusterName, pair, action, result.row)
        }
        return requestPath
      })

    /**
     * A cluster was just engaged: the watches whose handler replays (a fan-out) hand their
     * objects of every other engaged cluster to the handler again and queue the requests that
     * name this cluster. Without it, a hub object naming a cluster that the provider engages
     * after the object's event would wait for the object's next change.
     */
    const replayFor = (engaged: Cluster): Effect.Effect<void> =>
      Effect.forEach(
        [...pairs.values()],
        (other) => {
          const source = other.cluster
          if (source === undefined || source === engaged || other.engagement.state._tag !== "Engaged")
            return Effect.void
          const running = sourcesFor(optionsFor(source.name, other.filter))
          return Effect.forEach(
            watches.filter((w) => w.handler.replayOnEngage === true && running.includes(w.name)),
            (w) =>
              Effect.gen(function* () {
                const informer = yield* source.cache.getInformer(w.resource, { namespace: w.namespace })
                const handler = handlerFor(w.handler as ClusterEventHandler<KubeObject, Req>, source)
                const requests = informer.store
                  .list()
                  .flatMap((object) => handler.requests({ _tag: "Added", object }, source))
                  .filter((r) => r.cluster === engaged.name)
                yield* enqueue(requests, source.name)
              }).pipe(
                Effect.catch((e) =>
                  log("warn", "replaying a watch for a newly engaged cluster failed", source.name, {
                    engaged: engaged.name,
                    error: String(e),
                  }),
                ),
              ),
            { discard: true },
          )
        },
        { discard: true },
      )

    /** Runs an action's I/O on a fiber of the pair's lifetime scope and feeds its outcome back. */
    const background = (pair: Pair, work: Effect.Effect<void>) =>
      pair.lifetime === undefined
        ? Effect.void
        : Effect.asVoid(Effect.forkIn(work, pair.lifetime, { startImmediately: false }))

    /** The informers of the watches that apply to the pair's cluster (the table's `sourcesFor`). */
    const informersOf = (cluster: Cluster, pair: Pair) => {
      const names = sourcesFor(optionsFor(cluster.name, pair.filter))
      return watches
        .filter((w) => names.includes(w.name))
        .map((w) => ({ w, informer: cluster.cache.getInformer(w.resource, { namespace: w.namespace }) }))
    }

    const perform = (
      clusterName: ClusterName,
      pair: Pair,
      action: EngagementAction,
      row: string,
    ): Effect.Effect<void> => {
      const cluster = pair.cluster
      switch (action._tag) {
        case "StartCache":
          // The provider runs each cluster's cache from its first engagement: one per cluster,
          // shared by every controller; here it only has to exist.
          return cluster === undefined
            ? Effect.void
            : Effect.asVoid(
                Effect.forkIn(
                  feed(clusterName, { _tag: "CacheStarted", generation: action.generation }),
                  controllerScope,
                ),
              )
        case "WaitForCacheSync": {
          if (cluster === undefined) return Effect.void
          const wait = Effect.forEach(
            informersOf(cluster, pair),
            ({ informer }) => Effect.flatMap(informer, (i) => i.waitForSync),
            { concurrency: "unbounded", discard: true },
          )
          return background(
            pair,
            Effect.gen(function* () {
              const exit = yield* Effect.exit(Effect.timeoutOption(wait, Duration.millis(action.timeout)))
              const generation = action.generation
              const trigger: EngagementTrigger = Exit.isSuccess(exit)
                ? exit.value._tag === "Some"
                  ? { _tag: "CacheSynced", generation }
                  : {
                      _tag: "CacheSyncFailed",
                      generation,
                      timedOut: true,
                      error: `the informers did not sync within ${action.timeout} ms`,
                    }
                : {
                    _tag: "CacheSyncFailed",
                    generation,
                    timedOut: false,
                    error: exit.cause.reasons
                      .map((r) => (r._tag === "Fail" ? String((r.error as Error).message) : r._tag))
                      .join("; "),
                  }
              yield* feed(clusterName, trigger)
            }),
          )
        }
        case "ApplyIndexes":
          return cluster === undefined
            ? Effect.void
            : background(
                pair,
                Effect.andThen(
                  host.applyIndexes(cluster),
                  feed(clusterName, { _tag: "IndexesApplied", generation: action.generation }),
                ),
              )
        case "StartSources": {
          if (cluster === undefined || pair.lifetime === undefined) return Effect.void
          const lifetime = pair.lifetime
          return background(
            pair,
            Effect.gen(function* () {
              // The engagement may have been cancelled or replaced meanwhile: then start nothing.
              const now = pair.engagement.state
              if (now._tag !== "Engaging" || now.generation !== action.generation || pair.cluster !== cluster)
                return
              const old = pair.engageScopes.get(action.generation)
              if (old !== undefined) yield* Scope.close(old, Exit.void)
              const scope = yield* Scope.fork(lifetime)
              pair.engageScopes.set(action.generation, scope)
              const started = yield* Effect.exit(
                Effect.forEach(
                  watches.filter((w) => action.watches.includes(w.name)),
                  (w) =>
                    Effect.gen(function* () {
                      const informer = yield* cluster.cache.getInformer(w.resource, {
                        namespace: w.namespace,
                      })
                      const handler = handlerFor(w.handler as ClusterEventHandler<KubeObject, Req>, cluster)
                      const predicates = (w.predicates ?? []) as ReadonlyArray<Predicate<KubeObject>>
                      yield* informer
                        .subscribe((event) =>
                          predicates.every((p) => p(event))
                            ? enqueue(handler.requests(event, cluster), cluster.name)
                            : Effect.void,
                        )
                        .pipe(Scope.provide(scope))
                    }),
                  { discard: true },
                ),
              )
              yield* feed(
                clusterName,
                Exit.isSuccess(started)
                  ? { _tag: "SourcesStarted", generation: action.generation }
                  : {
                      _tag: "EngageFailed",
                      generation: action.generation,
                      step: "sources",
                      error: String(started.cause),
                    },
              )
              if (pair.engagement.state._tag === "Engaged" && pair.cluster === cluster)
                yield* replayFor(cluster)
            }),
          )
        }
        case "CancelEngageScope": {
          const scope = pair.engageScopes.get(action.generation)
          if (scope === undefined) return Effect.void
          pair.engageScopes.delete(action.generation)
          return Scope.close(scope, Exit.void)
        }
        case "RetryAfter":
          return Effect.asVoid(
            Effect.forkIn(
              Effect.andThen(
                Effect.sleep(Duration.millis(action.after)),
                feed(clusterName, { _tag: "RetryDue" }),
              ),
              pair.lifetime ?? controllerScope,
            ),
          )
        case "Log":
          return log(action.level, action.message, clusterName, { row })
        case "Reconcile":
        case "RequeueRequest":
        case "DropRequest":
          return Effect.void
      }
    }

    const inner = yield* makeController<never, never>({
      ...options,
      name,
      queue,
      perClusterMetrics: true,
      reconcile: (request) =>
        Effect.gen(function* () {
          const actions = yield* feed(request.cluster, {
            _tag: "RequestArrived",
            namespace: request.namespace,
            name: request.name,
          })
          for (const action of actions) {
            if (action._tag === "Reconcile") {
              const cluster = pairs.get(request.cluster)?.cluster
              const run = options.reconcile(requestType.fromQueue(request))
              return yield* cluster === undefined ? run : withCluster(cluster)(run)
            }
            if (action._tag === "RequeueRequest") return requeueAfter(Duration.millis(action.after))
            if (action._tag === "DropRequest") {
              if (action.log)
                yield* Effect.logInfo("dropping requests of a cluster that is not engaged").pipe(
                  Effect.annotateLogs({
                    controller: name,
                    request: requestType.format(requestType.fromQueue(request)),
                    reason: action.reason,
                    detail: action.detail,
                  }),
                )
              return done()
            }
          }
          return done()
        }) as Effect.Effect<ReconcileResult, never>,
    })

    const engage = (cluster: Cluster, scope: Scope.Scope): Effect.Effect<void, EngageFailed> =>
      Effect.gen(function* () {
        const pair = pairOf(cluster.name)
        const replacing =
          pair.cluster !== undefined &&
          pair.engagement.state._tag !== "Absent" &&
          pair.cluster.generation !== cluster.generation
        pair.cluster = cluster
        pair.lifetime = scope
        // Filters apply to provider clusters only (upstream's WithClusterFilter).
        pair.filter =
          cluster.name === ""
            ? noFilters
            : {
                controller: judge(options.clusterFilter, cluster),
                watches: new Map(watches.map((w) => [w.name, judge(w.clusterFilter, cluster)])),
              }
        yield* Scope.addFinalizer(
          scope,
          Effect.suspend(() => {
            // Only the generation this scope belongs to leaves; a newer one stays.
            if (pair.cluster !== cluster) return Effect.void
            return Effect.flatMap(host.unhealthyReason(cluster.name), (reason) =>
              Effect.andThen(
                feed(
                  cluster.name,
                  reason === undefined ? { _tag: "ClusterRemoved" } : { _tag: "ClusterUnhealthy", reason },
                ),
                Effect.sync(() => {
                  if (pair.cluster === cluster) pair.lifetime = undefined
                }),
              ),
            )
          }),
        )
        const wasUnhealthy = pair.engagement.state._tag === "Unhealthy"
        yield* feed(
          cluster.name,
          replacing
            ? { _tag: "CredentialsChanged", generation: cluster.generation }
            : wasUnhealthy
              ? { _tag: "ClusterHealthy" }
              : { _tag: "ClusterAdded", generation: cluster.generation },
        )
      })

    return {
      name,
      queue,
      engage,
      disengage: (cluster) =>
        Effect.gen(function* () {
          const pair = pairs.get(cluster.name)
          if (pair === undefined || pair.cluster !== cluster) return
          yield* feed(cluster.name, { _tag: "ClusterRemoved" })
        }),
      start: inner.start,
      pairs: Effect.sync(() =>
        [...pairs.entries()].map(([cluster, p]) => ({
          cluster,
          state: p.engagement.state._tag,
          generation: "generation" in p.engagement.state ? p.engagement.state.generation : undefined,
          dropped: p.engagement.dropped,
        })),
      ),
      isEngaged: (cluster) => Effect.sync(() => pairs.get(cluster)?.engagement.state._tag === "Engaged"),
      inner,
    }
  })
