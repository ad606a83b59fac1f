/**
 * The six documented tables of seed 001 as transitions. All six are views of the same reconcile
 * (`decide.ts`): the same actions and status, with the row of the table that decided. Row
 * numbers follow `spec/cluster/`; where several rows could describe a reconcile the recorded
 * priority of the spec picks one, and the functions below follow it.
 *
 * @module
 */
import { type RowId, rowId, type TransitionResult } from "../krtt/index.ts"
import type { ClusterAction } from "./actions.ts"
import { type ClusterControllerConfig, ClusterControllerDefaults } from "./config.ts"
import { decide } from "./decide.ts"
import type { ExternalPath, Trace } from "./scope.ts"
import type { ClusterInput, ClusterStatus } from "./types.ts"

export const NORMAL = "cluster.normal"
export const DELETION = "cluster.deletion"
export const ERRORS = "cluster.errors"
export const INFRASTRUCTURE = "cluster.infrastructure"
export const CONTROL_PLANE = "cluster.controlplane"
export const DELETE_FLOW = "cluster.delete-flow"

export type ClusterTableId =
  | typeof NORMAL
  | typeof DELETION
  | typeof ERRORS
  | typeof INFRASTRUCTURE
  | typeof CONTROL_PLANE
  | typeof DELETE_FLOW

export type ClusterResult = TransitionResult<ClusterAction, ClusterStatus | undefined>
export type ClusterTransition = (input: ClusterInput, config?: ClusterControllerConfig) => ClusterResult

/** Normal Reconciliation: rows 1-13, derived 14-18. */
export const normalRow = (t: Trace): number => {
  // `failed` is set on the trace of a failed action only.
  if (t.failed === "MissingCA") return 18
  switch (t.exit) {
    case "NotFound":
      return 1
    case "FinalizerAdded":
      return 2
    case "Paused":
      return 3
    case "PausedConditionChanged":
      return 14
    case "WaitingForTopology":
      return 4
    // Stryker disable next-line StringLiteral
    case "GetFailed":
    // Stryker disable next-line StringLiteral
    case "ClusterClassFailed":
    case "ActionFailed":
      return 15
    // Stryker disable next-line ConditionalExpression,StringLiteral
    case "Phases":
      break
  }
  if (t.deleting) return 16
  if (t.error) return 15
  if (t.infrastructure === "Requeue") return 7
  if (t.controlPlane === "Requeue") return 9
  if (t.phaseAfter === "Provisioned" && t.phaseBefore !== "Provisioned") return 13
  if (t.infrastructure === "NoRef" && t.infrastructureMarked) return 5
  // Stryker disable next-line ConditionalExpression
  if (t.infrastructure === "Ready" && t.infrastructureMarked) return 8
  // the control plane is marked initialized on its Ready path only (the v1beta1 fallback is row 12)
  if (t.controlPlaneMarked) return 10
  if (t.kubeconfigCreated) return 11
  if (t.initializedFallback) return 12
  if (t.infrastructure === "Waiting") return 6
  return 17
}

/** Deletion Reconciliation: rows 1-8, derived 9-10. */
export const deletionRow = (t: Trace): number => {
  if (t.exit === "ActionFailed")
    return (t.failed === "DeleteDescendant" || t.failed === "DeleteExternal") && t.deleting ? 10 : 9
  // Stryker disable next-line ConditionalExpression,LogicalOperator
  if (t.exit !== "Phases" || !t.deleting) return 9
  if (t.firstDeletion) return 1
  switch (t.deletePath) {
    case "WaitingForHook":
      return 2
    case "ListFailed":
      return 3
    case "DeletedChildren":
      return 4
    case "WaitingForDescendants":
      return 5
    case "DeletedControlPlane":
    case "WaitingForControlPlane":
      return 6
    case "DeletedInfrastructure":
    case "WaitingForInfrastructure":
      return 7
    case "CompletedInfrastructureGone":
    case "CompletedNoInfrastructure":
      return 8
    default:
      return 10
  }
}

