/**
 * The informer cache: the default `Cache` (see `types.ts`), one shared informer (the project's
 * reflector) per resource and namespace scope, started on first use and kept until the cache's
 * scope closes, like controller-runtime's informer cache.
 *
 * # Expected flow
 * A provider builds a cluster's cache with `informerCacheFactory(client, {cluster})` in the
 * cluster's scope. A controller asks for an informer (`getInformer`, `getInformerForKind`), adds
 * handlers, waits for `waitForCacheSync`, and reads with `get`/`list` from the informers' stores.
 * This module builds the shared context (`context.ts`) and puts the parts together: the informers'
 * lifecycle (`informers.ts`), reads (`reads.ts`), indexes (`indexes.ts`) and the sync waits
 * (`sync.ts`); the options are in `options.ts`.
 *
 * # Guarantees
 * - One informer per resource and namespace scope: concurrent first uses share it (the creation
 *   runs under a short lock that spans no I/O; listing and watching run on the informer's fiber).
 * - A read in namespace `n` is served by the all-namespaces informer when there is one, else by
 *   `n`'s own informer. A list without namespace is served by the all-namespaces informer, or, with
 *   `namespaces` set (controller-runtime's `DefaultNamespaces`), by each namespace's informer,
 *   merged without duplicates.
 * - `indexField` applies to the resource's informers that exist and to every later one. A late
 *   index is filled from the store first, then kept by a handler (`lateIndex.ts`).
 * - Reads wait for the serving informer's first list up to `syncTimeout` (2 min, controller-runtime's
 *   `CacheSyncTimeout`) and then fail with `Timeout`: a cluster that hangs blocks a read of its
 *   own cache for that long, never forever.
 * - After the cache stops (its scope closes, or the scope of `start`), reads and new informers fail
 *   with `InformerNotFound` ("the cache has stopped") and `waitForCacheSync` answers false.
 *
 * # Caveats
 * - Unlike controller-runtime, informers run from their first use, without waiting for `start`:
 *   a cluster's cache lives in its engage scope already. `start` ties the cache to one more scope.
 * - A late index is updated by a handler right after the store changes: a read between the two
 *   can see the store one event ahead of that index.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import type { KubeClientShape } from "../kube/client.ts"
import { makeKindResolver } from "../kube/discovery.ts"
import { makeContext } from "./context.ts"
import { indexField } from "./indexes.ts"
import { getInformer } from "./informers.ts"
import type { InformerCacheOptions } from "./options.ts"
import { get, list } from "./reads.ts"
import { waitForCacheSync } from "./sync.ts"
import type { Cache, CacheFactory } from "./types.ts"

export { InformerCacheDefaults, type InformerCacheOptions } from "./options.ts"

/** Makes an informer cache over `client`; its informers run until the scope closes. */
export const makeInformerCache = (
  client: KubeClientShape,
  options: InformerCacheOptions,
): Effect.Effect<Cache, never, Scope.Scope> =>
  Effect.gen(function* () {
    const ctx = yield* makeContext(client, options)
    const resolveKind = yield* makeKindResolver(client)
    const cache: Cache = {
      get: (r, key) => get(ctx, r, key),
      list: (r, o) => list(ctx, r, o),
      getInformer: (r, o) => getInformer(ctx, r, o),
      getInformerForKind: (gvk, o) => Effect.flatMap(resolveKind(gvk), (r) => getInformer(ctx, r, o)),
      indexField: (r, name, extract) => indexField(ctx, r, name, extract),
      waitForCacheSync: waitForCacheSync(ctx),
      start: Effect.gen(function* () {
        ctx.started = true
        yield* Effect.addFinalizer(() => Scope.close(ctx.cacheScope, Exit.void))
      }),
      isStarted: Effect.map(ctx.isStopped, (s) => ctx.started && !s),
    }
    return cache
  })

/** An informer cache factory with options beyond the cluster's name. */
export const makeInformerCacheFactory =
  (options: Omit<InformerCacheOptions, "cluster"> = {}): CacheFactory =>
  (client, { cluster }) =>
    makeInformerCache(client, { ...options, cluster })

/** The default cache of every cluster: the informer cache with its defaults. */
export const informerCacheFactory: CacheFactory = makeInformerCacheFactory()
