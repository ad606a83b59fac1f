/**
 * The scoped cache as a `CacheFactory` (`shell/cache/types.ts`): what the multi-cluster providers
 * and the ClusterCache take to run each cluster's cache on it.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import type { CacheFactory } from "../cache/types.ts"
import { InvalidScopedCacheOptionsError, type ScopedCacheOptions, scopedCacheConfig } from "./options.ts"
import { makeScopedCache, type ScopedCache } from "./scopedCache.ts"

/**
 * A factory of scoped caches with these options. The options are checked here, once: bad options
 * throw `InvalidScopedCacheOptionsError` (naming the field) when the factory is made, not when a
 * cluster connects. Its caches are started at once, in the scope they are made in (like the
 * informer cache, whose informers run from their first use): providers and `makeCluster` do not
 * call `start`; calling it again changes nothing (`scopedcache.lifecycle`, Start again).
 */
export const makeScopedCacheFactory = (options: ScopedCacheOptions = {}): CacheFactory => {
  const checked = scopedCacheConfig(options)
  if (checked instanceof InvalidScopedCacheOptionsError) throw checked
  return (client, { cluster }) =>
    // Checked above: makeScopedCache cannot refuse these options.
    Effect.tap(Effect.orDie(makeScopedCache(client, { ...options, cluster })), (cache) => cache.start)
}

/**
 * The scoped cache with its defaults, except that `getInformer` adds a missing informer
 * (`startOnGetInformer`), since multi-cluster controllers find their informers through it.
 */
export const scopedCacheFactory: CacheFactory = makeScopedCacheFactory({ startOnGetInformer: true })

/** The scoped cache behind a `Cache` made by a scoped cache factory, for `addInformer` and the rest. */
export const asScopedCache = (cache: object): ScopedCache | undefined =>
  "addInformer" in cache && "removeInformer" in cache && "levels" in cache
    ? (cache as ScopedCache)
    : undefined
