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
import { filterOwned, pendingDeleteCount, pendingDeleteMessage } from "./descendants.ts"
import { requeue, type Scope } from "./scope.ts"

/** reconcileDelete; runs after the always-reconcile phases. */
export const reconcileDelete = (s: Scope): void => {
  const t = s.trace
  const { spec, observed } = s
  const gates = observed.featureGates
  if (gates.runtimeSDK && gates.clusterTopology && spec.topology !== undefined) {
    if (s.cluster.metadata.annotations?.[OkToDeleteAnnotation] === undefined) {
      t.deletePath = "WaitingForHook"
      reason(s, DeletingReason.WaitingForBeforeDeleteHook, "Waiting for BeforeClusterDelete hook")
      return
    }
  }

  const d = s.descendants
  if (d === undefined) {
    t.deletePath = "ListFailed"
    reason(s, DeletingReason.InternalError, CHECK_LOGS)
    return
  }

  const hasControlPlaneRef = spec.controlPlaneRef !== undefined
  const owned = filterOwned(d, hasControlPlaneRef, s.cluster.metadata)
  if (owned._tag === "Undecidable") {
    t.deletePath = "FilterFailed"
    reason(s, DeletingReason.InternalError, CHECK_LOGS)
    return
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
    return
  }

  const cpRef = spec.controlPlaneRef
  if (cpRef !== undefined) {
    const cp = observed.controlPlane
    if (cp._tag === "GetFailed") {
      t.deletePath = "ControlPlaneGetFailed"
      reason(s, DeletingReason.InternalError, CHECK_LOGS)
      return
    }
    if (cp._tag === "Found") {
      if (isDeleting(cp.object.metadata)) t.deletePath = "WaitingForControlPlane"
      else {
        t.deletePath = "DeletedControlPlane"
        s.actions.push({
          _tag: "DeleteObject",
          role: "controlPlane",
          ref: { apiGroup: cpRef.apiGroup, kind: cpRef.kind, namespace: s.key.namespace, name: cpRef.name },
        })
      }
      reason(s, DeletingReason.WaitingForControlPlaneDeletion, `Waiting for ${cpRef.kind} to be deleted`)
      return
    }
    // Not found: the control plane is gone (v1beta1 ControlPlaneReady: Deleted, in updateStatus).
    s.controlPlaneGone = true
  }

  const infraRef = spec.infrastructureRef
  if (infraRef !== undefined) {
    const infra = observed.infrastructure
    if (infra._tag === "GetFailed") {
      t.deletePath = "InfrastructureGetFailed"
      reason(s, DeletingReason.InternalError, CHECK_LOGS)
      return
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
      return
    }
    t.deletePath = "CompletedInfrastructureGone"
    s.infrastructureGone = true
  } else t.deletePath = "CompletedNoInfrastructure"

  reason(s, DeletingReason.DeletionCompleted, "Deletion completed")
  s.removeFinalizer = true
}

/** Upstream's Deleting message when something failed; the error itself is logged. */
export const CHECK_LOGS = "Please check controller logs for errors"

const reason = (s: Scope, deletingReason: string, message: string): void => {
  s.deletingReason = deletingReason
  s.deletingMessage = message
}
