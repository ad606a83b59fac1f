/**
 * reconcileDelete (seed 001, "Reconciliation Phases" 3), in the order the seed prescribes:
 *
 * 1. with the RuntimeSDK and ClusterTopology gates on, a Cluster with a managed topology waits
 *    for the BeforeClusterDelete hook (the `runtime.cluster.x-k8s.io/ok-to-delete` annotation);
 * 2. the owned descendants (MachinePools, MachineDeployments, MachineSets, Machines) that are
 *    not yet deleting are deleted, and while any descendant remains the reconcile requeues after
 *    `deleteRequeueAfter` (5 s);
 * 3. then the control-plane object, and the reconcile waits for it to be gone;
 * 4. then the infrastructure object, likewise;
 * 5. then the finalizer is removed.
 *
 * Guarantees: nothing of the control plane or the infrastructure is deleted while descendants
 * remain; the infrastructure is never deleted while the control-plane object exists; the
 * finalizer is removed only when nothing remains. Every step leaves a `deletingReason` and a
 * `deletingMessage` for the `Deleting` condition, worded as upstream v1.14.2 words them.
 *
 * Caveat (a resolution, see `spec/cluster/deletion.ts`): the flowchart goes from "no owned
 * children" straight to the control plane; the pending-descendant check is applied on that path
 * too, as the Deletion Reconciliation table (rows 5 and 6) requires.
 *
 * @module
 */
import { DeletingReason, isDeleting, OkToDeleteAnnotation } from "./contract.ts"
import { type Classified, filterOwned, pendingDeleteCount, pendingDeleteMessage } from "./descendants.ts"
import { type DeletePath, requeue, type Scope } from "./scope.ts"
import type { ContractReference } from "./types.ts"

/**
 * A step's answer: `true` when it ended the reconcile ("Return" in the flowchart), `false` when
 * the next step runs.
 */
type Returned = boolean

/**
 * reconcileDelete; runs after the always-reconcile phases. Its steps in the flowchart's order;
 * past the last, flowchart AB–AD (Deletion Reconciliation, row 8) removes the finalizer.
 */
export const reconcileDelete = (s: Scope): void => {
  if (waitForHook(s)) return
  const d = s.descendants
  if (d === undefined) {
    internalError(s, "ListFailed")
    return
  }
  if (deleteDescendants(s, d)) return
  const cpRef = s.spec.controlPlaneRef
  if (cpRef !== undefined && deleteControlPlane(s, cpRef)) return
  if (deleteInfrastructure(s)) return
  reason(s, DeletingReason.DeletionCompleted, "Deletion completed")
  s.removeFinalizer = true
}

/** Flowchart B–E (Deletion Reconciliation, row 2): a managed topology waits for the hook. */
const waitForHook = (s: Scope): Returned => {
  const gates = s.observed.featureGates
  if (gates.runtimeSDK && gates.clusterTopology && s.spec.topology !== undefined) {
    if (s.cluster.metadata.annotations?.[OkToDeleteAnnotation] === undefined) {
      s.trace.deletePath = "WaitingForHook"
      reason(s, DeletingReason.WaitingForBeforeDeleteHook, "Waiting for BeforeClusterDelete hook")
      return true
    }
  }
  return false
}

/**
 * Flowchart I–N (Deletion Reconciliation, rows 4 and 5): deletes the owned descendants not yet
 * deleting, and waits while any descendant remains.
 */
const deleteDescendants = (s: Scope, d: Classified): Returned => {
  const t = s.trace
  const hasControlPlaneRef = s.spec.controlPlaneRef !== undefined
  const owned = filterOwned(d, hasControlPlaneRef, s.cluster.metadata)
  if (owned._tag === "Undecidable") {
    internalError(s, "FilterFailed")
    return true
  }
  t.ownedChildren = owned.children.length
  let deleted = 0
  for (const child of owned.children) {
    if (child.deleting) continue
    s.actions.push({ _tag: "DeleteObject", role: "descendant", ref: child.ref })
    deleted++
  }
  if (pendingDeleteCount(d, hasControlPlaneRef) > 0) {
    t.deletePath = deleted > 0 ? "DeletedChildren" : "WaitingForDescendants"
    requeue(s, s.config.deleteRequeueAfter)
    reason(
      s,
      DeletingReason.WaitingForWorkersDeletion,
      pendingDeleteMessage(d, hasControlPlaneRef, s.config.maxNamesInDeletingMessage),
    )
    return true
  }
  return false
}

/**
 * Flowchart O–V (Deletion Reconciliation, row 6): deletes the control-plane object and waits
 * for it to be gone.
 */
const deleteControlPlane = (s: Scope, cpRef: ContractReference): Returned => {
  const cp = s.observed.controlPlane
  if (cp._tag === "GetFailed") {
    internalError(s, "ControlPlaneGetFailed")
    return true
  }
  if (cp._tag === "Found") {
    if (isDeleting(cp.object.metadata)) s.trace.deletePath = "WaitingForControlPlane"
    else {
      s.trace.deletePath = "DeletedControlPlane"
      s.actions.push({
        _tag: "DeleteObject",
        role: "controlPlane",
        ref: { apiGroup: cpRef.apiGroup, kind: cpRef.kind, namespace: s.key.namespace, name: cpRef.name },
      })
    }
    reason(s, DeletingReason.WaitingForControlPlaneDeletion, `Waiting for ${cpRef.kind} to be deleted`)
    return true
  }
  // Not found: the control plane is gone (v1beta1 ControlPlaneReady: Deleted, in updateStatus).
  s.controlPlaneGone = true
  return false
}

/**
 * Flowchart U–AC (Deletion Reconciliation, rows 7 and 8): deletes the infrastructure object and
 * waits for it to be gone; continues to the finalizer's removal once it is (or none is named).
 */
const deleteInfrastructure = (s: Scope): Returned => {
  const t = s.trace
  const infraRef = s.spec.infrastructureRef
  if (infraRef === undefined) {
    t.deletePath = "CompletedNoInfrastructure"
    return false
  }
  const infra = s.observed.infrastructure
  if (infra._tag === "GetFailed") {
    internalError(s, "InfrastructureGetFailed")
    return true
  }
  if (infra._tag === "Found") {
    if (isDeleting(infra.object.metadata)) t.deletePath = "WaitingForInfrastructure"
    else {
      t.deletePath = "DeletedInfrastructure"
      s.actions.push({
        _tag: "DeleteObject",
        role: "infrastructure",
        ref: {
          apiGroup: infraRef.apiGroup,
          kind: infraRef.kind,
          namespace: s.key.namespace,
          name: infraRef.name,
        },
      })
    }
    reason(s, DeletingReason.WaitingForInfrastructureDeletion, `Waiting for ${infraRef.kind} to be deleted`)
    return true
  }
  t.deletePath = "CompletedInfrastructureGone"
  s.infrastructureGone = true
  return false
}

/** Upstream's Deleting message when something failed; the error itself is logged. */
export const CHECK_LOGS = "Please check controller logs for errors"

/**
 * Flowchart H (Deletion Reconciliation, row 3), V and AC, and Error Handling's
 * "filterOwnedDescendants error" row: InternalError, the error itself is logged.
 */
const internalError = (s: Scope, path: DeletePath): void => {
  s.trace.deletePath = path
  reason(s, DeletingReason.InternalError, CHECK_LOGS)
}

const reason = (s: Scope, deletingReason: string, message: string): void => {
  s.deletingReason = deletingReason
  s.deletingMessage = message
}
