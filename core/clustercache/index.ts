/**
 * Cluster API's ClusterCache (seed 000) as pure transitions: the ClusterCache Reconciler,
 * clusterAccessor Connect/Disconnect, Health Checking, Watch Management, Event Trigger
 * Conditions for cluster sources and Error Handling.
 *
 * @module
 */
export * from "./accessor.ts"
export * from "./actions.ts"
export * from "./config.ts"
export * from "./driver.ts"
export * from "./errors.ts"
export * from "./events.ts"
export * from "./health.ts"
export * from "./reconciler.ts"
export * from "./schema.ts"
export * from "./state.ts"
export * from "./transitions.ts"
export * from "./watch.ts"
