/**
 * Issue 14, item 2 (`krtt inventory`, seed 003's aggregating multi-cluster controller),
 * transcribed as data: one cluster's inventory entry.
 *
 * @module
 */
import type { AnyTableSpec } from "../../core/krtt/index.ts"
import { entryTable } from "./entry.ts"

export { entryTable }

export const tables: ReadonlyArray<AnyTableSpec> = [entryTable]
