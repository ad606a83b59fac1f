/**
 * `krtt/cluster`: Cluster API's Cluster controller (seed 001) as a library, and the manager that
 * `krtt run` is. `makeClusterController` reconciles Clusters against their infrastructure and
 * control plane through the provider contracts, with the ClusterCache of `krtt/clustercache`;
 * `runManager` runs the whole operator (both controllers, webhooks, metrics, probes, leader
 * election) with extra runnables of your own. Defaulting, validation and v1beta1⇄v1beta2
 * conversion of a Cluster are pure functions here too.
 *
 * @module
 */
export { defaultCluster, validateCluster } from "../core/cluster/admission.ts"
export {
  type ClusterControllerConfig,
  ClusterControllerDefaults,
  clusterControllerConfig,
} from "../core/cluster/config.ts"
export { ConversionError, convertCluster } from "../core/cluster/conversion.ts"
export type {
  ClusterPhase,
  ClusterSpec,
  ClusterStatus,
  Condition,
  FeatureGates,
} from "../core/cluster/types.ts"
export {
  type ClusterControllerOptions,
  ClusterReconcileError,
  FeatureGateDefaults,
  makeClusterController,
} from "../shell/cluster/controller.ts"
export { type ResolvedKubeconfig, resolveKubeconfig } from "../shell/manager/kubeconfig.ts"
export { ManagerDefaults, type ManagerOptions } from "../shell/manager/options.ts"
export { type ManagerContext, type Runnable, runManager } from "../shell/manager/run.ts"
