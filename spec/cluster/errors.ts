/**
 * Seed 001, "KRTT - Error Handling", transcribed row by row (table `cluster.errors`).
 *
 * Errors reach the controller two ways: as observations (a failed get or list, an object gone
 * after it was provisioned) and as the report that an action of the previous step failed (the
 * trigger `ActionFailed`: a finalizer patch, a delete). "Return error" means the reconcile ends
 * with the error and the work queue retries with backoff; no `Requeue` goes with it.
 *
 * @module
 */
import type { TableSpec } from "../../core/krtt/index.ts"
import { KRTT_COLUMNS, rowsFor } from "../builder.ts"
import {
  type C,
  clusterDeleting,
  cond,
  cpFlagBefore,
  cpGetFailed,
  cpNotFound,
  deletingReason,
  errorSays,
  failedDelete,
  has,
  hookBlocks,
  type I,
  infraFlagBefore,
  infraGetFailed,
  infraNotFound,
  kubeconfigLooked,
  listFailed,
  malformedOwner,
  missingCa,
  missingCaHolds,
  patched,
  phasesRun,
  type R,
  requeuesAfter,
  returnsError,
  stage,
} from "./reading.ts"
import { withStatus } from "./status.ts"

const { doc, derived } = rowsFor<I, R, C>(KRTT_COLUMNS)

const normal = (i: I) => stage(i) === "normal"
const onlyError = (r: R) => r.actions.length === 1 && r.actions[0]?._tag === "ReturnError"
const failed = (i: I, tag: string) => i.trigger._tag === "ActionFailed" && i.trigger.action._tag === tag

/** The errors a reconcile returns other than the external-object ones. */
const otherErrors = (i: I) =>
  listFailed(i) ||
  (normal(i) && infraNotFound(i) && infraFlagBefore(i)) ||
  (normal(i) && cpNotFound(i) && cpFlagBefore(i)) ||
  (kubeconfigLooked(i) && i.observed.kubeconfigSecret._tag === "GetFailed")

/** A failed delete while deleting: Deleting=InternalError in the status patch, then the error. */
const deleteFailedHolds = (i: I, r: R) =>
  returnsError(r) &&
  (!clusterDeleting(i) || (patched(r) !== undefined && deletingReason(r) === "InternalError"))

