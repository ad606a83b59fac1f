/**
 * What the parts of one scoped cache share: its options, its scopes and fibers, the running
 * informers (`running.ts`), and the one `SynchronizedRef` that holds the registry.
 *
 * # Expected flow
 * `makeScopedCache` (`scopedCache.ts`) builds the context once with `make`, in the
 * cache's scope, and hands it to each part: the registry's table (`operate.ts`, `actions.ts`),
 * informer management (`dependents.ts`), reads (`reads.ts`), the permission recheck
 * (`recheck.ts`), indexes (`indexes.ts`) and the lifecycle (`lifecycle.ts`).
 *
 * # Guarantees
 * - The registry changes only in `operate.ts`, under the `SynchronizedRef`'s lock; the other parts
 *   read it.
 * - Every fiber of the cache (informers, their closing, events) lives in `cacheScope`, a child of
 *   the scope `makeScopedCache` runs in: closing either ends them.
 *
 * @module
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberSet from "effect/FiberSet"
import * as PubSub from "effect/PubSub"
import * as Scope from "effect/Scope"
import * as SynchronizedRef from "effect/SynchronizedRef"
import { emptyRegistry, type Registry } from "../../core/scopedcache/registry.ts"
import { type Gvk, gvkString } from "../../core/scopedcache/types.ts"
import type { Informer } from "../cache/types.ts"
import type { KubeClientShape } from "../kube/client.ts"
import type { KubeObject, ResourceRef } from "../kube/resource.ts"
import type { IndexFunc } from "../reflector/store.ts"
import type { AccessReviewer } from "./accessReview.ts"
import type { InformerSpec, PermissionLoss } from "./informer.ts"
import { millisOf, type ScopedCacheConfig } from "./options.ts"
import { Levels, type Running } from "./running.ts"
import type { ScopedCacheEvent } from "./types.ts"

/** What an informer watches, before the indexes known at its start are added. */
export type BaseSpec = Omit<InformerSpec, "indexers">

/** The permission loss of a read scope, with the message the registry was given. */
export type ScopeLoss = PermissionLoss & { readonly message: string }

/** The state under the cache's lock. */
export interface State {
  readonly registry: Registry
  /** The spec of every registered ref (what to start), by `refString`. */
  readonly specs: Map<string, BaseSpec>
  /** The last permission loss per read scope (`lossKey`), until an informer starts there. */
  readonly losses: Map<string, ScopeLoss>
  readonly closed: boolean
}

/** One scoped cache's shared parts. */
export interface CacheContext {
  readonly cluster: string
  readonly client: KubeClientShape
  readonly config: ScopedCacheConfig
  /** The cache's own scope: informers' scopes are its children. */
  readonly cacheScope: Scope.Closeable
  /** Fibers that must not run under the lock (closing informers, publishing events). */
  readonly background: FiberSet.FiberSet<void, never>
  /** The events for dependents. */
  readonly bus: PubSub.PubSub<ScopedCacheEvent>
  readonly levels: Levels
  /** GVK string → index name → function, for informers that start later. */
  readonly indexers: Map<string, Map<string, IndexFunc<KubeObject>>>
  readonly reviewer: AccessReviewer
  readonly state: SynchronizedRef.SynchronizedRef<State>
  /** Completed by `Start`. */
  readonly started: Deferred.Deferred<void>
  /** Completed when the cache's scope closes. */
  readonly stopped: Deferred.Deferred<void>
  /** `stopTimeout` in ms. */
  readonly stopTimeout: number
  /** The generation of the next informer run. */
  readonly nextGeneration: () => number
  /** The uid number of the next subscription that holds an informer. */
  readonly nextSubscription: () => number
  /** The informer `getInformer` handed out for a run, so that it keeps handing out the same one. */
  readonly held: WeakMap<Running, Informer<KubeObject>>
  /** Annotates an effect's logs with the cluster. */
  readonly annotate: <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}

/** A resource's GVK. */
export const gvkOf = (r: ResourceRef): Gvk => ({ group: r.group, version: r.version, kind: r.kind })

/** The read scope a permission loss is kept under. */
export const lossKey = (namespace: string, gvk: Gvk): string => `${namespace}|${gvkString(gvk)}`

/** Builds the context of one cache; its scope closes with the current one. */
export const make = (
  client: KubeClientShape,
  cluster: string,
  config: ScopedCacheConfig,
): Effect.Effect<CacheContext, never, Scope.Scope> =>
  Effect.gen(function* () {
    const cacheScope = yield* Scope.fork(yield* Effect.scope)
    yield* Effect.addFinalizer(() => Scope.close(cacheScope, Exit.void))
    let generation = 0
    let subscription = 0
    return {
      cluster,
      client,
      config,
      cacheScope,
      background: yield* FiberSet.make<void, never>().pipe(Scope.provide(cacheScope)),
      bus: yield* PubSub.unbounded<ScopedCacheEvent>(),
      levels: new Levels(),
      indexers: new Map(),
      reviewer: config.accessReviewer(client),
      state: yield* SynchronizedRef.make<State>({
        registry: emptyRegistry,
        specs: new Map(),
        losses: new Map(),
        closed: false,
      }),
      started: yield* Deferred.make<void>(),
      stopped: yield* Deferred.make<void>(),
      stopTimeout: millisOf(config.stopTimeout),
      nextGeneration: () => ++generation,
      nextSubscription: () => ++subscription,
      held: new WeakMap(),
      annotate: Effect.annotateLogs({ cluster }),
    }
  })
