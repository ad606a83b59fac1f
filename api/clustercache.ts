/**
 * `krtt/clustercache`: Cluster API's ClusterCache (seed 000) as a library, for controllers that
 * act on workload clusters (docs/clustercache.md). One connection per workload Cluster, made from
 * its `<cluster>-kubeconfig` Secret, probed on the documented interval and dropped at the failure
 * threshold or on a 401. For each connected cluster: a cached client (reads from the cluster's
 * cache, writes to its API server), a reader with `get` and `list`, an uncached client, and
 * watches that return at once. A rotated kubeconfig Secret with the same server and CA gives new
 * requests the new credentials without stopping the cache's informers. `makeClusterCacheController`
 * runs its reconciler on the Clusters of a management cluster; the decisions are the pure tables
 * of `krtt/core`'s `clustercache`.
 *
 * @module
 */
export {
  type ClusterCacheConfig,
  ClusterCacheDefaults,
  clusterCacheConfig,
} from "../core/clustercache/config.ts"
export { TableLoopError } from "../core/krtt/run.ts"
export type { CachedReader } from "../shell/clustercache/cachedClient.ts"
export {
  type ClusterCacheControllerOptions,
  clusterOfKubeconfigSecret,
  makeClusterCacheController,
} from "../shell/clustercache/controller.ts"
export {
  ClusterCache,
  type ClusterCacheOptions,
  type ClusterCacheShape,
  type ClusterKey,
  ClusterNotConnectedError,
  ClusterResource,
  type ConnectionFactory,
  layer,
  make as makeClusterCache,
  type ReconcileOutcome,
  restConnectionFactory,
  WatchError,
  type Watcher,
} from "../shell/clustercache/service.ts"
