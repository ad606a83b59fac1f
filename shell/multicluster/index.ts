/**
 * Package multicluster: the multi-cluster runtime of seed 003 ("Multi-Cluster Support"): a
 * manager that providers engage clusters with, controllers that start their sources per engaged
 * cluster and share one cluster-fair work queue, event handlers copied per cluster, sharding of
 * provider clusters across replicas, and an in-memory provider for tests and examples. The
 * providers themselves are in `providers/`.
 *
 * @module
 */
export {
  type Builder,
  BuilderError,
  type BuilderOptions,
  controllerManagedBy,
  typedControllerManagedBy,
  type WatchOptions,
} from "./builder.ts"
export { type ClusterOptions, makeCluster } from "./cluster.ts"
export {
  clusterFromContext,
  currentCluster,
  NoClusterInContextError,
  ReconcileCluster,
  withCluster,
} from "./context.ts"
export {
  type MultiClusterController,
  type MultiClusterControllerOptions,
  make as makeController,
} from "./controller.ts"
export type { ControllerHost } from "./controllerState.ts"
export {
  type ClusterEventHandler,
  enqueueRequestForObject,
  enqueueRequestForOwner,
  enqueueRequestsForClusters,
  enqueueRequestsFromMapFunc,
  eventRequests,
  type FanOutOptions,
  handlerFor,
  mapHandler,
  type OwnerHandlerOptions,
} from "./handler.ts"
export { type ManagerOptions, type MultiClusterManager, make as makeManager } from "./manager.ts"
export { type MemoryProvider, makeMemoryProvider } from "./memoryProvider.ts"
export type { PairView } from "./pairs.ts"
export {
  acquirable,
  assignment,
  claimedByPeer,
  liveMembers,
  type Observations,
  observe,
  ownerOf,
  type PeerLease,
  type Plan,
  plan,
  weight,
} from "./rendezvous.ts"
export {
  type ClusterAware,
  type CustomRequestOptions,
  checkRequest,
  clusterRequest,
  customRequest,
  type ObjectKey,
  type RequestType,
  RequestTypeError,
} from "./request.ts"
export {
  makeShardGate,
  ShardDefaults,
  type ShardGate,
  type ShardOptions,
  type ShardStatus,
} from "./sharding.ts"
export { SHARD_GROUP_LABEL, SHARD_VIEW_ANNOTATION } from "./shardLease.ts"
export * from "./types.ts"
export type { EngageOptions, WatchDeclaration } from "./watchOptions.ts"
