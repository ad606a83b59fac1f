/**
 * Index fields of the scoped cache (`Cache.indexField`, seed 002's Wrapper `IndexField`): an index
 * by name for every informer of a resource, present and future.
 *
 * # Expected flow
 * `indexField` records the index for the resource's GVK (informers that start later get it with
 * their spec) and adds it to each running informer of that GVK as a late index
 * (`shell/cache/lateIndex.ts`), under the cache's lock so that no informer starts in between.
 *
 * # Guarantees
 * - The first index of a name wins: a second one of the same name for the GVK changes nothing.
 * - A late index's handler lives in its informer's scope and stops with it.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import * as Scope from "effect/Scope"
import * as SynchronizedRef from "effect/SynchronizedRef"
import { gvkString } from "../../core/scopedcache/types.ts"
import type { KubeObject, ResourceRef } from "../kube/resource.ts"
import type { IndexFunc } from "../reflector/store.ts"
import { type CacheContext, gvkOf } from "./context.ts"

/** `indexField`: the index for the resource's informers, present and future. */
export const indexField = <T extends KubeObject = KubeObject>(
  ctx: CacheContext,
  r: ResourceRef,
  name: string,
  extract: IndexFunc<T>,
): Effect.Effect<void> =>
  SynchronizedRef.modifyEffect(ctx.state, (s) =>
    Effect.gen(function* () {
      const g = gvkString(gvkOf(r))
      const byName = ctx.indexers.get(g) ?? new Map<string, IndexFunc<KubeObject>>()
      if (byName.has(name)) return [undefined, s] as const
      const fn = extract as unknown as IndexFunc<KubeObject>
      byName.set(name, fn)
      ctx.indexers.set(g, byName)
      for (const running of ctx.levels.all())
        if (gvkString(running.ref.gvk) === g)
          yield* running.informer.addIndex(name, fn).pipe(Scope.provide(running.scope))
      return [undefined, s] as const
    }),
  )
