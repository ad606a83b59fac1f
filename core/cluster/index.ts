/**
 * Cluster API's Cluster controller (seed 001) as pure transitions: the top-level Reconcile, the
 * reconcileInfrastructure, reconcileControlPlane and reconcileDelete flowcharts, and the Normal
 * Reconciliation, Deletion Reconciliation and Error Handling tables, all views of one reconcile.
 *
 * @module
 */
export * from "./actions.ts"
export * from "./conditions.ts"
export * from "./config.ts"
export * from "./contract.ts"
export * from "./delete.ts"
export * from "./descendants.ts"
export * from "./external.ts"
export * from "./failure.ts"
export * from "./reconcile.ts"
export * from "./schema.ts"
export * from "./status.ts"
export * from "./transitions.ts"
export * from "./types.ts"
