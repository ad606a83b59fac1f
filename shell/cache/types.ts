/**
 * The project's cache interface: what a controller reads one cluster through, like
 * controller-runtime's `cache.Cache` (a reader plus informers).
 *
 * Two implementations share this shape:
 * - the informer cache (`informerCache.ts`): one shared informer (our reflector) per resource,
 *   started on first use and kept until the cache's scope closes, like controller-runtime's
 *   default cache;
 * - the scoped cache (`shell/scopedcache/`, seed 002): informers per namespace or cluster scope,
 *   counted by their dependents, stopped when no dependent is left or permission is lost; reads
 *   are served only by informers that exist.
 *
 * A multi-cluster `Cluster` (`shell/multicluster/types.ts`) hands its controllers a `Cache`, so a
 * controller does not know which one it runs on.
 *
 * # Guarantees every implementation keeps
 * - `informer()` for the same resource and scope returns the same informer (shared, one watch).
 * - A handler added with `subscribe` first receives the informer's current objects as Added.
 * - Reads never go to the API server: they are answered from informers' stores.
 *
 * @module
 */
import * as Data from "effect/Data"
import type * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type { KubeClientShape } from "../kube/client.ts"
import type { KubeError } from "../kube/errors.ts"
import type { KubeObject, ObjectKey, ResourceRef } from "../kube/resource.ts"
import type { EventHandler } from "../reflector/reflector.ts"
import type { IndexFunc, ReadonlyStore } from "../reflector/store.ts"

/** One informer as controllers see it: a store kept in step with the API server, and events. */
export interface Informer<T extends KubeObject = KubeObject> {
  readonly resource: ResourceRef
  /** The namespace it watches; `undefined` for all namespaces (or a cluster-scoped resource). */
  readonly namespace: string | undefined
  readonly store: ReadonlyStore<T>
  /** Whether the first list has been stored and handed to handlers. */
  readonly hasSynced: Effect.Effect<boolean>
  /** Waits for `hasSynced` (add your own timeout). */
  readonly waitForSync: Effect.Effect<void>
  /** Adds a handler until the scope closes; it first receives the store's objects as Added. */
  readonly subscribe: (handler: EventHandler<T>) => Effect.Effect<void, never, Scope.Scope>
}

/** Which objects a read or an informer covers. */
export interface ScopeOptions {
  /** One namespace; all namespaces (or cluster scope) when absent. */
  readonly namespace?: string | undefined
}

/** A list read from a cache. */
export interface CacheListOptions extends ScopeOptions {
  /** Label selector in the API's string form, e.g. `app=web,tier!=db`. */
  readonly labelSelector?: string | undefined
  /** Objects whose index `index` holds `value` (an index added with `indexField`). */
  readonly index?: { readonly name: string; readonly value: string } | undefined
}

/**
 * No informer can answer this read: the cache was asked for a resource or namespace it does not
 * watch (the scoped cache's answer to seed 002's open question; distinct from the API's NotFound,
 * which means the informer exists and the object does not). Build it with `informerNotFound`.
 */
export class InformerNotFound extends Data.TaggedError("InformerNotFound")<{
  readonly resource: ResourceRef
  readonly namespace: string | undefined
  readonly message: string
}> {}

/** An InformerNotFound with a message naming the resource and namespace. */
export const informerNotFound = (
  resource: ResourceRef,
  namespace: string | undefined,
  detail?: string,
): InformerNotFound =>
  new InformerNotFound({
    resource,
    namespace,
    message: `no informer for ${resource.resource}${resource.group === "" ? "" : `.${resource.group}`}${
      namespace === undefined ? "" : ` in namespace ${namespace}`
    }${detail === undefined ? "" : `: ${detail}`}`,
  })

/** What reading a cache can fail with. */
export type CacheError = KubeError | InformerNotFound

/** The cache of one cluster. */
export interface Cache {
  /** The object from the informer that covers `key` (NotFound when the informer lacks it). */
  readonly get: <T extends KubeObject = KubeObject>(
    resource: ResourceRef,
    key: ObjectKey,
  ) => Effect.Effect<T, CacheError>
  /** Objects from the informers that cover the options, merged without duplicates. */
  readonly list: <T extends KubeObject = KubeObject>(
    resource: ResourceRef,
    options?: CacheListOptions,
  ) => Effect.Effect<ReadonlyArray<T>, CacheError>
  /**
   * The informer of a resource (in one namespace with `options.namespace`). The informer cache
   * starts one on first use; the scoped cache returns an existing one or InformerNotFound.
   */
  readonly getInformer: <T extends KubeObject = KubeObject>(
    resource: ResourceRef,
    options?: ScopeOptions,
  ) => Effect.Effect<Informer<T>, CacheError>
  /** The informer of a kind, found through discovery (`group`, `version`, `kind`). */
  readonly getInformerForKind: <T extends KubeObject = KubeObject>(
    gvk: { readonly group: string; readonly version: string; readonly kind: string },
    options?: ScopeOptions,
  ) => Effect.Effect<Informer<T>, CacheError>
  /** Adds an index to the resource's informers, present and future. */
  readonly indexField: <T extends KubeObject = KubeObject>(
    resource: ResourceRef,
    name: string,
    extract: IndexFunc<T>,
  ) => Effect.Effect<void>
  /** Waits until every informer started so far has synced; false when the cache stopped first. */
  readonly waitForCacheSync: Effect.Effect<boolean>
  /** Starts the cache; its informers run until the scope closes. */
  readonly start: Effect.Effect<void, never, Scope.Scope>
  readonly isStarted: Effect.Effect<boolean>
}

/**
 * Makes the cache of one cluster from its client; the cache runs until the scope closes.
 * Providers and the ClusterCache take one, so a user can choose the informer cache (default)
 * or the scoped cache per cluster.
 */
export type CacheFactory = (
  client: KubeClientShape,
  options: { readonly cluster: string },
) => Effect.Effect<Cache, never, Scope.Scope>