export const errorsTable: TableSpec<I, R, C> = withStatus({
  id: "cluster.errors",
  source: "001_b44d46ad16131bfc.txt",
  title: "Error Handling",
  columns: KRTT_COLUMNS,
  rows: [
    doc(1, ["Finalizer add failed", "Any", "Patch error", "Return error", "Requeue with backoff"], {
      applies: (i) => failed(i, "AddFinalizer"),
      holds: (_, r) => onlyError(r),
    }),
    doc(
      2,
      [
        "ClusterClass fetch failed",
        "Topology defined",
        "ClusterClass not found/error",
        "Return error",
        "Requeue with backoff",
      ],
      {
        applies: (i) => stage(i) === "clusterClass",
        holds: (_, r) => onlyError(r),
      },
    ),
    doc(
      3,
      [
        "InfrastructureProvisioned=true",
        "InfraRef defined",
        "Infra object not found (not deleting)",
        'Return error - "deleted after being provisioned"',
        "Error logged, requeue",
      ],
      {
        applies: (i) => normal(i) && infraNotFound(i) && infraFlagBefore(i),
        holds: (_, r) =>
          returnsError(r) &&
          errorSays(r, "deleted after being provisioned") &&
          r.status?.initialization?.infrastructureProvisioned === true &&
          cond(r, "InfrastructureReady")?.reason === "ObjectDeleted",
      },
    ),
    doc(
      4,
      [
        "ControlPlaneInitialized=true",
        "CPRef defined",
        "CP object not found (not deleting)",
        'Return error - "deleted after being initialized"',
        "Error logged, requeue",
      ],
      {
        applies: (i) => normal(i) && cpNotFound(i) && cpFlagBefore(i),
        holds: (_, r) =>
          returnsError(r) &&
          errorSays(r, "deleted after being initialized") &&
          r.status?.initialization?.controlPlaneInitialized === true,
      },
    ),
    doc(
      5,
      [
        "Any",
        "-",
        "External object fetch error",
        "Requeue after 30s (if not found) or error",
        "Condition reflects state",
      ],
      {
        applies: (i) =>
          phasesRun(i) &&
          (infraGetFailed(i) || cpGetFailed(i) || (normal(i) && (infraNotFound(i) || cpNotFound(i)))),
        holds: (i, r, c) => {
          const getFailed = infraGetFailed(i) || cpGetFailed(i)
          const outcome =
            getFailed || otherErrors(i) ? returnsError(r) : requeuesAfter(r, c.missingReferenceRequeueAfter)
          const infraCond = cond(r, "InfrastructureReady")
          const cpCond = cond(r, "ControlPlaneAvailable")
          return (
            outcome &&
            (!infraGetFailed(i) ||
              (infraCond?.status === "Unknown" && infraCond.reason === "InternalError")) &&
            (!infraNotFound(i) || infraCond?.status === "False") &&
            (!cpGetFailed(i) || (cpCond?.status === "Unknown" && cpCond.reason === "InternalError")) &&
            (!cpNotFound(i) || cpCond?.status === "False")
          )
        },
        reason:
          "Covers a failed get of either referenced object (deleting or not) and a missing one while not deleting (a deleting Cluster tolerates it). Rows 3 and 4 outrank it for an object gone after it was provisioned or initialized.",
      },
    ),
    doc(6, ["Any", "-", "Generic API error", "Requeue with error", "Error logged, requeue"], {
      applies: (i) =>
        (i.trigger._tag === "ActionFailed" &&
          !failed(i, "AddFinalizer") &&
          !failed(i, "DeleteObject") &&
          !missingCa(i)) ||
        stage(i) === "getFailed" ||
        (phasesRun(i) && listFailed(i)) ||
        (kubeconfigLooked(i) && i.observed.kubeconfigSecret._tag === "GetFailed"),
      holds: (_, r) => returnsError(r),
      reason:
        "A failed get of the Cluster, a failed listing of descendants, a failed lookup of the kubeconfig Secret, and any failed action other than the finalizer patch and the deletes.",
    }),
    doc(
      7,
      [
        "Deleting",
        "-",
        "filterOwnedDescendants error",
        "Set deletingReason: InternalError",
        "Deleting=InternalError",
      ],
      {
        applies: (i) => stage(i) === "delete" && !hookBlocks(i) && !listFailed(i) && malformedOwner(i),
        holds: (_, r) =>
          deletingReason(r) === "InternalError" && !has(r, "DeleteObject") && !has(r, "RemoveFinalizer"),
        reason:
          "filterOwnedDescendants fails when a descendant's owner reference names the Cluster with an apiVersion that does not parse: whether the Cluster owns it cannot be decided. As the row says, the reason is set and the reconcile returns without an error.",
      },
    ),
    doc(
      8,
      [
        "Deleting",
        "-",
        "Delete child error",
        "Set deletingReason: InternalError, return error",
        "Deleting=InternalError, requeue",
      ],
      {
        applies: (i) => failedDelete(i, ["descendant"]),
        holds: deleteFailedHolds,
      },
    ),
    derived(
      9,
      [
        "Deleting",
        "-",
        "Delete ControlPlane or Infrastructure error",
        "Set deletingReason: InternalError, return error",
        "Deleting=InternalError, requeue",
      ],
      {
        applies: (i) => failedDelete(i, ["controlPlane", "infrastructure"]),
        holds: deleteFailedHolds,
        reason:
          "The delete flowchart's 'Delete ControlPlane' and 'Delete Infrastructure' can fail like a child's delete; the table names only the child's.",
      },
    ),
    derived(10, ["Any", "-", "No error", "-", "-"], {
      applies: () => true,
      holds: (_, r) => !has(r, "ReturnError"),
      reason: "Gap: most reconciles meet no error; the Normal and Deletion tables decide them.",
    }),
    derived(
      11,
      [
        "Any",
        "Endpoint valid, no ControlPlaneRef",
        "Kubeconfig Secret creation failed: `<cluster>-ca` not found",
        "Patch status, requeue after 30s",
        "Requeue after 30s",
      ],
      {
        applies: (i) => missingCa(i),
        holds: missingCaHolds,
        reason:
          "Seed 001 is silent; upstream v1.13's reconcileKubeconfig answers a missing cluster CA Secret with a requeue after 30 s and no error, and the deferred updateStatus still patches the status. An error of another phase in the same reconcile turns it into that error.",
      },
    ),
  ],
  priority: [1, 8, 9, 11, 2, 3, 4, 5, 6, 7, 10],
  resolutions: [
    "A failed action (rows 1, 8, derived 9, and 6 for the others) is reported by the trigger and decides before anything observed.",
    "Then the Overview's order: ClusterClass (2); the always-reconcile phases: an object gone after it was provisioned or initialized (3, 4) before other fetch errors (5); the descendants listing and the kubeconfig lookup (6); reconcileDelete's filter (7).",
    "Row 5's 'Requeue after 30s (if not found)' becomes 'Return error' when another phase of the same reconcile returns an error: controller-runtime ignores RequeueAfter then.",
    "Row 10 is the catch-all 'no error' row, ranked last.",
    "Every failed action but the finalizer patch and the status patch itself is answered with the status patched before the error (upstream's deferred patch); derived row 11 is the one that requeues instead of failing.",
  ],
})
