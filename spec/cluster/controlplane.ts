/**
 * Seed 001, "2. reconcileControlPlane", the flowchart as a table (`cluster.controlplane`): one
 * row per decision path, with the flowchart's node ids and text.
 *
 * @module
 */
import type { TableSpec } from "../../core/krtt/index.ts"
import { rowsFor } from "../builder.ts"
import {
  type C,
  clusterDeleting,
  cpFlagBefore,
  cpFound,
  cpProceeds,
  endpointAfterInfra,
  endpointCopied,
  errorSays,
  FLOWCHART_COLUMNS,
  has,
  type I,
  ownership,
  phaseError,
  phasesRun,
  type R,
  requeuesAfter,
  returnsError,
  validEndpoint,
} from "./reading.ts"
import { withStatus } from "./status.ts"

const { doc, derived } = rowsFor<I, R, C>(FLOWCHART_COLUMNS)

const withRef = (i: I) => phasesRun(i) && i.desired.controlPlaneRef !== undefined
const fetched = (i: I) => i.observed.controlPlane._tag
const flag = (r: R) => r.status?.initialization?.controlPlaneInitialized === true
const noPatch = (r: R) =>
  !has(r, "PatchExternal", (a) => a._tag === "PatchExternal" && a.role === "controlPlane")

export const controlPlaneTable: TableSpec<I, R, C> = withStatus({
  id: "cluster.controlplane",
  source: "001_b44d46ad16131bfc.txt",
  title: "2. reconcileControlPlane",
  columns: FLOWCHART_COLUMNS,
  rows: [
    doc(1, ["A → B -No→ End", "ControlPlaneRef Defined? No", "Return"], {
      applies: (i) => phasesRun(i) && i.desired.controlPlaneRef === undefined,
      holds: (_, r) => noPatch(r) && endpointCopied(r, "controlPlane").length === 0,
    }),
    doc(
      2,
      [
        "A → B -Yes→ C -Found→ I → J -No→ K",
        "ControlPlaneRef Defined? Yes; Get External Object: Found; Initialized? No",
        "Set Owner Ref & Labels; Log & Wait",
      ],
      {
        applies: (i) => {
          const cp = cpFound(i)
          return withRef(i) && cp !== undefined && !cpProceeds(i)
        },
        holds: (i, r) =>
          ownership(i, r, "controlPlane") &&
          endpointCopied(r, "controlPlane").length === 0 &&
          flag(r) === cpFlagBefore(i),
      },
    ),
    doc(
      3,
      [
        "A → B -Yes→ C -Found→ I → J -Yes→ L → M",
        "ControlPlaneRef Defined? Yes; Get External Object: Found; Initialized? Yes",
        "Set Owner Ref & Labels; Get ControlPlaneEndpoint; Set ControlPlaneInitialized=true",
      ],
      {
        applies: (i) => {
          const cp = cpFound(i)
          return withRef(i) && cp !== undefined && cpProceeds(i)
        },
        holds: (i, r) => {
          const cp = cpFound(i)
          if (cp === undefined) return false
          const e = cp.spec?.controlPlaneEndpoint
          const copied = endpointCopied(r, "controlPlane")
          const expectCopy = endpointAfterInfra(i) === undefined && validEndpoint(e)
          return (
            ownership(i, r, "controlPlane") &&
            flag(r) &&
            (expectCopy
              ? copied.length === 1 && copied[0]?.host === e?.host && copied[0]?.port === e?.port
              : copied.length === 0)
          )
        },
        reason:
          "The endpoint is copied only when the Cluster has no valid one, neither set by the user nor copied from the infrastructure in the same reconcile. 'Initialized? Yes' is read as upstream v1.14.2 reads it: the control-plane object is not being deleted, and it reports initialized or the Cluster's flag is set already.",
      },
    ),
    doc(
      4,
      [
        "A → B -Yes→ C -Not Found→ D -Yes→ E",
        "ControlPlaneRef Defined? Yes; Get External Object: Not Found; Deleting? Yes",
        "Tolerate - Return",
      ],
      {
        applies: (i) => withRef(i) && fetched(i) === "NotFound" && clusterDeleting(i),
        holds: (i, r) =>
          noPatch(r) && !errorSays(r, "deleted after being initialized") && flag(r) === cpFlagBefore(i),
      },
    ),
    doc(
      5,
      [
        "A → B -Yes→ C -Not Found→ D -No→ F -Yes→ G",
        "ControlPlaneRef Defined? Yes; Get External Object: Not Found; Deleting? No; Was Initialized? Yes",
        "Error: Deleted after initialized",
      ],
      {
        applies: (i) => withRef(i) && fetched(i) === "NotFound" && !clusterDeleting(i) && cpFlagBefore(i),
        holds: (_, r) => returnsError(r) && errorSays(r, "deleted after being initialized") && flag(r),
      },
    ),
    doc(
      6,
      [
        "A → B -Yes→ C -Not Found→ D -No→ F -No→ H",
        "ControlPlaneRef Defined? Yes; Get External Object: Not Found; Deleting? No; Was Initialized? No",
        "Requeue after 30s",
      ],
      {
        applies: (i) => withRef(i) && fetched(i) === "NotFound" && !clusterDeleting(i) && !cpFlagBefore(i),
        holds: (i, r, c) =>
          (phaseError(i) ? returnsError(r) : requeuesAfter(r, c.missingReferenceRequeueAfter)) && !flag(r),
        reason: "When another phase of the same reconcile returns an error, the error replaces the requeue.",
      },
    ),
    derived(
      7,
      ["A → B -Yes→ C -Error→", "Get External Object: an error other than Not Found", "Return error"],
      {
        applies: (i) => withRef(i) && fetched(i) === "GetFailed",
        holds: (_, r) => returnsError(r),
        reason:
          "The flowchart draws only Found and Not Found; a failed get is an error (Error Handling, row 5).",
      },
    ),
    derived(8, ["-", "reconcileControlPlane not reached", "-"], {
      applies: (i) => !phasesRun(i),
      holds: (_, r) => noPatch(r) && endpointCopied(r, "controlPlane").length === 0,
      reason:
        "Reconcile ended before the always-reconcile phases (not found, finalizer added, paused, ClusterClass error, waiting for the topology), or the trigger reports a failed action.",
    }),
  ],
  priority: [1, 2, 3, 4, 5, 6, 7, 8],
  resolutions: ["The paths are mutually exclusive; the priority is the table order."],
})
