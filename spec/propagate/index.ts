/**
 * The table of `krtt propagate` (issue 14 item 3), transcribed as data.
 *
 * @module
 */
import type { AnyTableSpec } from "../../core/krtt/index.ts"
import { copy } from "./copy.ts"

export { copy }

export const tables: ReadonlyArray<AnyTableSpec> = [copy]
