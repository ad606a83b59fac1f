/**
 * The Cluster controller's reconcile as the operator runs it: one decision of the documented
 * tables of seed 001, answered with the row of the table that governs it.
 *
 * The governing table: Error Handling when the trigger reports a failed action (rows 1, 6, 8,
 * derived 9 and 11), else Deletion Reconciliation while the Cluster is deleting, else Normal
 * Reconciliation; the row within it is the one its view names (`transitions.ts`), so the
 * operator's row is the row `krtt explain` and the spec name for the same input.
 *
 * @module
 */

import { rowId } from "../krtt/types.ts"
import { type ClusterControllerConfig, ClusterControllerDefaults } from "./config.ts"
import { decide } from "./decide.ts"
import {
  type ClusterResult,
  DELETION,
  deletionRow,
  ERRORS,
  errorsRow,
  NORMAL,
  normalRow,
} from "./transitions.ts"
import type { ClusterInput } from "./types.ts"

/** One reconcile of one Cluster: its actions, the Cluster's status after them, and the governing row. */
export const reconcile = (
  input: ClusterInput,
  config: ClusterControllerConfig = ClusterControllerDefaults,
): ClusterResult => {
  const { actions, status, trace } = decide(input, config)
  const row =
    input.trigger._tag === "ActionFailed"
      ? rowId(ERRORS, errorsRow(trace))
      : trace.deleting
        ? rowId(DELETION, deletionRow(trace))
        : rowId(NORMAL, normalRow(trace))
  return { actions, status, row }
}