/** Error Handling: rows 1-8, derived 9-11. */
export const errorsRow = (t: Trace): number => {
  switch (t.exit) {
    case "ActionFailed":
      switch (t.failed) {
        case "AddFinalizer":
          return 1
        case "MissingCA":
          return 11
        case "DeleteDescendant":
          return 8
        case "DeleteExternal":
          return 9
        // Stryker disable next-line ConditionalExpression
        default:
          return 6
      }
    case "GetFailed":
      return 6
    case "ClusterClassFailed":
      return 2
    case "Phases":
      break
    // Stryker disable next-line ConditionalExpression
    default:
      return 10
  }
  if (t.infrastructure === "DeletedAfterReady") return 3
  if (t.controlPlane === "DeletedAfterReady") return 4
  if (
    t.infrastructure === "GetFailed" ||
    t.controlPlane === "GetFailed" ||
    t.infrastructure === "Requeue" ||
    t.controlPlane === "Requeue"
  )
    return 5
  if (t.error) return 6
  if (t.deletePath === "FilterFailed") return 7
  return 10
}

const externalRow = (path: ExternalPath): number => {
  switch (path) {
    case "NoRef":
      return 1
    case "Waiting":
      return 2
    case "Ready":
      return 3
    case "Tolerated":
      return 4
    case "DeletedAfterReady":
      return 5
    case "Requeue":
      return 6
    case "GetFailed":
      return 7
  }
}

/**
 * The reconcileInfrastructure flowchart: rows 1-6, derived 7-8. The trace carries a path only
 * when the phases ran (a failed action's trace has none): row 8 otherwise.
 */
export const infrastructureRow = (t: Trace): number =>
  t.infrastructure === undefined ? 8 : externalRow(t.infrastructure)

/** The reconcileControlPlane flowchart: rows 1-6, derived 7-8. */
export const controlPlaneRow = (t: Trace): number =>
  t.controlPlane === undefined ? 8 : externalRow(t.controlPlane)

/**
 * The reconcileDelete flowchart: rows 1-12, derived 13-16. A delete path is traced only when
 * reconcileDelete ran (the phases, deleting): row 16 otherwise.
 */
export const deleteFlowRow = (t: Trace): number => {
  if (t.exit === "ActionFailed") {
    if (!t.deleting) return 16
    return t.failed === "DeleteDescendant" ? 3 : t.failed === "DeleteExternal" ? 15 : 16
  }
  if (t.deletePath === undefined) return 16
  switch (t.deletePath) {
    case "WaitingForHook":
      return 1
    case "ListFailed":
      return 2
    case "DeletedChildren":
    case "WaitingForDescendants":
      return t.ownedChildren > 0 ? 4 : 13
    case "DeletedControlPlane":
      return 5
    case "WaitingForControlPlane":
      return 6
    case "ControlPlaneGetFailed":
      return 7
    case "DeletedInfrastructure":
      return 8
    case "WaitingForInfrastructure":
      return 9
    case "InfrastructureGetFailed":
      return 10
    case "CompletedInfrastructureGone":
      return 11
    case "CompletedNoInfrastructure":
      return 12
    case "FilterFailed":
      return 14
  }
}

const view =
  (table: ClusterTableId, rowOf: (t: Trace) => number): ClusterTransition =>
  (input, config = ClusterControllerDefaults) => {
    const r = decide(input, config)
    const row: RowId = rowId(table, rowOf(r.trace))
    return { actions: r.actions, status: r.status, row }
  }

/** Normal Reconciliation. */
export const normalTransition: ClusterTransition = view(NORMAL, normalRow)
/** Deletion Reconciliation. */
export const deletionTransition: ClusterTransition = view(DELETION, deletionRow)
/** Error Handling. */
export const errorsTransition: ClusterTransition = view(ERRORS, errorsRow)
/** reconcileInfrastructure. */
export const infrastructureTransition: ClusterTransition = view(INFRASTRUCTURE, infrastructureRow)
/** reconcileControlPlane. */
export const controlPlaneTransition: ClusterTransition = view(CONTROL_PLANE, controlPlaneRow)
/** reconcileDelete. */
export const deleteFlowTransition: ClusterTransition = view(DELETE_FLOW, deleteFlowRow)

/** The transitions by table id. */
export const transitions: Readonly<Record<ClusterTableId, ClusterTransition>> = {
  [NORMAL]: normalTransition,
  [DELETION]: deletionTransition,
  [ERRORS]: errorsTransition,
  [INFRASTRUCTURE]: infrastructureTransition,
  [CONTROL_PLANE]: controlPlaneTransition,
  [DELETE_FLOW]: deleteFlowTransition,
}
