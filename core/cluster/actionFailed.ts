/**
 * The Cluster controller's answer to an `ActionFailed` trigger (Error Handling, rows 1, 6 and 8,
 * and derived rows 9 and 11): the error, and the status of this reconcile patched as upstream's
 * deferred updateStatus does, except when the failed action was the finalizer patch (upstream
 * returns before its deferred patch) or the status patch itself.
 *
 * A kubeconfig Secret that cannot be created for want of the `<cluster>-ca` Secret (a `NotFound`
 * failure of `CreateKubeconfigSecret`) requeues after `missingCaRequeueAfter` instead (upstream's
 * reconcileKubeconfig), unless a phase of the same reconcile returns an error; a failed delete
 * while the Cluster is deleting also sets `Deleting` to `InternalError`.
 *
 * @module
 */
import type { ClusterAction, ClusterKey } from "./actions.ts"
import type { ClusterControllerConfig } from "./config.ts"
import { DeletingReason, isDeleting } from "./contract.ts"
import { CHECK_LOGS, reconcileDelete } from "./delete.ts"
import type { ActionFailure } from "./failure.ts"
import {
  alwaysReconcile,
  newScope,
  patchStatus,
  reconcileKubeconfig,
  statusEvents,
  statusOf,
  type Traced,
} from "./phases.ts"
import { type FailedKind, newTrace } from "./scope.ts"
import type { ClusterInput } from "./types.ts"

/** The kind of the failed action, as the tables tell them apart. */
const failedKind = (action: ClusterAction, failure: ActionFailure): FailedKind => {
  if (action._tag === "AddFinalizer") return "AddFinalizer"
  if (action._tag === "DeleteObject")
    return action.role === "descendant" ? "DeleteDescendant" : "DeleteExternal"
  if (action._tag === "CreateKubeconfigSecret" && failure._tag === "NotFound") return "MissingCA"
  // Stryker disable next-line StringLiteral
  return "Other"
}

/** The answer to `action` refused with `failure`, on the observations of the reconcile. */
export const actionFailed = (
  input: ClusterInput,
  config: ClusterControllerConfig,
  action: ClusterAction,
  failure: ActionFailure,
): Traced => {
  const failed = failedKind(action, failure)
  // Stryker disable next-line StringLiteral
  const trace = newTrace("ActionFailed")
  trace.failed = failed
  trace.error = failed !== "MissingCA"
  const fetched = input.observed.cluster
  const cluster = fetched._tag === "Found" ? fetched.object : undefined
  const deleting = cluster !== undefined && isDeleting(cluster.metadata)
  trace.deleting = deleting
  const message =
    action._tag === "DeleteObject"
      ? `failed to delete ${action.ref.kind} ${action.ref.name}: ${failure.message}`
      : `${action._tag} failed: ${failure.message}`
  const returnError: ClusterAction = { _tag: "ReturnError", error: message }
  if (cluster === undefined || failed === "AddFinalizer" || action._tag === "PatchStatus")
    return { actions: [returnError], status: cluster?.status, trace }

  // The phases' decisions again, for the status and the errors only: their actions were already
  // carried out up to the one that failed. (reconcileV1Beta1ControlPlaneInitialized decides
  // nothing here: it only names a row of a reconcile that ran its phases.)
  const key: ClusterKey = { namespace: cluster.metadata.namespace, name: cluster.metadata.name }
  const s = newScope(input, config, cluster, key, deleting)
  alwaysReconcile(s)
  if (deleting) {
    reconcileDelete(s)
    // a failed delete (DeleteDescendant or DeleteExternal)
    if (action._tag === "DeleteObject") {
      s.deletingReason = DeletingReason.InternalError
      s.deletingMessage = CHECK_LOGS
    }
  } else reconcileKubeconfig(s)
  const ending: ClusterAction =
    failed === "MissingCA" && s.errors.length === 0
      ? { _tag: "Requeue", after: config.missingCaRequeueAfter }
      : failed === "MissingCA"
        ? { _tag: "ReturnError", error: s.errors.join("; ") }
        : returnError
  if (failed !== "MissingCA") s.errors.push(message)
  if (ending._tag === "ReturnError") trace.error = true
  const status = statusOf(s)
  return { actions: [patchStatus(key, status), ...statusEvents(s, status), ending], status, trace }
}
