/**
 * The table of `krtt propagate` (docs/fleet.md), transcribed as data.
 *
 * @module
 */
import type { AnyTableSpec } from "../../core/krtt/index.ts"
import { copy } from "./copy.ts"

export { copy }

export const tables: ReadonlyArray<AnyTableSpec> = [copy]
