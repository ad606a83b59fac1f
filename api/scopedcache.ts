/**
 * `krtt/scopedcache`: the dynamic scoped cache (seed 002). Informers per namespace or cluster
 * scope, counted by their dependents, stopped when none is left or within a second of a 403 on
 * their list or watch; reads served only by existing informers, with a typed
 * `InformerNotFound`. `asScopedCache` and `makeScopedCacheFactory` make it the cache of a
 * multi-cluster provider.
 *
 * @module
 */
export {
  type AccessDecision,
  type AccessRequest,
  type AccessReviewer,
  selfSubjectAccessReviewer,
} from "../shell/scopedcache/accessReview.ts"
export { asScopedCache, makeScopedCacheFactory } from "../shell/scopedcache/factory.ts"
export { type MergeFilter, mergeStores } from "../shell/scopedcache/merge.ts"
export {
  InvalidScopedCacheOptions,
  type KeyFunc,
  type ListOptionsFunc,
  type ResourceOptions,
  ScopedCacheDefaults,
  type ScopedCacheOptions,
  type TransformFunc,
} from "../shell/scopedcache/options.ts"
export { ClusterScopedCache, Levels, NamespaceScopedCache } from "../shell/scopedcache/running.ts"
export {
  type AddInformerOptions,
  type InformerInfo,
  InformerNotFound,
  makeScopedCache,
  type RemoveInformerOptions,
  type ScopedCache,
  type ScopedCacheEvent,
} from "../shell/scopedcache/scopedCache.ts"
