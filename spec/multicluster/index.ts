/**
 * The multi-cluster table of seed 003, transcribed as data.
 *
 * @module
 */
import type { AnyTableSpec } from "../../core/krtt/index.ts"
import { engagement } from "./engagement.ts"

export { engagement }

export const tables: ReadonlyArray<AnyTableSpec> = [engagement]
