/**
 * Seed 001, "KRTT - Deletion Reconciliation", transcribed row by row (table `cluster.deletion`).
 *
 * Every row's promise includes the deletion order (`orderKept`): nothing of the control plane or
 * the infrastructure is deleted while descendants remain, the infrastructure not while the
 * control plane exists, the finalizer not while anything remains.
 *
 * @module
 */
import type { TableSpec } from "../../core/krtt/index.ts"
import { KRTT_COLUMNS, rowsFor } from "../builder.ts"
import {
  type C,
  clusterDeleting,
  clusterOf,
  conditionOf,
  cpFound,
  cpGetFailed,
  cpGone,
  deletes,
  deletingMeta,
  deletingReason,
  FINALIZER,
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
  pending,
  type R,
  requeuesAfter,
  returnsError,
  stage,
} from "./reading.ts"
import { withStatus } from "./status.ts"

const { doc, derived } = rowsFor<I, R, C>(KRTT_COLUMNS)

const deleting = (i: I) => stage(i) === "delete"
const reasonIs = (r: R, reason: string) => deletingReason(r) === reason
const noDeletes = (r: R) => !has(r, "DeleteObject") && !has(r, "RemoveFinalizer")
/** "Requeue 5s", unless an error of the always-reconcile phases ends the reconcile instead. */
const requeueOrError = (r: R, c: C) => requeuesAfter(r, c.deleteRequeueAfter) || returnsError(r)
const toDelete = (i: I) =>
  owned(i)
    .filter((o) => !deletingMeta(o.meta))
    .map((o) => `${o.kind}/${o.meta.name}`)
    .sort()
const sameSet = (a: ReadonlyArray<string>, b: ReadonlyArray<string>) => {
  const x = [...a].sort()
  return x.length === b.length && x.every((v, k) => v === b[k])
}
const internalError = (i: I) =>
  (deleting(i) &&
    !hookBlocks(i) &&
    !listFailed(i) &&
    (malformedOwner(i) ||
      (pending(i).length === 0 &&
        (cpGetFailed(i) ||
          (cpGone(i) && i.desired.infrastructureRef !== undefined && infraGetFailed(i)))))) ||
  (failedDelete(i, ["descendant", "controlPlane", "infrastructure"]) && clusterDeleting(i))

