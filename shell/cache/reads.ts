/**
 * Reads from the informers' stores: `get` and `list`, each served by the informers that cover its
 * namespace once they have listed.
 *
 * # Expected flow
 * A read finds its serving namespace scopes (`servingScopes`), gets or creates their informers
 * (`informers.ts`), waits for their first list (`sync.ts`), then reads their stores.
 *
 * # Guarantees
 * - A read in namespace `n` is served by the all-namespaces informer when there is one, else by
 *   `n`'s own informer. A list without namespace is served by the all-namespaces informer, or, with
 *   `namespaces` set (controller-runtime's `DefaultNamespaces`), by each namespace's informer,
 *   merged without duplicates.
 * - A read outside `namespaces` fails with `InformerNotFound`; an object missing from the serving
 *   store fails `get` with the API's `NotFound`.
 * - A cluster-scoped resource ignores the namespace of a read.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import { NotFound } from "../kube/errors.ts"
import { type KubeObject, keyOf, type ObjectKey, type ResourceRef, resourcePath } from "../kube/resource.ts"
import { matchesLabelSelector } from "../kube/selector.ts"
import { storeKey } from "../reflector/store.ts"
import { type CacheContext, type Entry, informerKey, outsideNamespacesError, scopeOf } from "./context.ts"
import { informerFor } from "./informers.ts"
import { synced } from "./sync.ts"
import type { CacheError, CacheListOptions } from "./types.ts"

/** The scopes whose informers serve a read of `r` in `namespace` (undefined: all). */
const servingScopes = (
  ctx: CacheContext,
  r: ResourceRef,
  namespace: string | undefined,
): Effect.Effect<ReadonlyArray<string | undefined>, CacheError> => {
  const ns = scopeOf(r, namespace)
  const { allowed } = ctx
  if (!r.namespaced || allowed === undefined) {
    if (ns !== undefined && ctx.entries.has(informerKey(r, undefined))) return Effect.succeed([undefined])
    return Effect.succeed([ns])
  }
  if (ns === undefined) return Effect.succeed([...allowed])
  if (allowed.has(ns)) return Effect.succeed([ns])
  return Effect.fail(outsideNamespacesError(ctx, allowed, r, ns))
}

/** The synced informers that serve a read of `r` in `namespace`. */
const servingEntries = (
  ctx: CacheContext,
  r: ResourceRef,
  namespace: string | undefined,
): Effect.Effect<ReadonlyArray<Entry>, CacheError> =>
  Effect.flatMap(servingScopes(ctx, r, namespace), (scopes) =>
    Effect.forEach(scopes, (s) => Effect.flatMap(informerFor(ctx, r, s), (entry) => synced(ctx, entry))),
  )

/** `Cache.get`: the object at `key`, or `NotFound`. */
export const get = <T extends KubeObject = KubeObject>(
  ctx: CacheContext,
  r: ResourceRef,
  key: ObjectKey,
): Effect.Effect<T, CacheError> =>
  Effect.gen(function* () {
    const [entry] = yield* servingEntries(ctx, r, key.namespace)
    const object = entry?.store.get(r.namespaced ? key : { name: key.name })
    if (object === undefined)
      return yield* new NotFound({
        verb: "get",
        path: resourcePath(r, key),
        message: `${r.resource} "${keyOf(r.namespaced ? key : { name: key.name })}" not found in the cache of cluster "${ctx.options.cluster}"`,
      })
    return object as T
  })

/** `Cache.list`: the objects of the serving informers that match `o`, each once. */
export const list = <T extends KubeObject = KubeObject>(
  ctx: CacheContext,
  r: ResourceRef,
  o: CacheListOptions = {},
): Effect.Effect<ReadonlyArray<T>, CacheError> =>
  Effect.gen(function* () {
    const served = yield* servingEntries(ctx, r, o.namespace)
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
  })
