/**
 * `watch()`: Watch Management (seed 000) on a connection's cache.
 *
 * # Expected flow
 * The Watch Management table decides on the accessor's state: a cluster without connection is
 * `ClusterNotConnectedError`, an empty name a `WatchError`, a watch already added nothing. A new
 * watch subscribes to the cache's informer in a scope of the connection, is recorded on the
 * accessor, and returns at once; the informer lists and syncs on its own fiber, which drops and
 * forgets the watch if it stops first or does not sync within the initial sync timeout (row 5,
 * "watch not added"), so that the next call adds it again.
 *
 * # Guarantees
 * - `watch()` never waits for an informer, and holds nothing while it subscribes.
 * - A disconnect stops every watch with the cache (the scope is the connection's); the accessor's
 *   watches start empty on the next connection.
 *
 * @module
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import {
  type ClusterCacheConfig,
  type WatchResult,
  type WatchTrigger,
  watchTransition,
} from "../../core/clustercache/index.ts"
import type { Informer } from "../cache/types.ts"
import { type KubeObject, keyOf, type ResourceRef } from "../kube/resource.ts"
import type { ReflectorEvent } from "../reflector/reflector.ts"
import type { ClusterKey } from "./cluster.ts"
import type { Connection } from "./connection.ts"
import { ClusterNotConnectedError, WatchError } from "./errors.ts"
import type { Registry } from "./registry.ts"

/** A watch on a workload cluster: a resource and what to do with each event. */
export interface Watcher {
  readonly name: string
  readonly resource: ResourceRef
  readonly namespace?: string | undefined
  readonly onEvent: (event: ReflectorEvent<KubeObject>) => Effect.Effect<void>
}

/** Makes `watch(cluster, watcher)` over the registry. */
export const makeWatch =
  (config: ClusterCacheConfig, registry: Registry) =>
  (cluster: ClusterKey, watcher: Watcher): Effect.Effect<void, ClusterNotConnectedError | WatchError> =>
    Effect.gen(function* () {
      const e = yield* registry.get(cluster)
      if (e === undefined)
        return yield* new ClusterNotConnectedError({
          cluster: keyOf(cluster),
          message: "no accessor for the cluster",
        })
      const now = yield* Clock.currentTimeMillis
      const observed = {
        connected: e.state.connected && e.connection !== undefined,
        watches: e.state.watches,
      }
      const desired = { name: watcher.name }
      const transition: Transition = (trigger) => watchTransition({ observed, desired, trigger, now })
      const r = transition({ _tag: "Watch" })
      if (r.status.outcome === "ok") return
      if (r.status.outcome === "error") {
        const message = r.status.error?.message ?? "watch failed"
        return yield* r.status.error?._tag === "ClusterNotConnectedError"
          ? new ClusterNotConnectedError({ cluster: keyOf(cluster), message })
          : new WatchError({ cluster: keyOf(cluster), message })
      }
      yield* startWatch(config, registry, cluster, e.connection as Connection, watcher, transition)
    })

/** The Watch Management table on this call's observation, for a trigger. */
type Transition = (trigger: WatchTrigger) => WatchResult

/**
 * Starts a new watch (the table's "pending" outcome): subscribes to the cache's informer in a
 * scope of the connection, so that a disconnect stops it with the cache, records it on the
 * accessor, and leaves the informer to list and sync on its own fiber. A cache without an
 * informer for the resource is the table's WatchFailed.
 */
const startWatch = (
  config: ClusterCacheConfig,
  registry: Registry,
  cluster: ClusterKey,
  c: Connection,
  watcher: Watcher,
  transition: Transition,
): Effect.Effect<void, WatchError> =>
  Effect.gen(function* () {
    const watchScope = yield* Scope.fork(c.scope)
    const informer = yield* Effect.result(
      c.cache.getInformer(watcher.resource, { namespace: watcher.namespace }),
    )
    if (informer._tag === "Failure") {
      yield* Scope.close(watchScope, Exit.void)
      const failed = transition({
        _tag: "WatchFailed",
        error: `the cache has no informer for it: ${informer.failure.message}`,
      })
      return yield* new WatchError({
        cluster: keyOf(cluster),
        message: failed.status.error?.message ?? "watch failed",
      })
    }
    yield* informer.success.subscribe(watcher.onEvent).pipe(Scope.provide(watchScope))
    const done = transition({ _tag: "WatchStarted" })
    yield* registry.setWatches(cluster, c, () => done.status.watches)
    yield* Effect.forkIn(
      awaitWatchSync(config, registry, cluster, c, watcher.name, informer.success, watchScope),
      c.scope,
    )
  })

/**
 * Waits, off the caller's fiber, for a new watch's informer to sync within the initial sync
 * timeout; an informer that stops first (the scoped cache's after a 403) or does not sync in
 * time: the watch is stopped and forgotten.
 */
const awaitWatchSync = (
  config: ClusterCacheConfig,
  registry: Registry,
  cluster: ClusterKey,
  c: Connection,
  name: string,
  informer: Informer,
  watchScope: Scope.Closeable,
) =>
  Effect.gen(function* () {
    const synced = yield* Effect.timeoutOption(
      Effect.andThen(informer.waitForSync, informer.hasSynced),
      config.initialSyncTimeout,
    )
    if (synced._tag === "Some" && synced.value) return
    yield* Scope.close(watchScope, Exit.void)
    yield* registry.setWatches(cluster, c, (watches) => watches.filter((w) => w !== name))
    yield* Effect.logWarning("a watch was dropped: its informer did not sync").pipe(
      Effect.annotateLogs({
        cluster: keyOf(cluster),
        watch: name,
        reason:
          synced._tag === "None"
            ? `not synced within ${config.initialSyncTimeout} ms`
            : "the cache's informer stopped before it synced",
      }),
    )
  })
