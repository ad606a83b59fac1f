/**
 * Package scopedcache: the dynamic scoped cache of seed 002. Informers per namespace or cluster
 * scope, counted by their dependents, stopped when none is left or when their list or watch is
 * answered 403; reads served only by existing informers. The decisions are the registry's
 * (`core/scopedcache/`); this package runs the informers (the project's reflector) and reads
 * their stores.
 *
 * @module
 */
export {
  type AccessDecision,
  type AccessRequest,
  type AccessReviewer,
  SelfSubjectAccessReviews,
  selfSubjectAccessReviewer,
} from "./accessReview.ts"
export {
  CacheNotFound,
  CacheNotStarted,
  InformerForbidden,
  InvalidContinueToken,
  isCacheError,
} from "./errors.ts"
export { asScopedCache, makeScopedCacheFactory, scopedCacheFactory } from "./factory.ts"
export {
  type InformerFactory,
  type InformerHooks,
  type InformerSpec,
  type PermissionLoss,
  reflectorInformerFactory,
  type ScopeInformer,
} from "./informer.ts"
export { type MergeFilter, mergeStores } from "./merge.ts"
export {
  InvalidScopedCacheOptionsError,
  type KeyFunc,
  type ListOptionsFunc,
  type ResourceOptions,
  type ScopedCacheConfig,
  ScopedCacheDefaults,
  type ScopedCacheOptions,
  scopedCacheConfig,
  type TransformFunc,
} from "./options.ts"
export type { CachePage, PageOptions } from "./page.ts"
export { ClusterScopedCache, Levels, NamespaceScopedCache, type Running } from "./running.ts"
export {
  type AddInformerOptions,
  type InformerInfo,
  InformerNotFound,
  makeScopedCache,
  type RemoveInformerOptions,
  type ScopedCache,
  type ScopedCacheEvent,
  type ScopedListOptions,
} from "./scopedCache.ts"
