/**
 * The informer cache: the default `Cache` (see `types.ts`), one shared informer (the project's
 * reflector) per resource and namespace scope, started on first use and kept until the cache's
 * scope closes, like controller-runtime's informer cache.
 *
 * # Expected flow
 * A provider builds a cluster's cache with `informerCacheFactory(client, {cluster})` in the
 * cluster's scope. A controller asks for an informer (`getInformer`, `getInformerForKind`), adds
 * handlers, waits for `waitForCacheSync`, and reads with `get`/`list` from the informers' stores.
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
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import * as Semaphore from "effect/Semaphore"
import type { KubeClientShape } from "../kube/client.ts"
import { makeKindResolver } from "../kube/discovery.ts"
import { NotFound, Timeout } from "../kube/errors.ts"
import { type KubeObject, keyOf, type ObjectKey, type ResourceRef, resourcePath } from "../kube/resource.ts"
import { matchesLabelSelector } from "../kube/selector.ts"
import type { ReflectorTiming } from "../reflector/options.ts"
import { make as makeReflector, type Reflector } from "../reflector/reflector.ts"
import { type IndexFunc, storeKey } from "../reflector/store.ts"
import { IndexedStore } from "./lateIndex.ts"
import {
  type Cache,
  type CacheError,
  type CacheFactory,
  type CacheListOptions,
  type Informer,
  informerNotFound,
  type ScopeOptions,
} from "./types.ts"

/** The informer cache's documented numbers. */
export const InformerCacheDefaults = {
  /** How long a read waits for its informer's first list (controller-runtime's CacheSyncTimeout). */
  syncTimeout: "2 minutes",
} as const satisfies Record<string, Duration.Input>

/** Options of one informer cache. */
export interface InformerCacheOptions {
  /** The cluster's name, for logs. */
  readonly cluster: string
  /**
   * Only these namespaces (controller-runtime's `DefaultNamespaces`): namespaced resources get one
   * informer per namespace; a read elsewhere fails with InformerNotFound. Default: all namespaces.
   */
  readonly namespaces?: ReadonlyArray<string> | undefined
  /** Default `InformerCacheDefaults.syncTimeout` (2 min). */
  readonly syncTimeout?: Duration.Input | undefined
  /** Timing of every informer's reflector (defaults: the reflector's). */
  readonly reflector?: Partial<ReflectorTiming> | undefined
}

/** The identity of a resource (the version is left out: one informer per group and resource). */
const resourceId = (r: ResourceRef): string => `${r.resource}.${r.group}`

/** The namespace scope an informer of `r` has for a request in `namespace`. */
const scopeOf = (r: ResourceRef, namespace: string | undefined): string | undefined =>
  r.namespaced && namespace !== undefined && namespace !== "" ? namespace : undefined

const informerKey = (r: ResourceRef, namespace: string | undefined): string =>
  `${resourceId(r)}|${namespace ?? "*"}`

interface Entry {
  readonly informer: Informer<KubeObject>
  readonly store: IndexedStore<KubeObject>
  readonly reflector: Reflector<KubeObject>
  /** The informer's own scope (a child of the cache's); handlers of late indexes live in it. */
  readonly scope: Scope.Scope
}

