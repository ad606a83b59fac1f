/**
 * The IPAM Cluster controller (seed 004; upstream openmcp-project/platform-service-gardener-ipam)
 * as pure data and decisions: the IPAMConfig model and its validation, CIDRs of both families,
 * the allocator, rule matching, the trigger rules, the reconcile of one Cluster, and the state
 * restored from annotations and ClusterConfigs.
 *
 * @module
 */
export * from "./actions.ts"
export * from "./admission.ts"
export * from "./align.ts"
export * from "./allocator.ts"
export * from "./apply.ts"
export * from "./cidr.ts"
export * from "./config.ts"
export * from "./constants.ts"
export * from "./match.ts"
export * from "./objects.ts"
export * from "./paths.ts"
export * from "./reconcile.ts"
export * from "./release.ts"
export * from "./restore.ts"
export * from "./schema.ts"
export * from "./trigger.ts"
