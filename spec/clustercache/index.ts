/**
 * The six ClusterCache tables of seed 000, transcribed as data.
 *
 * @module
 */
import type { AnyTableSpec } from "../../core/krtt/index.ts"
import { accessor } from "./accessor.ts"
import { errors } from "./errors.ts"
import { events } from "./events.ts"
import { health } from "./health.ts"
import { reconciler } from "./reconciler.ts"
import { watch } from "./watch.ts"

export { accessor, errors, events, health, reconciler, watch }

export const tables: ReadonlyArray<AnyTableSpec> = [reconciler, accessor, health, watch, events, errors]