export const deletionTable: TableSpec<I, R, C> = withStatus({
  id: "cluster.deletion",
  source: "001_b44d46ad16131bfc.txt",
  title: "Deletion Reconciliation",
  columns: KRTT_COLUMNS,
  rows: [
    doc(
      1,
      [
        "DeletionTimestamp!=nil",
        "-",
        "User deletes Cluster",
        "Run alwaysReconcile phases first",
        "Deleting condition pending",
      ],
      {
        applies: (i) =>
          deleting(i) && conditionOf(clusterOf(i)?.status?.conditions, "Deleting")?.status !== "True",
        holds: (i, r) =>
          orderKept(i, r) &&
          r.status?.phase === "Deleting" &&
          deletingReason(r) !== undefined &&
          !has(r, "AddFinalizer") &&
          !has(r, "ReturnError", (a) => a._tag === "ReturnError" && a.error.includes("deleted after being")),
        reason:
          "Decides the first reconcile that sees the deletion (the Deleting condition is not True yet): the always-reconcile phases run, tolerating missing objects, and Deleting becomes True with the reason of the step reached.",
      },
    ),
    doc(
      2,
      [
        "RuntimeSDK + ClusterTopology",
        "Managed topology",
        "ok-to-delete annotation missing",
        "Set deletingReason: WaitingForBeforeDeleteHook",
        "Deleting=WaitingForBeforeDeleteHook",
      ],
      {
        applies: (i) => deleting(i) && hookBlocks(i),
        holds: (i, r) => orderKept(i, r) && reasonIs(r, "WaitingForBeforeDeleteHook") && noDeletes(r),
      },
    ),
    doc(
      3,
      [
        "getDescendants failed",
        "-",
        "Error listing descendants",
        "Set deletingReason: InternalError, return",
        "Deleting=InternalError",
      ],
      {
        applies: (i) => deleting(i) && !hookBlocks(i) && listFailed(i),
        holds: (i, r) => orderKept(i, r) && reasonIs(r, "InternalError") && noDeletes(r),
      },
    ),
    doc(
      4,
      [
        "Has owned descendants",
        "-",
        "Children exist",
        "Delete owned (MD, MS, Machines, MP) not already deleting",
        "Continue cleanup",
      ],
      {
        applies: (i) => pastFilter(i) && toDelete(i).length > 0,
        holds: (i, r, c) =>
          orderKept(i, r) &&
          sameSet(deletes(r, "descendant"), toDelete(i)) &&
          reasonIs(r, "WaitingForWorkersDeletion") &&
          requeueOrError(r, c),
        reason:
          "Decides when a delete is issued; owned descendants that are all already deleting leave the reconcile to row 5.",
      },
    ),
    doc(
      5,
      [
        "objectsPendingDeleteCount > 0",
        "-",
        "Descendants still deleting",
        "Set deletingReason: WaitingForWorkersDeletion",
        "Deleting=WaitingForWorkersDeletion, Requeue 5s",
      ],
      {
        applies: (i) => pastFilter(i) && pending(i).length > 0,
        holds: (i, r, c) =>
          orderKept(i, r) &&
          reasonIs(r, "WaitingForWorkersDeletion") &&
          deletes(r, "descendant").length === 0 &&
          requeueOrError(r, c),
        reason:
          "Pending descendants are MachinePools (with the gate), MachineDeployments, MachineSets, worker Machines, and control-plane Machines only without a controlPlaneRef (a control-plane object deletes its own Machines).",
      },
    ),
    doc(
      6,
      [
        "No descendants",
        "ControlPlaneRef defined",
        "CP still exists",
        "Delete ControlPlane, set deletingReason: WaitingForControlPlaneDeletion",
        "Deleting=WaitingForControlPlaneDeletion",
      ],
      {
        applies: (i) =>
          pastFilter(i) &&
          pending(i).length === 0 &&
          i.desired.controlPlaneRef !== undefined &&
          cpFound(i) !== undefined,
        holds: (i, r) => {
          const cp = cpFound(i)
          const ref = i.desired.controlPlaneRef
          if (cp === undefined || ref === undefined) return false
          const expected = deletingMeta(cp.metadata) ? [] : [`${ref.kind}/${ref.name}`]
          return (
            orderKept(i, r) &&
            sameSet(deletes(r, "controlPlane"), expected) &&
            deletes(r, "infrastructure").length === 0 &&
            !has(r, "RemoveFinalizer") &&
            reasonIs(r, "WaitingForControlPlaneDeletion")
          )
        },
        reason: "A control plane that is already deleting is not deleted again (the flowchart's R → No → T).",
      },
    ),
    doc(
      7,
      [
        "CP deleted/not found",
        "InfrastructureRef defined",
        "Infra still exists",
        "Delete Infrastructure, set deletingReason: WaitingForInfrastructureDeletion",
        "Deleting=WaitingForInfrastructureDeletion",
      ],
      {
        applies: (i) =>
          pastFilter(i) &&
          pending(i).length === 0 &&
          cpGone(i) &&
          i.desired.infrastructureRef !== undefined &&
          infraFound(i) !== undefined,
        holds: (i, r) => {
          const infra = infraFound(i)
          const ref = i.desired.infrastructureRef
          if (infra === undefined || ref === undefined) return false
          const expected = deletingMeta(infra.metadata) ? [] : [`${ref.kind}/${ref.name}`]
          return (
            orderKept(i, r) &&
            sameSet(deletes(r, "infrastructure"), expected) &&
            deletes(r, "controlPlane").length === 0 &&
            !has(r, "RemoveFinalizer") &&
            reasonIs(r, "WaitingForInfrastructureDeletion")
          )
        },
      },
    ),
    doc(
      8,
      [
        "CP & Infra gone",
        "-",
        "All cleanup done",
        "Set deletingReason: DeletionCompleted, remove finalizer",
        "Object deleted by GC",
      ],
      {
        applies: (i) =>
          pastFilter(i) &&
          pending(i).length === 0 &&
          cpGone(i) &&
          (i.desired.infrastructureRef === undefined || i.observed.infrastructure._tag === "NotFound"),
        holds: (i, r) => {
          const hadFinalizer = (clusterOf(i)?.metadata.finalizers ?? []).includes(FINALIZER)
          return (
            orderKept(i, r) &&
            reasonIs(r, "DeletionCompleted") &&
            !has(r, "DeleteObject") &&
            has(r, "RemoveFinalizer", (a) => a._tag === "RemoveFinalizer" && a.finalizer === FINALIZER) ===
              hadFinalizer
          )
        },
      },
    ),
    derived(9, ["Not deleting", "-", "reconcileDelete not reached", "-", "-"], {
      applies: (i) => !deleting(i) && !internalError(i),
      holds: (_, r) => noDeletes(r),
      reason:
        "The Cluster is not being deleted, or Reconcile ended before reconcileDelete (not found, paused, ClusterClass error), or the trigger reports a failed action other than a delete.",
    }),
    derived(
      10,
      [
        "Deleting",
        "-",
        "The control plane or infrastructure cannot be read, owned descendants cannot be told apart, or a delete failed",
        "Set deletingReason: InternalError",
        "Deleting=InternalError",
      ],
      {
        applies: internalError,
        holds: (i, r) =>
          orderKept(i, r) &&
          reasonIs(r, "InternalError") &&
          !has(r, "RemoveFinalizer") &&
          deletes(r, "controlPlane").length === 0 &&
          deletes(r, "infrastructure").length === 0,
        reason:
          "The delete flowchart's InternalError branches V and AC, Error Handling rows 7 and 8, and a failed control-plane or infrastructure delete, have no row in this table.",
      },
    ),
  ],
  priority: [1, 2, 3, 10, 4, 5, 6, 7, 8, 9],
  resolutions: [
    "Row 1 decides the first reconcile of a deletion (the Deleting condition not yet True); later reconciles are decided by the step reached (rows 2-8, derived 10).",
    "Row 4 (issue deletes) outranks row 5 (wait): both requeue after 5 s.",
    "The delete flowchart draws 'Has owned children? No → ControlPlaneRef defined?'; rows 5 and 6 ('No descendants') require the pending count to be zero first, so the pending check is applied on both branches.",
    "An error of the always-reconcile phases ends a deleting reconcile with that error instead of the 5 s requeue (controller-runtime ignores RequeueAfter when an error is returned).",
  ],
})
