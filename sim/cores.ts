/**
 * The cores a simulation embeds: the ClusterCache's Reconciler and clusterAccessor tables
 * (seed 000) and the Cluster controller's reconcile (seed 001), unmodified. They are parameters
 * so that a custom simulation can wrap them, e.g. to prove that a broken table is caught by the
 * invariants.
 *
 * @module
 */

// The modules themselves, not the index: the index re-exports the input schemas, which load
// effect (250 modules, ~60 MiB) in every worker for nothing.
import type { ClusterAction } from "../core/cluster/actions.ts"
import type { ClusterControllerConfig } from "../core/cluster/config.ts"
import { decide } from "../core/cluster/decide.ts"
import {
  type ClusterTransition,
  CONTROL_PLANE,
  controlPlaneRow,
  DELETE_FLOW,
  DELETION,
  deleteFlowRow,
  deletionRow,
  ERRORS,
  errorsRow,
  INFRASTRUCTURE,
  infrastructureRow,
  NORMAL,
  normalRow,
} from "../core/cluster/transitions.ts"
import type { ClusterInput, ClusterStatus } from "../core/cluster/types.ts"
import { type AccessorInput, type AccessorResult, accessorTransition } from "../core/clustercache/accessor.ts"
import type { ClusterCacheConfig } from "../core/clustercache/config.ts"
import {
  type ReconcilerInput,
  type ReconcilerResult,
  reconcilerTransition,
} from "../core/clustercache/reconciler.ts"
import { type RowId, rowId } from "../core/krtt/index.ts"

/** One Cluster controller reconcile as the simulation sees it: actions, status, and the rows that decided. */
export interface ClusterStep {
  readonly actions: ReadonlyArray<ClusterAction>
  readonly status: ClusterStatus | undefined
  readonly rows: ReadonlyArray<RowId>
}

/** The Cluster controller: one reconcile of one Cluster. */
export type ClusterControllerCore = (input: ClusterInput, config: ClusterControllerConfig) => ClusterStep

/** The cores a simulation runs. */
export interface SimCores {
  /** The ClusterCache Reconciler table. */
  readonly reconciler: (input: ReconcilerInput, config: ClusterCacheConfig) => ReconcilerResult
  /** The clusterAccessor Connect/Disconnect table. */
  readonly accessor: (input: AccessorInput, config: ClusterCacheConfig) => AccessorResult
  readonly cluster: ClusterControllerCore
}

const ids = (table: string): ReadonlyArray<RowId> => Array.from({ length: 32 }, (_, n) => rowId(table, n))
const NORMAL_ROWS = ids(NORMAL)
const DELETION_ROWS = ids(DELETION)
const ERRORS_ROWS = ids(ERRORS)
const INFRA_ROWS = ids(INFRASTRUCTURE)
const CP_ROWS = ids(CONTROL_PLANE)
const DELETE_FLOW_ROWS = ids(DELETE_FLOW)
const row = (rows: ReadonlyArray<RowId>, table: string, n: number): RowId => rows[n] ?? rowId(table, n)

/**
 * The Cluster controller of `core/cluster`: one reconcile, and the row of every table that the
 * reconcile went through: Normal or Deletion Reconciliation, reconcileInfrastructure and
 * reconcileControlPlane when the phases ran, reconcileDelete when deleting, Error Handling when
 * it ends in an error. (Each table's transition is a view of this same reconcile; running it
 * once and naming the rows of all of them is what running each view would give, at a sixth of
 * the cost.)
 */
export const clusterController: ClusterControllerCore = (input, config) => {
  const { actions, status, trace } = decide(input, config)
  const rows: Array<RowId> = []
  if (trace.deleting) rows.push(row(DELETION_ROWS, DELETION, deletionRow(trace)))
  else rows.push(row(NORMAL_ROWS, NORMAL, normalRow(trace)))
  if (trace.exit === "Phases") {
    rows.push(row(INFRA_ROWS, INFRASTRUCTURE, infrastructureRow(trace)))
    rows.push(row(CP_ROWS, CONTROL_PLANE, controlPlaneRow(trace)))
    if (trace.deleting) rows.push(row(DELETE_FLOW_ROWS, DELETE_FLOW, deleteFlowRow(trace)))
  }
  if (trace.error) rows.push(row(ERRORS_ROWS, ERRORS, errorsRow(trace)))
  return { actions, status, rows }
}

/** A Cluster controller from one table's transition (for instance a wrapped one). */
export const clusterControllerOf =
  (transition: ClusterTransition): ClusterControllerCore =>
  (input, config) => {
    const r = transition(input, config)
    return { actions: r.actions, status: r.status, rows: [r.row] }
  }

/** The unmodified cores. */
export const defaultCores: SimCores = {
  reconciler: reconcilerTransition,
  accessor: accessorTransition,
  cluster: clusterController,
}
