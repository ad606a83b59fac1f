/**
 * Seed 001, "3. reconcileDelete", the flowchart as a table (`cluster.delete-flow`): one row per
 * decision path that ends the flow, with the flowchart's node ids and text. Pass-through nodes
 * (F Continue, Q "Mark ControlPlaneReady: Deleted") are part of the paths that run through them.
 *
 * Every row's promise includes the deletion order (`orderKept`).
 *
 * @module
 */
import type { TableSpec } from "../../core/krtt/index.ts"
import { rowsFor } from "../builder.ts"
import {
  type C,
  clusterDeleting,
  clusterOf,
  cpFound,
  cpGetFailed,
  cpGone,
  deletes,
  deletingMeta,
  deletingReason,
  FINALIZER,
  FLOWCHART_COLUMNS,
  failedDelete,
  has,
  hookBlocks,
  type I,
  infraFound,
  infraGetFailed,
  listFailed,
  malformedOwner,
  orderKept,
  owned,
  pastFilter,
  patched,
  pending,
  type R,
  requeuesAfter,
  returnsError,
  stage,
  v1cond,
} from "./reading.ts"
import { withStatus } from "./status.ts"

const { doc, derived } = rowsFor<I, R, C>(FLOWCHART_COLUMNS)

const deleting = (i: I) => stage(i) === "delete"
const reasonIs = (r: R, reason: string) => deletingReason(r) === reason
const noDeletes = (r: R) => !has(r, "DeleteObject") && !has(r, "RemoveFinalizer")
const requeueOrError = (r: R, c: C) => requeuesAfter(r, c.deleteRequeueAfter) || returnsError(r)
const atControlPlane = (i: I) =>
  pastFilter(i) && pending(i).length === 0 && i.desired.controlPlaneRef !== undefined
const atInfrastructure = (i: I) =>
  pastFilter(i) && pending(i).length === 0 && cpGone(i) && i.desired.infrastructureRef !== undefined
const sameSet = (a: ReadonlyArray<string>, b: ReadonlyArray<string>) => {
  const x = [...a].sort()
  const y = [...b].sort()
  return x.length === y.length && x.every((v, k) => v === y[k])
}
const completed = (i: I, r: R) =>
  orderKept(i, r) &&
  reasonIs(r, "DeletionCompleted") &&
  !has(r, "DeleteObject") &&
  has(r, "RemoveFinalizer", (a) => a._tag === "RemoveFinalizer" && a.finalizer === FINALIZER) ===
    (clusterOf(i)?.metadata.finalizers ?? []).includes(FINALIZER) &&
  (i.desired.controlPlaneRef === undefined || v1cond(r, "ControlPlaneReady")?.reason === "Deleted")
const failedWhileDeleting = (_: I, r: R) =>
  returnsError(r) && patched(r) !== undefined && reasonIs(r, "InternalError") && !has(r, "RemoveFinalizer")