/** Makes an informer cache over `client`; its informers run until the scope closes. */
export const makeInformerCache = (
  client: KubeClientShape,
  options: InformerCacheOptions,
): Effect.Effect<Cache, never, Scope.Scope> =>
  Effect.gen(function* () {
    const cacheScope = yield* Scope.fork(yield* Effect.scope)
    yield* Effect.addFinalizer(() => Scope.close(cacheScope, Exit.void))
    const syncTimeout = Duration.fromInputUnsafe(options.syncTimeout ?? InformerCacheDefaults.syncTimeout)
    const allowed = options.namespaces === undefined ? undefined : new Set(options.namespaces)
    const entries = new Map<string, Entry>()
    /** resource id → index name → function, for informers yet to come. */
    const indexers = new Map<string, Map<string, IndexFunc<KubeObject>>>()
    const lock = yield* Semaphore.make(1)
    const stopped = yield* Deferred.make<void>()
    let started = false
    yield* Scope.addFinalizer(cacheScope, Deferred.succeed(stopped, undefined))
    const resolveKind = yield* makeKindResolver(client)
    const isStopped = Deferred.isDone(stopped)
    const stoppedError = (r: ResourceRef, ns: string | undefined) =>
      informerNotFound(r, ns, `the cache of cluster "${options.cluster}" has stopped`)

    /** The informer of a resource in a scope, created (under the lock, without I/O) on first use. */
    const informerFor = (r: ResourceRef, namespace: string | undefined): Effect.Effect<Entry, CacheError> =>
      lock.withPermits(1)(
        Effect.gen(function* () {
          if (yield* isStopped) return yield* stoppedError(r, namespace)
          const key = informerKey(r, namespace)
          const existing = entries.get(key)
          if (existing !== undefined) return existing
          const scope = yield* Scope.fork(cacheScope)
          const reflector = yield* makeReflector<KubeObject>(client, {
            ...options.reflector,
            resource: r,
            namespace,
            indexers: Object.fromEntries(indexers.get(resourceId(r)) ?? []),
            name: `${r.resource}${namespace === undefined ? "" : ` in ${namespace}`}`,
          }).pipe(Scope.provide(scope), Effect.annotateLogs({ cluster: options.cluster }))
          const store = new IndexedStore(reflector.store)
          const informer: Informer<KubeObject> = {
            resource: r,
            namespace,
            store,
            hasSynced: reflector.hasSynced,
            waitForSync: reflector.waitForSync,
            subscribe: reflector.subscribe,
          }
          const entry: Entry = { informer, store, reflector, scope }
          entries.set(key, entry)
          yield* Effect.logDebug("informer started").pipe(
            Effect.annotateLogs({
              cluster: options.cluster,
              resource: r.resource,
              namespace: namespace ?? "",
            }),
          )
          return entry
        }),
      )

    /** The scopes whose informers serve a read of `r` in `namespace` (undefined: all). */
    const servingScopes = (
      r: ResourceRef,
      namespace: string | undefined,
    ): Effect.Effect<ReadonlyArray<string | undefined>, CacheError> => {
      const ns = scopeOf(r, namespace)
      if (!r.namespaced || allowed === undefined) {
        if (ns !== undefined && entries.has(informerKey(r, undefined))) return Effect.succeed([undefined])
        return Effect.succeed([ns])
      }
      if (ns === undefined) return Effect.succeed([...allowed])
      if (allowed.has(ns)) return Effect.succeed([ns])
      return Effect.fail(
        informerNotFound(
          r,
          ns,
          `the cache of cluster "${options.cluster}" watches only namespaces ${[...allowed].join(", ")}`,
        ),
      )
    }

    /** Waits for an informer's first list, up to the sync timeout, or fails when the cache stops. */
    const synced = (entry: Entry): Effect.Effect<Entry, CacheError> => {
      const r = entry.informer.resource
      const path = resourcePath(r, { namespace: entry.informer.namespace })
      return Effect.raceFirst(
        Effect.as(entry.informer.waitForSync, entry),
        Effect.andThen(Deferred.await(stopped), Effect.fail(stoppedError(r, entry.informer.namespace))),
      ).pipe(
        Effect.timeoutOrElse({
          duration: syncTimeout,
          orElse: () =>
            Effect.fail(
              new Timeout({
                verb: "list",
                path,
                message: `the informer of cluster "${options.cluster}" did not sync within ${Duration.format(syncTimeout)}`,
              }),
            ),
        }),
      )
    }

    const servingEntries = (r: ResourceRef, namespace: string | undefined) =>
      Effect.flatMap(servingScopes(r, namespace), (scopes) =>
        Effect.forEach(scopes, (s) => Effect.flatMap(informerFor(r, s), synced)),
      )

    const getInformer = <T extends KubeObject = KubeObject>(
      r: ResourceRef,
      o?: ScopeOptions,
    ): Effect.Effect<Informer<T>, CacheError> =>
      Effect.gen(function* () {
        const ns = scopeOf(r, o?.namespace)
        if (allowed !== undefined && r.namespaced && (ns === undefined || !allowed.has(ns)))
          return yield* informerNotFound(
            r,
            ns,
            `the cache of cluster "${options.cluster}" watches only namespaces ${[...allowed].join(", ")}`,
          )
        const entry = yield* informerFor(r, ns)
        return entry.informer as unknown as Informer<T>
      })

    const cache: Cache = {
      get: <T extends KubeObject = KubeObject>(r: ResourceRef, key: ObjectKey) =>
        Effect.gen(function* () {
          const [entry] = yield* servingEntries(r, key.namespace)
          const object = entry?.store.get(r.namespaced ? key : { name: key.name })
          if (object === undefined)
            return yield* new NotFound({
              verb: "get",
              path: resourcePath(r, key),
              message: `${r.resource} "${keyOf(r.namespaced ? key : { name: key.name })}" not found in the cache of cluster "${options.cluster}"`,
            })
          return object as T
        }),
      list: <T extends KubeObject = KubeObject>(r: ResourceRef, o: CacheListOptions = {}) =>
        Effect.gen(function* () {
          const served = yield* servingEntries(r, o.namespace)
          const ns = scopeOf(r, o.namespace)
          const seen = new Set<string>()
          const out: Array<T> = []
          for (const entry of served) {
            const candidates =
              o.index !== undefined
                ? entry.store.byIndex(o.index.name, o.index.value)
                : ns !== undefined && entry.informer.namespace === undefined
                  ? entry.store.byNamespace(ns)
                  : entry.store.list()
            for (const object of candidates) {
              if (ns !== undefined && object.metadata.namespace !== ns) continue
              if (!matchesLabelSelector(o.labelSelector, object)) continue
              const k = storeKey(object)
              if (seen.has(k)) continue
              seen.add(k)
              out.push(object as T)
            }
          }
          return out
        }),
      getInformer,
      getInformerForKind: <T extends KubeObject = KubeObject>(
        gvk: { readonly group: string; readonly version: string; readonly kind: string },
        o?: ScopeOptions,
      ) => Effect.flatMap(resolveKind(gvk), (r) => getInformer<T>(r, o)),
      indexField: <T extends KubeObject = KubeObject>(r: ResourceRef, name: string, extract: IndexFunc<T>) =>
        lock.withPermits(1)(
          Effect.gen(function* () {
            const id = resourceId(r)
            let byName = indexers.get(id)
            if (byName === undefined) {
              byName = new Map()
              indexers.set(id, byName)
            }
            const existing = byName.get(name)
            // The same function again (a provider and the manager both apply an index): nothing to do.
            if (existing === (extract as unknown as IndexFunc<KubeObject>)) return
            if (existing !== undefined) {
              yield* Effect.logWarning("another index of this name exists; keeping the first").pipe(
                Effect.annotateLogs({ cluster: options.cluster, resource: r.resource, index: name }),
              )
              return
            }
            const fn = extract as unknown as IndexFunc<KubeObject>
            byName.set(name, fn)
            for (const entry of entries.values())
              if (resourceId(entry.informer.resource) === id)
                yield* entry.store
                  .addIndex(name, fn, entry.reflector.subscribe)
                  .pipe(Scope.provide(entry.scope))
          }),
        ),
      waitForCacheSync: Effect.gen(function* () {
        const all = [...entries.values()]
        const done = yield* Effect.raceFirst(
          Effect.as(
            Effect.forEach(all, (e) => e.informer.waitForSync, { discard: true, concurrency: "unbounded" }),
            true,
          ),
          Effect.as(Deferred.await(stopped), false),
        )
        return done && !(yield* isStopped)
      }),
      start: Effect.gen(function* () {
        started = true
        yield* Effect.addFinalizer(() => Scope.close(cacheScope, Exit.void))
      }),
      isStarted: Effect.map(isStopped, (s) => started && !s),
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
