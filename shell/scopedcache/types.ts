/**
 * The scoped cache's public shapes: the `ScopedCache` interface (the project's `Cache` plus the
 * seed's informer management), the options of `addInformer` and `removeInformer`, the events for
 * dependents and the informers' summary. `scopedCache.ts` builds a `ScopedCache`; the modules
 * beside it each carry out one part of it.
 *
 * @module
 */
import type * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type * as Stream from "effect/Stream"
import type { RowId } from "../../core/krtt/index.ts"
import type { Dependent, InformerRef } from "../../core/scopedcache/types.ts"
import type { Cache, CacheError, CacheListOptions } from "../cache/types.ts"
import type { KubeError } from "../kube/errors.ts"
import type { KubeObject, ResourceRef } from "../kube/resource.ts"
import type { CachePage, PageOptions } from "./page.ts"
import type { Levels } from "./running.ts"

/** What dependents are told (seed: the informer's dependents when it goes away). */
export interface ScopedCacheEvent {
  readonly _tag: "PermissionLost" | "InformerRemoved"
  readonly cluster: string
  readonly ref: InformerRef
  readonly resource: ResourceRef
  readonly dependents: ReadonlyArray<Dependent>
  readonly message: string
  /** The registry row that decided. */
  readonly row: RowId
  /** When the 403 (or the denying access review) was seen, for `PermissionLost`. */
  readonly observedAt: number | undefined
  /** When the informer's scope had closed. */
  readonly stoppedAt: number
}

/** `AddInformer`'s options (seed: `InformerOptions`). */
export interface AddInformerOptions {
  readonly resource: ResourceRef
  /** The namespace to watch; absent or "" for cluster level (or the default namespaces, if set). */
  readonly namespace?: string | undefined
  /** The informer's key; default from the key function. */
  readonly key?: string | undefined
  readonly labelSelector?: string | undefined
  readonly fieldSelector?: string | undefined
  /** The resource that depends on the informer, counted by UID. */
  readonly dependent: Dependent
}

/** `RemoveInformer`'s options: one dependent less, or `force` to remove whatever the dependents. */
export interface RemoveInformerOptions {
  readonly resource: ResourceRef
  readonly namespace?: string | undefined
  readonly key?: string | undefined
  readonly labelSelector?: string | undefined
  readonly fieldSelector?: string | undefined
  readonly dependent?: Dependent | undefined
  readonly force?: boolean | undefined
}

/** One informer of the registry, for status pages, tests and benchmarks. */
export interface InformerInfo {
  readonly ref: InformerRef
  readonly state: string
  readonly dependents: ReadonlyArray<Dependent>
  readonly running: boolean
}

/** A list read from the scoped cache: the `Cache` interface's options, field selectors and pages. */
export interface ScopedListOptions extends CacheListOptions, PageOptions {
  /** Field selector in the API's string form, e.g. `metadata.name=a,status.phase!=Done`. */
  readonly fieldSelector?: string | undefined
}

/** The scoped cache: the project's `Cache` plus the seed's informer management. */
export interface ScopedCache extends Cache {
  readonly cluster: string
  /**
   * Objects from the informers that cover the options (`Cache.list`), with field selectors,
   * `limit` and `continue`.
   */
  readonly list: <T extends KubeObject = KubeObject>(
    resource: ResourceRef,
    options?: ScopedListOptions,
  ) => Effect.Effect<ReadonlyArray<T>, CacheError>
  /** One page of `list`, with the token of the next page. */
  readonly listPage: <T extends KubeObject = KubeObject>(
    resource: ResourceRef,
    options?: ScopedListOptions,
  ) => Effect.Effect<CachePage<T>, CacheError>
  /** Adds an informer, or one more dependent of it; Forbidden when the access review says no. */
  readonly addInformer: (options: AddInformerOptions) => Effect.Effect<ReadonlyArray<InformerRef>, KubeError>
  /** Removes one dependent (the informer stops with the last one), or the informer with `force`. */
  readonly removeInformer: (options: RemoveInformerOptions) => Effect.Effect<void>
  /**
   * Subscribes to the events for dependents (permission lost, informer removed by force): every
   * event published after the subscription, until the scope closes.
   */
  readonly subscribeEvents: Effect.Effect<Stream.Stream<ScopedCacheEvent>, never, Scope.Scope>
  /** Every registered informer. */
  readonly informers: Effect.Effect<ReadonlyArray<InformerInfo>>
  /** How many informers run now (both levels). */
  readonly runningCount: Effect.Effect<number>
  /** The running informers by level (seed: the two caches). */
  readonly levels: Levels
}
