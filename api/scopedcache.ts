/**
 * `krtt/scopedcache`: the dynamic scoped cache (seed 002, docs/scopedcache.md). Informers per
 * namespace or cluster scope, counted by their dependents, stopped when none is left, within a
 * second of a 403 on their list or watch, or when a permission recheck (every 10 s by default)
 * finds their grant revoked. Reads are served only by existing informers, with field selectors,
 * `limit` and `continue`; the cache's own errors (`CacheNotFound`, `InformerForbidden`,
 * `CacheNotStarted`, `InformerNotFound`) are told apart from the API server's.
 * `scopedCacheFactory` and `makeScopedCacheFactory` make it the cache of a multi-cluster provider
 * or of the ClusterCache; `asScopedCache` gives back the scoped cache behind such a cache.
 *
 * @module
 */
export {
  type AccessDecision,
  type AccessRequest,
  type AccessReviewer,
  selfSubjectAccessReviewer,
} from "../shell/scopedcache/accessReview.ts"
export {
  CacheNotFound,
  CacheNotStarted,
  InformerForbidden,
  InvalidContinueToken,
  isCacheError,
} from "../shell/scopedcache/errors.ts"
export { asScopedCache, makeScopedCacheFactory, scopedCacheFactory } from "../shell/scopedcache/factory.ts"
export { type MergeFilter, mergeStores } from "../shell/scopedcache/merge.ts"
export {
  InvalidScopedCacheOptionsError,
  type KeyFunc,
  type ListOptionsFunc,
  type ResourceOptions,
  ScopedCacheDefaults,
  type ScopedCacheOptions,
  type TransformFunc,
} from "../shell/scopedcache/options.ts"
export type { CachePage, PageOptions } from "../shell/scopedcache/page.ts"
export { ClusterScopedCache, Levels, NamespaceScopedCache } from "../shell/scopedcache/running.ts"
export {
  type AddInformerOptions,
  type InformerInfo,
  InformerNotFound,
  makeScopedCache,
  type RemoveInformerOptions,
  type ScopedCache,
  type ScopedCacheEvent,
  type ScopedListOptions,
} from "../shell/scopedcache/scopedCache.ts"
