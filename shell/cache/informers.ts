/**
 * The informers' lifecycle: one informer (the project's reflector) per resource and namespace
 * scope, created on first use in its own child of the cache's scope and kept until that closes.
 *
 * # Expected flow
 * `informerFor` is the one place informers are created: `getInformer` hands one out, and reads
 * (`reads.ts`) ask for the informers that serve them. A new informer starts with the indexes known
 * for its resource (`indexes.ts`).
 *
 * # Guarantees
 * - One informer per resource and namespace scope: concurrent first uses share it (the creation
 *   runs under the context's lock, which spans no I/O; listing and watching run on the informer's
 *   fiber).
 * - After the cache stops, no informer is created: `informerFor` fails with `InformerNotFound`.
 * - `getInformer` outside `options.namespaces` fails with `InformerNotFound` and creates nothing.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import * as Scope from "effect/Scope"
import type { KubeObject, ResourceRef } from "../kube/resource.ts"
import { make as makeReflector } from "../reflector/reflector.ts"
import {
  type CacheContext,
  type Entry,
  informerKey,
  outsideNamespacesError,
  resourceId,
  scopeOf,
  stoppedError,
} from "./context.ts"
import { IndexedStore } from "./lateIndex.ts"
import type { CacheError, Informer, ScopeOptions } from "./types.ts"

/** Starts the informer of `r` in `namespace` in its own scope and records it. Run under the lock. */
const startInformer = (ctx: CacheContext, r: ResourceRef, namespace: string | undefined, key: string) =>
  Effect.gen(function* () {
    const { options } = ctx
    const scope = yield* Scope.fork(ctx.cacheScope)
    const reflector = yield* makeReflector<KubeObject>(ctx.client, {
      ...options.reflector,
      resource: r,
      namespace,
      indexers: Object.fromEntries(ctx.indexers.get(resourceId(r)) ?? []),
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
    ctx.entries.set(key, entry)
    yield* Effect.logDebug("informer started").pipe(
      Effect.annotateLogs({ cluster: options.cluster, resource: r.resource, namespace: namespace ?? "" }),
    )
    return entry
  })

/** The informer of a resource in a scope, created (under the lock, without I/O) on first use. */
export const informerFor = (
  ctx: CacheContext,
  r: ResourceRef,
  namespace: string | undefined,
): Effect.Effect<Entry, CacheError> =>
  ctx.lock.withPermits(1)(
    Effect.gen(function* () {
      if (yield* ctx.isStopped) return yield* stoppedError(ctx, r, namespace)
      const key = informerKey(r, namespace)
      const existing = ctx.entries.get(key)
      if (existing !== undefined) return existing
      return yield* startInformer(ctx, r, namespace, key)
    }),
  )

/** `Cache.getInformer`: the informer of `r` in the scope of `o.namespace`. */
export const getInformer = <T extends KubeObject = KubeObject>(
  ctx: CacheContext,
  r: ResourceRef,
  o?: ScopeOptions,
): Effect.Effect<Informer<T>, CacheError> =>
  Effect.gen(function* () {
    const ns = scopeOf(r, o?.namespace)
    const { allowed } = ctx
    if (allowed !== undefined && r.namespaced && (ns === undefined || !allowed.has(ns)))
      return yield* outsideNamespacesError(ctx, allowed, r, ns)
    const entry = yield* informerFor(ctx, r, ns)
    return entry.informer as unknown as Informer<T>
  })
