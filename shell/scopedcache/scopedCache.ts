/**
 * `ScopedCache`: the dynamic scoped cache of seed 002 (the Wrapper around the
 * `NamespaceScopedCache` and the `ClusterScopedCache`) implementing the project's `Cache`
 * interface, plus the seed's `AddInformer` / `RemoveInformer` with dependents. This module builds
 * one and hands each method to the module that carries it out: the registry's table
 * (`operate.ts`, `actions.ts`), informers on behalf of dependents (`dependents.ts`), reads
 * (`reads.ts`), the permission recheck (`recheck.ts`), index fields (`indexes.ts`) and the
 * lifecycle (`lifecycle.ts`); they share one context (`context.ts`).
 *
 * # Expected flow
 * An operator adds an informer for a resource in a namespace (or at cluster level) on behalf of a
 * dependent (the object that needs it, counted by UID); the registry decides (the tables of
 * `core/scopedcache/`, run by the table runner every controller uses) and the cache carries out
 * the actions: it starts the project's reflector for a `StartInformer`, closes its scope for a
 * `StopInformer`, tells dependents for a `NotifyDependents` and writes one log line for a `Log`. Reads (`get`, `list`, `getInformer`)
 * ask the reads table which informers serve them and answer from those informers' stores only.
 *
 * # Guarantees
 * - Decide purely, then act: every change goes through the registry under one short lock
 *   (`SynchronizedRef.modifyEffect`); starting an informer forks its reflector and returns, so the
 *   lock spans no I/O. Closing an informer's scope runs after the lock, on the cache's fibers.
 *   Access reviews and discovery run before the lock.
 * - A list or watch answered 403 stops its informer at once (no backoff; abandoned after
 *   `stopTimeout`, 1 s, if its scope does not close): the registry applies `PermissionLost`,
 *   its dependents get one `PermissionLost` event, the log gets one line for that informer.
 * - Reads never start an informer: no informer → `InformerNotFound`; before Start →
 *   `CacheNotStarted`; no informer because the last one of that scope lost its permission →
 *   `InformerForbidden` (until an informer is added there again); the informer exists and lacks
 *   the object → `CacheNotFound`. Each is the cache's own error (`errors.ts`), a subclass of the
 *   error the `Cache` interface names, so that handlers of `NotFound` and `Forbidden` still work.
 * - A list served by several informers (namespaces, or a namespace next to a cluster-level one)
 *   has each object once, sorted by key; field selectors, `limit` and `continue` (`page.ts`).
 * - Informers that `getInformer` added (`startOnGetInformer`) are held by their subscriptions
 *   and stop with the last one.
 *
 * # Caveats
 * - The API server does not re-authorize an open watch: a revoked Role is noticed by the
 *   permission recheck (`permissionRecheckInterval`, 10 s, plus one review), or at the next list
 *   or watch when the recheck is off.
 * - A list across all namespaces is answered by the informers that still run: a namespace whose
 *   informer lost permission drops out of it (reads in that namespace get `Forbidden`).
 *
 * @module
 */
import * as Effect from "effect/Effect"
import * as PubSub from "effect/PubSub"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as SynchronizedRef from "effect/SynchronizedRef"
import { toJson } from "../../core/scopedcache/registry.ts"
import { InformerNotFound, type ScopeOptions } from "../cache/types.ts"
import type { KubeClientShape } from "../kube/client.ts"
import { makeKindResolver } from "../kube/discovery.ts"
import type { KubeObject, ResourceRef } from "../kube/resource.ts"
import { make as makeCacheContext } from "./context.ts"
import { addInformer, removeInformer } from "./dependents.ts"
import { indexField } from "./indexes.ts"
import { isStarted, onStop, start, waitForCacheSync } from "./lifecycle.ts"
import { make as makeOperate } from "./operate.ts"
import { InvalidScopedCacheOptionsError, type ScopedCacheOptions, scopedCacheConfig } from "./options.ts"
import { get, getInformer, listPage } from "./reads.ts"
import { startRecheck } from "./recheck.ts"
import type { ScopedCache, ScopedListOptions } from "./types.ts"

export type {
  AddInformerOptions,
  InformerInfo,
  RemoveInformerOptions,
  ScopedCache,
  ScopedCacheEvent,
  ScopedListOptions,
} from "./types.ts"

/** Makes a scoped cache over `client`; it runs until the scope closes. */
export const makeScopedCache = (
  client: KubeClientShape,
  options: ScopedCacheOptions & { readonly cluster: string },
): Effect.Effect<ScopedCache, InvalidScopedCacheOptionsError, Scope.Scope> =>
  Effect.gen(function* () {
    const { cluster, ...rest } = options
    const config = scopedCacheConfig(rest)
    if (config instanceof InvalidScopedCacheOptionsError) return yield* config
    const ctx = yield* makeCacheContext(client, cluster, config)
    const resolveKind = yield* makeKindResolver(client)
    const operate = makeOperate(ctx)
    yield* startRecheck(ctx, operate)
    yield* onStop(ctx)
    const cache: ScopedCache = {
      cluster,
      levels: ctx.levels,
      get: (r, key) => get(ctx, r, key),
      list: <T extends KubeObject = KubeObject>(r: ResourceRef, o?: ScopedListOptions) =>
        Effect.map(listPage<T>(ctx, r, o), (page) => page.items),
      listPage: (r, o) => listPage(ctx, r, o),
      getInformer: (r, o) => getInformer(ctx, operate, r, o),
      getInformerForKind: <T extends KubeObject = KubeObject>(
        gvk: { readonly group: string; readonly version: string; readonly kind: string },
        o?: ScopeOptions,
      ) => Effect.flatMap(resolveKind(gvk), (r) => getInformer<T>(ctx, operate, r, o)),
      indexField: (r, name, extract) => indexField(ctx, r, name, extract),
      waitForCacheSync: waitForCacheSync(ctx),
      start: start(ctx, operate),
      isStarted: isStarted(ctx),
      addInformer: (o) => addInformer(ctx, operate, o),
      removeInformer: (o) => removeInformer(ctx, operate, o),
      subscribeEvents: Effect.map(PubSub.subscribe(ctx.bus), Stream.fromSubscription),
      informers: Effect.map(SynchronizedRef.get(ctx.state), (s) =>
        toJson(s.registry).informers.map((i) => ({
          ref: i.ref,
          state: i.state,
          dependents: i.dependents,
          running: ctx.levels.running(i.ref) !== undefined,
        })),
      ),
      runningCount: Effect.sync(() => ctx.levels.all().length),
    }
    return cache
  })

export { InformerNotFound }