export const deleteFlowTable: TableSpec<I, R, C> = withStatus({
  id: "cluster.delete-flow",
  source: "001_b44d46ad16131bfc.txt",
  title: "3. reconcileDelete",
  columns: FLOWCHART_COLUMNS,
  rows: [
    doc(
      1,
      [
        "A → B -Yes→ C -Yes→ D -No→ E",
        "RuntimeSDK + ClusterTopology enabled? Yes; Cluster has managed topology? Yes; hooks.IsOkToDelete? No",
        "deletingReason: WaitingForBeforeDeleteHook; Return",
      ],
      {
        applies: (i) => deleting(i) && hookBlocks(i),
        holds: (i, r) => orderKept(i, r) && reasonIs(r, "WaitingForBeforeDeleteHook") && noDeletes(r),
      },
    ),
    doc(2, ["F → G -No→ H", "getDescendantsSucceeded? No", "deletingReason: InternalError; Return"], {
      applies: (i) => deleting(i) && !hookBlocks(i) && listFailed(i),
      holds: (i, r) => orderKept(i, r) && reasonIs(r, "InternalError") && noDeletes(r),
    }),
    doc(
      3,
      [
        "G -Yes→ I → J -Yes→ K → L -Yes→ LE",
        "getDescendantsSucceeded? Yes; Has owned children? Yes; Delete errors? Yes",
        "deletingReason: InternalError; Return error",
      ],
      {
        applies: (i) => failedDelete(i, ["descendant"]) && clusterDeleting(i),
        holds: failedWhileDeleting,
        reason: "A delete issued by path 4 failed: the shell reports it with the trigger ActionFailed.",
      },
    ),
    doc(
      4,
      [
        "G -Yes→ I → J -Yes→ K → L -No→ M -Yes→ N",
        "Has owned children? Yes; Delete errors? No; objectsPendingDeleteCount > 0? Yes",
        "Delete children not already deleting; deletingReason: WaitingForWorkersDeletion; Requeue after 5s",
      ],
      {
        applies: (i) => pastFilter(i) && owned(i).length > 0,
        holds: (i, r, c) =>
          orderKept(i, r) &&
          sameSet(
            deletes(r, "descendant"),
            owned(i)
              .filter((o) => !deletingMeta(o.meta))
              .map((o) => `${o.kind}/${o.meta.name}`),
          ) &&
          reasonIs(r, "WaitingForWorkersDeletion") &&
          requeueOrError(r, c),
        reason:
          "Owned children are pending descendants too, so 'L -No→ M -No→ O' cannot happen: after deleting children the flow always requeues.",
      },
    ),
    doc(
      5,
      [
        "O -Yes→ P -No - exists→ R -Yes→ S → T",
        "ControlPlaneRef defined? Yes; controlPlane == nil? No - exists; DeletionTimestamp.IsZero? Yes",
        "Delete ControlPlane; deletingReason: WaitingForControlPlaneDeletion; Return",
      ],
      {
        applies: (i) => {
          const cp = cpFound(i)
          return atControlPlane(i) && cp !== undefined && !deletingMeta(cp.metadata)
        },
        holds: (i, r) =>
          orderKept(i, r) &&
          deletes(r, "controlPlane").length === 1 &&
          deletes(r, "infrastructure").length === 0 &&
          !has(r, "RemoveFinalizer") &&
          reasonIs(r, "WaitingForControlPlaneDeletion"),
      },
    ),
    doc(
      6,
      [
        "O -Yes→ P -No - exists→ R -No→ T",
        "ControlPlaneRef defined? Yes; controlPlane == nil? No - exists; DeletionTimestamp.IsZero? No",
        "deletingReason: WaitingForControlPlaneDeletion; Return",
      ],
      {
        applies: (i) => {
          const cp = cpFound(i)
          return atControlPlane(i) && cp !== undefined && deletingMeta(cp.metadata)
        },
        holds: (i, r) => orderKept(i, r) && noDeletes(r) && reasonIs(r, "WaitingForControlPlaneDeletion"),
      },
    ),
    doc(
      7,
      [
        "O -Yes→ P -Error not IsNotFound→ V",
        "ControlPlaneRef defined? Yes; controlPlane == nil? Error not IsNotFound",
        "deletingReason: InternalError; Return",
      ],
      {
        applies: (i) => atControlPlane(i) && cpGetFailed(i),
        holds: (i, r) => orderKept(i, r) && noDeletes(r) && reasonIs(r, "InternalError"),
      },
    ),
    doc(
      8,
      [
        "U -Yes→ W -No - exists→ Y -Yes→ Z → AA",
        "InfrastructureRef defined? Yes; infraCluster == nil? No - exists; DeletionTimestamp.IsZero? Yes",
        "Delete Infrastructure; deletingReason: WaitingForInfrastructureDeletion; Return",
      ],
      {
        applies: (i) => {
          const infra = infraFound(i)
          return atInfrastructure(i) && infra !== undefined && !deletingMeta(infra.metadata)
        },
        holds: (i, r) =>
          orderKept(i, r) &&
          deletes(r, "infrastructure").length === 1 &&
          deletes(r, "controlPlane").length === 0 &&
          !has(r, "RemoveFinalizer") &&
          reasonIs(r, "WaitingForInfrastructureDeletion"),
        reason: "Reached from 'O -No→ U' (no controlPlaneRef) or through 'P -Yes & IsNotFound→ Q → U'.",
      },
    ),
    doc(
      9,
      [
        "U -Yes→ W -No - exists→ Y -No→ AA",
        "InfrastructureRef defined? Yes; infraCluster == nil? No - exists; DeletionTimestamp.IsZero? No",
        "deletingReason: WaitingForInfrastructureDeletion; Return",
      ],
      {
        applies: (i) => {
          const infra = infraFound(i)
          return atInfrastructure(i) && infra !== undefined && deletingMeta(infra.metadata)
        },
        holds: (i, r) => orderKept(i, r) && noDeletes(r) && reasonIs(r, "WaitingForInfrastructureDeletion"),
      },
    ),
    doc(
      10,
      [
        "U -Yes→ W -Error not IsNotFound→ AC",
        "InfrastructureRef defined? Yes; infraCluster == nil? Error not IsNotFound",
        "deletingReason: InternalError; Return",
      ],
      {
        applies: (i) => atInfrastructure(i) && infraGetFailed(i),
        holds: (i, r) => orderKept(i, r) && noDeletes(r) && reasonIs(r, "InternalError"),
      },
    ),
    doc(
      11,
      [
        "U -Yes→ W -Yes & IsNotFound→ X → AB → AD",
        "InfrastructureRef defined? Yes; infraCluster == nil? Yes & IsNotFound",
        "Mark InfraReady: Deleted; deletingReason: DeletionCompleted; Remove Finalizer",
      ],
      {
        applies: (i) => atInfrastructure(i) && i.observed.infrastructure._tag === "NotFound",
        holds: (i, r) => completed(i, r) && v1cond(r, "InfrastructureReady")?.reason === "Deleted",
      },
    ),
    doc(
      12,
      [
        "U -No→ AB → AD",
        "InfrastructureRef defined? No",
        "deletingReason: DeletionCompleted; Remove Finalizer",
      ],
      {
        applies: (i) =>
          pastFilter(i) && pending(i).length === 0 && cpGone(i) && i.desired.infrastructureRef === undefined,
        holds: completed,
      },
    ),
    derived(
      13,
      [
        "G -Yes→ I → J -No→ M -Yes→ N",
        "Has owned children? No; objectsPendingDeleteCount > 0? Yes",
        "deletingReason: WaitingForWorkersDeletion; Requeue after 5s",
      ],
      {
        applies: (i) => pastFilter(i) && owned(i).length === 0 && pending(i).length > 0,
        holds: (i, r, c) =>
          orderKept(i, r) && noDeletes(r) && reasonIs(r, "WaitingForWorkersDeletion") && requeueOrError(r, c),
        reason:
          "The flowchart draws 'J -No→ O'; Deletion Reconciliation rows 5 and 6 require no pending descendants before the control plane, so descendants that the Cluster does not own directly (owned by a MachineDeployment, or without owner) are waited for too.",
      },
    ),
    derived(
      14,
      ["G -Yes→ I (error)", "filterOwnedDescendants fails", "deletingReason: InternalError; Return"],
      {
        applies: (i) => deleting(i) && !hookBlocks(i) && !listFailed(i) && malformedOwner(i),
        holds: (i, r) => orderKept(i, r) && noDeletes(r) && reasonIs(r, "InternalError"),
        reason: "The flowchart has no error branch at I; Error Handling row 7 has one.",
      },
    ),
    derived(
      15,
      [
        "S or Z (error)",
        "Delete ControlPlane or Delete Infrastructure fails",
        "deletingReason: InternalError; Return error",
      ],
      {
        applies: (i) => failedDelete(i, ["controlPlane", "infrastructure"]) && clusterDeleting(i),
        holds: failedWhileDeleting,
        reason:
          "The flowchart has no error branch after S and Z; a failed delete is handled like a child's (path 3).",
      },
    ),
    derived(16, ["-", "reconcileDelete not reached", "-"], {
      applies: (i) =>
        !deleting(i) &&
        !(failedDelete(i, ["descendant", "controlPlane", "infrastructure"]) && clusterDeleting(i)),
      holds: (_, r) => noDeletes(r),
      reason:
        "The Cluster is not being deleted, or Reconcile ended before reconcileDelete, or the trigger reports a failed action other than a delete.",
    }),
  ],
  priority: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16],
  resolutions: [
    "The paths are mutually exclusive; the priority is the table order.",
    "Pending descendants are checked whether or not the Cluster owns children (derived 13), as the Deletion Reconciliation table requires.",
  ],
})
