/**
 * What the parts of one informer cache share: its options, its scope, the informers by resource
 * and namespace scope, the indexes for informers yet to come, the lock, and the stop signal.
 *
 * # Expected flow
 * `makeInformerCache` (`informerCache.ts`) builds the context once with `makeContext`, in the
 * cache's scope, and hands it to each part: the informers' lifecycle (`informers.ts`), the sync
 * wait (`sync.ts`), reads (`reads.ts`) and indexes (`indexes.ts`).
 *
 * # Guarantees
 * - `entries` and `indexers` change only under `lock` (`informers.ts`, `indexes.ts`); reads look
 *   them up without it.
 * - Every informer's scope is a child of `cacheScope`, itself a child of the scope `makeContext`
 *   runs in: closing either stops every informer and completes `stopped`.
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
import type { KubeObject, ResourceRef } from "../kube/resource.ts"
import type { Reflector } from "../reflector/reflector.ts"
import type { IndexFunc } from "../reflector/store.ts"
import type { IndexedStore } from "./lateIndex.ts"
import { InformerCacheDefaults, type InformerCacheOptions } from "./options.ts"
import { type Informer, type InformerNotFound, informerNotFound } from "./types.ts"

/** One running informer with the parts the cache keeps of it. */
export interface Entry {
  readonly informer: Informer<KubeObject>
  readonly store: IndexedStore<KubeObject>
  readonly reflector: Reflector<KubeObject>
  /** The informer's own scope (a child of the cache's); handlers of late indexes live in it. */
  readonly scope: Scope.Scope
}

/** One informer cache's shared parts. */
export interface CacheContext {
  readonly client: KubeClientShape
  readonly options: InformerCacheOptions
  /** The cache's own scope: informers' scopes are its children. */
  readonly cacheScope: Scope.Closeable
  readonly syncTimeout: Duration.Duration
  /** The namespaces of `options.namespaces` (undefined: all). */
  readonly allowed: ReadonlySet<string> | undefined
  /** `informerKey` → the informer of that resource and namespace scope. */
  readonly entries: Map<string, Entry>
  /** Resource id → index name → function, for informers yet to come. */
  readonly indexers: Map<string, Map<string, IndexFunc<KubeObject>>>
  /** Held while an informer is created or an index added (never across I/O). */
  readonly lock: Semaphore.Semaphore
  /** Completed when the cache's scope closes. */
  readonly stopped: Deferred.Deferred<void>
  /** Whether `stopped` is complete. */
  readonly isStopped: Effect.Effect<boolean>
  /** Set by `start`. */
  started: boolean
}

/** The identity of a resource (the version is left out: one informer per group and resource). */
export const resourceId = (r: ResourceRef): string => `${r.resource}.${r.group}`

/** The namespace scope an informer of `r` has for a request in `namespace`. */
export const scopeOf = (r: ResourceRef, namespace: string | undefined): string | undefined =>
  r.namespaced && namespace !== undefined && namespace !== "" ? namespace : undefined

/** The key of an informer in `entries`. */
export const informerKey = (r: ResourceRef, namespace: string | undefined): string =>
  `${resourceId(r)}|${namespace ?? "*"}`

/** The failure of a read or a new informer after the cache stopped. */
export const stoppedError = (ctx: CacheContext, r: ResourceRef, ns: string | undefined): InformerNotFound =>
  informerNotFound(r, ns, `the cache of cluster "${ctx.options.cluster}" has stopped`)

/** The failure of a request outside `options.namespaces` (`allowed` is that set). */
export const outsideNamespacesError = (
  ctx: CacheContext,
  allowed: ReadonlySet<string>,
  r: ResourceRef,
  ns: string | undefined,
): InformerNotFound =>
  informerNotFound(
    r,
    ns,
    `the cache of cluster "${ctx.options.cluster}" watches only namespaces ${[...allowed].join(", ")}`,
  )

/** Builds the context in a child of the current scope, which completes `stopped` when it closes. */
export const makeContext = (
  client: KubeClientShape,
  options: InformerCacheOptions,
): Effect.Effect<CacheContext, never, Scope.Scope> =>
  Effect.gen(function* () {
    const cacheScope = yield* Scope.fork(yield* Effect.scope)
    yield* Effect.addFinalizer(() => Scope.close(cacheScope, Exit.void))
    const stopped = yield* Deferred.make<void>()
    yield* Scope.addFinalizer(cacheScope, Deferred.succeed(stopped, undefined))
    return {
      client,
      options,
      cacheScope,
      syncTimeout: Duration.fromInputUnsafe(options.syncTimeout ?? InformerCacheDefaults.syncTimeout),
      allowed: options.namespaces === undefined ? undefined : new Set(options.namespaces),
      entries: new Map(),
      indexers: new Map(),
      lock: yield* Semaphore.make(1),
      stopped,
      isStopped: Deferred.isDone(stopped),
      started: false,
    }
  })
