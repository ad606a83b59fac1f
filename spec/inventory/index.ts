/**
 * `krtt inventory` (seed 003's aggregating multi-cluster controller; docs/fleet.md),
 * transcribed as data: one cluster's inventory entry.
 *
 * @module
 */
import type { AnyTableSpec } from "../../core/krtt/index.ts"
import { entryTable } from "./entry.ts"

export { entryTable }

export const tables: ReadonlyArray<AnyTableSpec> = [entryTable]
