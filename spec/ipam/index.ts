/**
 * Seed 004 (the IPAM Cluster controller), transcribed as data: the trigger rules and the
 * reconcile of one Cluster.
 *
 * @module
 */
import type { AnyTableSpec } from "../../core/krtt/index.ts"
import { reconcileTable } from "./reconcile.ts"
import { triggerTable } from "./trigger.ts"

export { reconcileTable, triggerTable }

export const tables: ReadonlyArray<AnyTableSpec> = [triggerTable, reconcileTable]
