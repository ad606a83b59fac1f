/**
 * The six tables of seed 001 (the Cluster controller), transcribed as data: the three KRTT
 * tables and the three flowcharts of the reconcile phases.
 *
 * @module
 */
import type { AnyTableSpec } from "../../core/krtt/index.ts"
import { controlPlaneTable } from "./controlplane.ts"
import { deleteFlowTable } from "./deleteflow.ts"
import { deletionTable } from "./deletion.ts"
import { errorsTable } from "./errors.ts"
import { infrastructureTable } from "./infrastructure.ts"
import { normalTable } from "./normal.ts"

export { controlPlaneTable, deleteFlowTable, deletionTable, errorsTable, infrastructureTable, normalTable }

export const tables: ReadonlyArray<AnyTableSpec> = [
  normalTable,
  deletionTable,
  errorsTable,
  infrastructureTable,
  controlPlaneTable,
  deleteFlowTable,
]
