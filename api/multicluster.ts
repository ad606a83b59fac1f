/**
 * `krtt/multicluster`: the multi-cluster runtime (seed 003). A manager that cluster providers
 * engage clusters with, and that engages every cluster-aware runnable added to it; controllers
 * built with `controllerManagedBy` (or `typedControllerManagedBy` for a request type of one's
 * own) whose requests carry the cluster they are for, with one cluster-fair work queue each and
 * engage options per watch; the reconcile's cluster in context (`currentCluster`); event
 * handlers, among them a fan-out of one hub object to the clusters it names; sharding of
 * clusters across replicas; the providers (`cluster-api`, `cluster-inventory-api`,
 * `kubeconfig-secrets`, `kubeconfig-file`, `namespaces`, their composition, and an in-memory one
 * for tests); and `programMain`, which runs a program with the command line and signals of an
 * operator.
 *
 * @module
 */

export {
  enqueueRequestForObject,
  enqueueRequestForOwner,
  enqueueRequestsForClusters,
  enqueueRequestsFromMapFunc,
  type FanOutOptions,
  type OwnerHandlerOptions,
} from "../shell/controller/handler.ts"
export {
  done,
  type ReconcileResult,
  requeue,
  requeueAfter,
  TerminalError,
} from "../shell/controller/result.ts"
export {
  type Builder,
  BuilderError,
  type BuilderOptions,
  controllerManagedBy,
  typedControllerManagedBy,
  type WatchOptions,
} from "../shell/multicluster/builder.ts"
export { type ClusterOptions, makeCluster } from "../shell/multicluster/cluster.ts"
export {
  clusterFromContext,
  currentCluster,
  NoClusterInContextError,
  ReconcileCluster,
} from "../shell/multicluster/context.ts"
export {
  type MultiClusterController,
  type MultiClusterControllerOptions,
  make as makeController,
} from "../shell/multicluster/controller.ts"
export type { ClusterEventHandler } from "../shell/multicluster/handler.ts"
export {
  type ManagerOptions,
  type MultiClusterManager,
  make as makeManager,
} from "../shell/multicluster/manager.ts"
export { type MemoryProvider, makeMemoryProvider } from "../shell/multicluster/memoryProvider.ts"
export {
  type ProgramContext,
  type ProgramFlags,
  ProgramUsageError,
  parseProgramFlags,
  programMain,
  runProgram,
} from "../shell/multicluster/program.ts"
export {
  type AccessConfig,
  type AccessProviderConfig,
  ClusterApiDefaults,
  type ClusterApiOptions,
  type ClusterProfile,
  ClusterProfileDefaults,
  type ClusterProfileOptions,
  ClusterProfiles,
  composeProviders,
  DefaultKubeconfigGlobs,
  HealthDefaults,
  type HealthOptions,
  KubeconfigFileDefaults,
  type KubeconfigFileOptions,
  KubeconfigSecretsDefaults,
  type KubeconfigSecretsOptions,
  makeClusterApiProvider,
  makeClusterProfileProvider,
  makeKubeconfigFileProvider,
  makeKubeconfigSecretsProvider,
  makeNamespacesProvider,
  makeProvider,
  NamespacesDefaults,
  type NamespacesOptions,
  type ProviderFlags,
  ProviderUsageError,
  providerNames,
  readAccessConfig,
} from "../shell/multicluster/providers/index.ts"
export {
  type ClusterAware,
  type CustomRequestOptions,
  clusterRequest,
  customRequest,
  type ObjectKey,
  type RequestType,
  RequestTypeError,
} from "../shell/multicluster/request.ts"
export {
  makeShardGate,
  ShardDefaults,
  type ShardGate,
  type ShardOptions,
  type ShardStatus,
} from "../shell/multicluster/sharding.ts"
export {
  type Aware,
  type Cluster,
  type ClusterAwareRunnable,
  ClusterNotFound,
  type ClusterState,
  EngageFailedError,
  type Provider,
} from "../shell/multicluster/types.ts"
export type { EngageOptions } from "../shell/multicluster/watchOptions.ts"
export {
  ClusterName,
  formatRequest,
  HubCluster,
  makeRequest,
  type Request,
} from "../shell/workqueue/request.ts"
