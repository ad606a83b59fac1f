/**
 * `krtt why`'s reading of one reconcile: the row of every table view that decided something, in
 * the order of the docs, with what it waits on, and the status the tables would write. The shell
 * adds each row's documented text (shell/why/diagnose.ts).
 *
 * The views: Normal or Deletion Reconciliation always; reconcileInfrastructure and
 * reconcileControlPlane when their phase ran; reconcileDelete when it ran; Error Handling when
 * the reconcile ends in an error (a failed get of the Cluster or its ClusterClass included).
 *
 * @module
 */
import type { RowId } from "../krtt/types.ts"
import { rowId } from "../krtt/types.ts"
import type { ClusterControllerConfig } from "./config.ts"
import { decide } from "./decide.ts"
import {
  type ClusterTableId,
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
} from "./transitions.ts"
import type { ClusterInput, ClusterStatus } from "./types.ts"
import { deletionWait, externalWait, gateWait } from "./waitingOn.ts"

/** One table view's deciding row, and what it waits on when it waits. */
export interface ViewRow {
  readonly table: ClusterTableId
  readonly row: RowId
  readonly waitingOn?: string | undefined
}

/** The rows of one reconcile and the status the tables would write. */
export interface WhyReconcile {
  readonly rows: ReadonlyArray<ViewRow>
  readonly status: ClusterStatus | undefined
}

const viewRow = (table: ClusterTableId, n: number, waitingOn: string | undefined): ViewRow => ({
  table,
  row: rowId(table, n),
  ...(waitingOn === undefined ? {} : { waitingOn }),
})

/** The deciding rows of one reconcile of the Cluster of `input`, in `namespace`. */
export const whyReconcile = (
  input: ClusterInput,
  config: ClusterControllerConfig,
  namespace: string,
): WhyReconcile => {
  const { status, trace: t } = decide(input, config)
  const { desired, observed } = input
  const infraWait = externalWait("infrastructure", t, desired, observed, namespace)
  // Stryker disable next-line StringLiteral
  const cpWait = externalWait("controlPlane", t, desired, observed, namespace)
  const deleteWait = deletionWait(t, desired, observed, namespace)
  const rows: Array<ViewRow> = [
    t.deleting
      ? viewRow(DELETION, deletionRow(t), deleteWait ?? gateWait(t))
      : viewRow(NORMAL, normalRow(t), gateWait(t) ?? infraWait ?? cpWait),
  ]
  if (t.infrastructure !== undefined) rows.push(viewRow(INFRASTRUCTURE, infrastructureRow(t), infraWait))
  if (t.controlPlane !== undefined) rows.push(viewRow(CONTROL_PLANE, controlPlaneRow(t), cpWait))
  if (t.deletePath !== undefined) rows.push(viewRow(DELETE_FLOW, deleteFlowRow(t), deleteWait))
  // a failed get of the Cluster or its ClusterClass ends in an error too
  if (t.error) rows.push(viewRow(ERRORS, errorsRow(t), undefined))
  return { rows, status }
}
