/**
 * `krtt/ipam`: openmcp's Gardener IPAM controller (seed 004) as a library. `validateIpamConfig`
 * checks an IPAMConfig as the controller reads it; `runIpam` runs the controller that allocates
 * CIDRs from the configured parents and injects them into Clusters through ClusterConfigs. The
 * allocator, the rule matching and the tables are pure, in `krtt/core`'s `ipam` namespace.
 *
 * @module
 */
export {
  type ConfigIssue,
  type IpamConfigSpec,
  type ValidationResult,
  validateIpamConfig,
} from "../core/ipam/config.ts"
export {
  type IpamController,
  IpamControllerDefaults,
  type IpamControllerOptions,
  makeIpamController,
} from "../shell/ipam/controller.ts"
export {
  ClusterConfigResource,
  IpamConfigResource,
  OpenmcpClusterResource,
} from "../shell/ipam/resources.ts"
export { IpamDefaults, type IpamOptions, runIpam } from "../shell/ipam/run.ts"
