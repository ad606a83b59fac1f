/**
 * Indexes of the informer cache (`Cache.indexField`): one per resource and name, applied to the
 * resource's informers that exist and to every later one.
 *
 * # Expected flow
 * A provider or the manager calls `indexField` before or after the resource's informers start.
 * The function is recorded for informers yet to come (`informers.ts` starts them with it), and each
 * present informer gets it as a late index (`lateIndex.ts`): filled from its store, then kept by a
 * handler that lives in the informer's scope.
 *
 * # Guarantees
 * - Runs under the context's lock, so an informer starting at the same time gets the index either
 *   from its start or as a late index, never both and never neither.
 * - The same function under the same name again is a no-op (a provider and the manager may both
 *   apply an index); another function under a taken name is dropped with a warning, keeping the
 *   first.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import * as Scope from "effect/Scope"
import type { KubeObject, ResourceRef } from "../kube/resource.ts"
import type { IndexFunc } from "../reflector/store.ts"
import { type CacheContext, resourceId } from "./context.ts"

/** `Cache.indexField`: adds the index `name` to `r`'s informers, present and future. */
export const indexField = <T extends KubeObject = KubeObject>(
  ctx: CacheContext,
  r: ResourceRef,
  name: string,
  extract: IndexFunc<T>,
): Effect.Effect<void> =>
  ctx.lock.withPermits(1)(
    Effect.gen(function* () {
      const id = resourceId(r)
      let byName = ctx.indexers.get(id)
      if (byName === undefined) {
        byName = new Map()
        ctx.indexers.set(id, byName)
      }
      const fn = extract as unknown as IndexFunc<KubeObject>
      const existing = byName.get(name)
      // The same function again (a provider and the manager both apply an index): nothing to do.
      if (existing === fn) return
      if (existing !== undefined) {
        yield* Effect.logWarning("another index of this name exists; keeping the first").pipe(
          Effect.annotateLogs({ cluster: ctx.options.cluster, resource: r.resource, index: name }),
        )
        return
      }
      byName.set(name, fn)
      for (const entry of ctx.entries.values())
        if (resourceId(entry.informer.resource) === id)
          yield* entry.store.addIndex(name, fn, entry.reflector.subscribe).pipe(Scope.provide(entry.scope))
    }),
  )
