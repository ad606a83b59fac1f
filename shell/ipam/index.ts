/**
 * The IPAM controller's shell (seed 004): it interprets what core/ipam decides for openmcp
 * Clusters, ClusterConfigs and the IPAMConfig, holds the allocator state, and runs as
 * `krtt ipam` (docs/ipam.md).
 *
 * @module
 */
export {
  type IpamController,
  IpamControllerDefaults,
  type IpamControllerOptions,
  makeIpamController,
} from "./controller.ts"
export { describeAction, IpamReconcileError, IpamWriteError } from "./errors.ts"
export { type InterpretContext, type Interpreter, type IpamOutcome, makeInterpreter } from "./interpret.ts"
export { allocatedAddresses, decisions, freeAddresses, stateRestores } from "./metrics.ts"
export {
  ClusterConfigResource,
  clusterConfigView,
  clusterView,
  IpamConfigResource,
  OpenmcpClusterResource,
  requiredCrds,
} from "./resources.ts"
export { IpamDefaults, type IpamOptions, runIpam } from "./run.ts"
export { type IpamStore, makeIpamStore, type Ticket } from "./state.ts"
