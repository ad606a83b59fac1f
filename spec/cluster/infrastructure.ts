/**
 * Seed 001, "1. reconcileInfrastructure", the flowchart as a table (`cluster.infrastructure`):
 * one row per decision path, with the flowchart's node ids and text. The flowchart runs on
 * every reconcile that reaches the always-reconcile phases, deleting or not.
 *
 * @module
 */
import { isDeepStrictEqual } from "node:util"
import type { TableSpec } from "../../core/krtt/index.ts"
import { rowsFor } from "../builder.ts"
import {
  type C,
  clusterDeleting,
  endpointCopied,
  errorSays,
  FLOWCHART_COLUMNS,
  failureDomains,
  has,
  type I,
  infraFlagBefore,
  infraFound,
  infraProceeds,
  ownership,
  phaseError,
  phasesRun,
  type R,
  requeuesAfter,
  returnsError,
  validEndpoint,
} from "./reading.ts"
import { withStatus } from "./status.ts"

export { failureDomains }

const { doc, derived } = rowsFor<I, R, C>(FLOWCHART_COLUMNS)

const withRef = (i: I) => phasesRun(i) && i.desired.infrastructureRef !== undefined
const fetched = (i: I) => i.observed.infrastructure._tag
const flag = (r: R) => r.status?.initialization?.infrastructureProvisioned === true
const noPatch = (r: R) =>
  !has(r, "PatchExternal", (a) => a._tag === "PatchExternal" && a.role === "infrastructure")

export const infrastructureTable: TableSpec<I, R, C> = withStatus({
  id: "cluster.infrastructure",
  source: "001_b44d46ad16131bfc.txt",
  title: "1. reconcileInfrastructure",
  columns: FLOWCHART_COLUMNS,
  rows: [
    doc(1, ["A → B -No→ C", "InfraRef Defined? No", "Mark InfrastructureProvisioned=true"], {
      applies: (i) => phasesRun(i) && i.desired.infrastructureRef === undefined,
      holds: (i, r) => flag(r) === (!clusterDeleting(i) || infraFlagBefore(i)) && noPatch(r),
      reason:
        "Upstream v1.14.2 marks it only while the Cluster is not being deleted (reconcileInfrastructure checks the deletion timestamp first); a deleting Cluster keeps the flag it had.",
    }),
    doc(
      2,
      [
        "A → B -Yes→ D -Found→ J → K -No→ L",
        "InfraRef Defined? Yes; Get External Object: Found; Provisioned? No",
        "Set Owner Ref & Labels; Log & Wait",
      ],
      {
        applies: (i) => {
          const infra = infraFound(i)
          return withRef(i) && infra !== undefined && !infraProceeds(i)
        },
        holds: (i, r) =>
          ownership(i, r, "infrastructure") &&
          endpointCopied(r, "infrastructure").length === 0 &&
          flag(r) === infraFlagBefore(i),
      },
    ),
    doc(
      3,
      [
        "A → B -Yes→ D -Found→ J → K -Yes→ M → N → O",
        "InfraRef Defined? Yes; Get External Object: Found; Provisioned? Yes",
        "Set Owner Ref & Labels; Get ControlPlaneEndpoint; Get FailureDomains; Set InfrastructureProvisioned=true",
      ],
      {
        applies: (i) => {
          const infra = infraFound(i)
          return withRef(i) && infra !== undefined && infraProceeds(i)
        },
        holds: (i, r) => {
          const infra = infraFound(i)
          if (infra === undefined) return false
          const e = infra.spec?.controlPlaneEndpoint
          const copied = endpointCopied(r, "infrastructure")
          const expectCopy = !validEndpoint(i.desired.controlPlaneEndpoint) && validEndpoint(e)
          return (
            ownership(i, r, "infrastructure") &&
            flag(r) &&
            isDeepStrictEqual(r.status?.failureDomains ?? [], failureDomains(infra)) &&
            (expectCopy
              ? copied.length === 1 && copied[0]?.host === e?.host && copied[0]?.port === e?.port
              : copied.length === 0)
          )
        },
        reason:
          "The endpoint is copied only when the Cluster has no valid one: an endpoint set by the user is kept. 'Provisioned? Yes' is read as upstream v1.14.2 reads it: the InfraCluster is not being deleted (upstream stops at one that is), and it reports provisioned or the Cluster's flag is set already (upstream goes on once provisioned, whatever the object reports now).",
      },
    ),
    doc(
      4,
      [
        "A → B -Yes→ D -Not Found→ E -Yes→ F",
        "InfraRef Defined? Yes; Get External Object: Not Found; Deleting? Yes",
        "Tolerate - Return",
      ],
      {
        applies: (i) => withRef(i) && fetched(i) === "NotFound" && clusterDeleting(i),
        holds: (i, r) =>
          noPatch(r) && !errorSays(r, "deleted after being provisioned") && flag(r) === infraFlagBefore(i),
      },
    ),
    doc(
      5,
      [
        "A → B -Yes→ D -Not Found→ E -No→ G -Yes→ H",
        "InfraRef Defined? Yes; Get External Object: Not Found; Deleting? No; Was Provisioned? Yes",
        "Error: Deleted after provisioned",
      ],
      {
        applies: (i) => withRef(i) && fetched(i) === "NotFound" && !clusterDeleting(i) && infraFlagBefore(i),
        holds: (_, r) => returnsError(r) && errorSays(r, "deleted after being provisioned") && flag(r),
      },
    ),
    doc(
      6,
      [
        "A → B -Yes→ D -Not Found→ E -No→ G -No→ I",
        "InfraRef Defined? Yes; Get External Object: Not Found; Deleting? No; Was Provisioned? No",
        "Requeue after 30s",
      ],
      {
        applies: (i) => withRef(i) && fetched(i) === "NotFound" && !clusterDeleting(i) && !infraFlagBefore(i),
        holds: (i, r, c) =>
          (phaseError(i) ? returnsError(r) : requeuesAfter(r, c.missingReferenceRequeueAfter)) && !flag(r),
        reason: "When another phase of the same reconcile returns an error, the error replaces the requeue.",
      },
    ),
    derived(
      7,
      ["A → B -Yes→ D -Error→", "Get External Object: an error other than Not Found", "Return error"],
      {
        applies: (i) => withRef(i) && fetched(i) === "GetFailed",
        holds: (_, r) => returnsError(r),
        reason:
          "The flowchart draws only Found and Not Found; a failed get is an error (Error Handling, row 5).",
      },
    ),
    derived(8, ["-", "reconcileInfrastructure not reached", "-"], {
      applies: (i) => !phasesRun(i),
      holds: (_, r) => noPatch(r) && endpointCopied(r, "infrastructure").length === 0,
      reason:
        "Reconcile ended before the always-reconcile phases (not found, finalizer added, paused, ClusterClass error, waiting for the topology), or the trigger reports a failed action.",
    }),
  ],
  priority: [1, 2, 3, 4, 5, 6, 7, 8],
  resolutions: ["The paths are mutually exclusive; the priority is the table order."],
})
