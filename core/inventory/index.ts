/**
 * `krtt inventory`'s decision (seed 003, Goals 2, the aggregating multi-cluster controller): what one cluster's entry in the hub ConfigMap `krtt-inventory` must
 * be, its numbers, and the schema of its input.
 *
 * @module
 */
import { entryTransition } from "./entry.ts"

export * from "./config.ts"
export * from "./entry.ts"
export * from "./schema.ts"

/** The inventory transitions by table id. */
export const transitions = { "inventory.entry": entryTransition } as const
