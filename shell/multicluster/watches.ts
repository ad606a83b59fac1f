/**
 * The watches of a multi-cluster controller on one cluster: the informers they need, one source
 * per watch in the engagement's scope, and the replay of fan-out watches when a cluster is
 * engaged.
 *
 * # Expected flow
 * While the pair engages, `syncInformers` waits for the informers of the watches that run on the
 * cluster (`WaitForCacheSync`), then `startSources` subscribes each listed watch, with its own
 * copy of the event handler (`handlerFor`, seed 003's `DeepCopyFor`), in the engage scope
 * (`StartSources`). Once the pair is engaged, `replayFor` hands the objects of every other
 * engaged cluster to the watches whose handler replays (a fan-out) and queues the requests
 * naming the new cluster.
 *
 * # Guarantees
 * - A source lives exactly as long as the engage scope it was started in.
 * - Every request a handler makes passes `enqueue`: one not of the controller's request type (no
 *   `cluster` string, not JSON data) is logged and skipped, never queued.
 * - A replay that fails is logged and stops nothing else.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import * as Scope from "effect/Scope"
import type { CacheError } from "../cache/types.ts"
import type { Predicate } from "../controller/predicate.ts"
import type { KubeObject } from "../kube/resource.ts"
import { type ControllerState, logFor, type NamedWatch } from "./controllerState.ts"
import { handlerFor } from "./handler.ts"
import { runningWatches } from "./observe.ts"
import { type ClusterAware, checkRequest } from "./request.ts"
import type { Cluster, ClusterName } from "./types.ts"

/** Queues the requests a handler made, skipping (and logging) those not of the request type. */
export const enqueue = <Req extends ClusterAware>(
  state: ControllerState<Req>,
  requests: ReadonlyArray<Req>,
  cluster: ClusterName,
): Effect.Effect<void> =>
  Effect.forEach(
    requests,
    (r) => {
      const bad = checkRequest(state.requestType.name, r)
      return bad === undefined
        ? state.queue.add(state.requestType.toQueue(r))
        : logFor(state, "warn", "skipping a request that is not of the controller's request type", cluster, {
            error: bad.message,
          })
    },
    { discard: true },
  )

const informerOf = <Req extends ClusterAware>(cluster: Cluster, w: NamedWatch<Req>) =>
  cluster.cache.getInformer(w.resource, { namespace: w.namespace })

/** Waits until the informers of the watches that run on `cluster` have synced. */
export const syncInformers = <Req extends ClusterAware>(
  state: ControllerState<Req>,
  cluster: Cluster,
): Effect.Effect<void, CacheError> => {
  const names = runningWatches(state, cluster.name)
  return Effect.forEach(
    state.watches.filter((w) => names.includes(w.name)),
    (w) => Effect.flatMap(informerOf(cluster, w), (i) => i.waitForSync),
    { concurrency: "unbounded", discard: true },
  )
}

/** Starts one source per watch of `names` on `cluster`; each lives until `scope` closes. */
export const startSources = <Req extends ClusterAware>(
  state: ControllerState<Req>,
  cluster: Cluster,
  names: ReadonlyArray<string>,
  scope: Scope.Scope,
): Effect.Effect<void, CacheError> =>
  Effect.forEach(
    state.watches.filter((w) => names.includes(w.name)),
    (w) =>
      Effect.gen(function* () {
        const informer = yield* informerOf(cluster, w)
        const handler = handlerFor(w.handler, cluster)
        const predicates = (w.predicates ?? []) as ReadonlyArray<Predicate<KubeObject>>
        yield* informer.subscribe((event) =>
          predicates.every((p) => p(event))
            ? enqueue(state, handler.requests(event, cluster), cluster.name)
            : Effect.void,
        )
      }).pipe(Scope.provide(scope)),
    { discard: true },
  )

/** The requests for `engaged` that a replaying watch makes of the objects of `source`. */
const replayWatch = <Req extends ClusterAware>(
  state: ControllerState<Req>,
  w: NamedWatch<Req>,
  source: Cluster,
  engaged: Cluster,
): Effect.Effect<void> =>
  Effect.gen(function* () {
    const informer = yield* informerOf(source, w)
    const handler = handlerFor(w.handler, source)
    const requests = informer.store
      .list()
      .flatMap((object) => handler.requests({ _tag: "Added", object }, source))
      .filter((r) => r.cluster === engaged.name)
    yield* enqueue(state, requests, source.name)
  }).pipe(
    Effect.catch((e: CacheError) =>
      logFor(state, "warn", "replaying a watch for a newly engaged cluster failed", source.name, {
        engaged: engaged.name,
        error: e.message,
      }),
    ),
  )

/**
 * A cluster was just engaged: the watches whose handler replays (a fan-out) hand their objects
 * of every other engaged cluster to the handler again and queue the requests that name this
 * cluster. Without it, a hub object naming a cluster that the provider engages after the
 * object's event would wait for the object's next change.
 */
export const replayFor = <Req extends ClusterAware>(
  state: ControllerState<Req>,
  engaged: Cluster,
): Effect.Effect<void> =>
  Effect.forEach(
    [...state.pairs.values()],
    (other) => {
      const source = other.cluster
      if (source === undefined || source === engaged || other.engagement.state._tag !== "Engaged")
        return Effect.void
      const running = runningWatches(state, source.name)
      return Effect.forEach(
        state.watches.filter((w) => w.handler.replayOnEngage === true && running.includes(w.name)),
        (w) => replayWatch(state, w, source, engaged),
        { discard: true },
      )
    },
    { discard: true },
  )
