/**
 * The dynamic scoped cache of seed 002 as pure data and transitions: the registry of informers by
 * scope, GVK and key with their dependents, and the tables that add, remove, stop, start and read
 * through them. The shell (`shell/scopedcache/`) keeps the registry and interprets the actions.
 *
 * @module
 */
export * from "./actions.ts"
export * from "./dependents.ts"
export * from "./informers.ts"
export * from "./lifecycle.ts"
export * from "./options.ts"
export * from "./reads.ts"
export * from "./registry.ts"
export * from "./schema.ts"
export * from "./transitions.ts"
export * from "./types.ts"
