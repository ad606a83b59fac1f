/**
 * The dynamic scoped cache's tables (seed 002), transcribed as data.
 *
 * @module
 */
import type { AnyTableSpec } from "../../core/krtt/index.ts"
import { informers } from "./informers.ts"
import { lifecycle } from "./lifecycle.ts"
import { reads } from "./reads.ts"

export * from "./resolutions.ts"
export { informers, lifecycle, reads }

export const tables: ReadonlyArray<AnyTableSpec> = [informers, lifecycle, reads]
