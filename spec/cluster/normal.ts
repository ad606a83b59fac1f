/**
 * Seed 001, "KRTT - Normal Reconciliation", transcribed row by row (table `cluster.normal`).
 *
 * The table's rows describe facets of one reconcile: several can be true of the same input
 * (the infrastructure gets provisioned and the phase becomes Provisioned in the same pass). The
 * recorded priority names the one row that decides, and `resolutions` says why.
 *
 * @module
 */
import { isDeepStrictEqual } from "node:util"
import type { TableSpec } from "../../core/krtt/index.ts"
import { KRTT_COLUMNS, rowsFor } from "../builder.ts"
import { failureDomains } from "./infrastructure.ts"
import {
  activeCpMachineWithNode,
  type C,
  CLUSTER_NAME_LABEL,
  clusterOf,
  cond,
  conditionOf,
  cpFlagBefore,
  cpFound,
  deletingMeta,
  endpointAfter,
  endpointAfterInfra,
  endpointCopied,
  FINALIZER,
  has,
  type I,
  infraFlagBefore,
  infraFound,
  infraProceeds,
  initialized,
  missingCa,
  missingCaHolds,
  ownership,
  patched,
  phaseAfter,
  phaseError,
  provisioned,
  type R,
  requeuesAfter,
  returnsError,
  stage,
  v1cond,
  validEndpoint,
} from "./reading.ts"
import { STATUS_RESOLUTIONS, withStatus } from "./status.ts"

const { doc, derived } = rowsFor<I, R, C>(KRTT_COLUMNS)

const normal = (i: I) => stage(i) === "normal"
/** updateStatus ran and its result was patched. */
const statusPatched = (r: R) => patched(r) !== undefined && patched(r) === r.status
const onlyAction = (r: R, tag: string) => r.actions.length === 1 && r.actions[0]?._tag === tag

export const normalTable: TableSpec<I, R, C> = withStatus({
  id: "cluster.normal",
  source: "001_b44d46ad16131bfc.txt",
  title: "Normal Reconciliation",
  columns: KRTT_COLUMNS,
  rows: [
    doc(1, ["Cluster not found", "-", "Object deleted", "Return nil (no-op)", "-"], {
      applies: (i) => stage(i) === "notFound",
      holds: (_, r) => r.actions.length === 0 && r.status === undefined,
    }),
    doc(
      2,
      [
        "Cluster without finalizer",
        "Any",
        "Object fetched",
        "Add `cluster.cluster.x-k8s.io` finalizer, return",
        "Cluster with finalizer",
      ],
      {
        applies: (i) => stage(i) === "addFinalizer",
        holds: (i, r) =>
          onlyAction(r, "AddFinalizer") &&
          has(
            r,
            "AddFinalizer",
            (a) =>
              a._tag === "AddFinalizer" &&
              a.finalizer === FINALIZER &&
              a.cluster.name === clusterOf(i)?.metadata.name,
          ),
        reason:
          "Read as 'a Cluster that is not being deleted': the API server refuses new finalizers once the deletion timestamp is set.",
      },
    ),
    doc(
      3,
      [
        "Cluster paused",
        "Any",
        "Paused annotation or spec",
        "`EnsurePausedCondition` sets condition",
        "Paused=True",
      ],
      {
        applies: (i) => stage(i) === "paused",
        holds: (i, r) => {
          if (cond(r, "Paused")?.status !== "True") return false
          if (r.actions.some((a) => a._tag !== "PatchStatus") || r.actions.length > 1) return false
          const before = conditionOf(clusterOf(i)?.status?.conditions, "Paused")
          return before?.status === "True" || r.actions.length === 1
        },
      },
    ),
    doc(
      4,
      [
        "Topology defined, refs missing",
        "Topology defined",
        "Initial with ClusterClass",
        "Log and return nil (wait for topology controller)",
        "No change",
      ],
      {
        applies: (i) => stage(i) === "topologyWait",
        holds: (_, r) =>
          r.actions.every(
            (a) => a._tag === "PatchStatus" || (a._tag === "Event" && a.reason === r.status?.phase),
          ) && statusPatched(r),
        reason:
          "Only for a Cluster that is not being deleted: the Overview flowchart draws the topology check before 'Deleting?', but upstream v1.13 checks deletion first, so a deleting Cluster whose refs were never generated is deleted rather than kept with its finalizer forever. 'No change' is read as 'nothing reconciled': upstream v1.14.2's deferred updateStatus still writes the status, having read nothing (phase Pending until a ref is set, InfrastructureReady and ControlPlaneAvailable False 'Waiting for cluster topology to be reconciled', ControlPlaneInitialized Unknown, the descendant conditions InternalError, the control-plane counters cleared, the worker counters kept), with the phase's event when the phase changes; spec/cluster/status.ts holds that status.",
      },
    ),
    doc(
      5,
      [
        "Phase=Pending, No InfraRef",
        "InfraRef not defined",
        "No infra template",
        "Mark InfrastructureProvisioned=true, V1Beta1 InfrastructureReady=True",
        "Phase=Provisioning",
      ],
      {
        applies: (i) => normal(i) && i.desired.infrastructureRef === undefined && !infraFlagBefore(i),
        holds: (_, r) =>
          statusPatched(r) &&
          r.status?.initialization?.infrastructureProvisioned === true &&
          v1cond(r, "InfrastructureReady")?.status === "True" &&
          r.status.phase !== "Pending",
        reason:
          "'Phase=Pending' is read as 'infrastructure not yet marked provisioned'. The phase is Provisioning, or Provisioned when the control plane is initialized too (then row 13 decides).",
      },
    ),
    doc(
      6,
      [
        "Phase=Pending",
        "InfraRef defined",
        "Initial creation",
        "Get infra object, set owner ref + cluster label",
        "InfrastructureReady mirrors infra",
      ],
      {
        applies: (i) => {
          const infra = infraFound(i)
          return (
            normal(i) && i.desired.infrastructureRef !== undefined && infra !== undefined && !infraProceeds(i)
          )
        },
        holds: (i, r) => {
          const infra = infraFound(i)
          if (infra === undefined || !statusPatched(r)) return false
          const ready = conditionOf(infra.status?.conditions, "Ready")?.status
          return (
            ownership(i, r, "infrastructure") &&
            cond(r, "InfrastructureReady")?.status === (ready ?? (infraFlagBefore(i) ? "True" : "False")) &&
            v1cond(r, "InfrastructureReady")?.status === (ready ?? (provisioned(infra) ? "True" : "False"))
          )
        },
        reason:
          "'Initial creation' is read as 'the InfraCluster exists but is not provisioned yet (or is being deleted)', whatever the phase: the flowchart's 'Provisioned? No → Log & Wait' path as upstream v1.14.2 takes it (spec/cluster/infrastructure.ts, row 3). Without a Ready condition to mirror, upstream v1.14.2 falls back to the Cluster's flag for the v1beta2 condition and to the object's provisioned field for the v1beta1 one.",
      },
    ),
    doc(
      7,
      [
        "InfrastructureReady=False",
        "InfraRef defined",
        "Infra not found (not deleting)",
        "Requeue after 30s",
        "No change",
      ],
      {
        applies: (i) =>
          normal(i) &&
          i.desired.infrastructureRef !== undefined &&
          i.observed.infrastructure._tag === "NotFound",
        holds: (_, r, c) =>
          statusPatched(r) &&
          requeuesAfter(r, c.missingReferenceRequeueAfter) &&
          r.status?.initialization?.infrastructureProvisioned === undefined &&
          endpointCopied(r, "infrastructure").length === 0,
        reason: "'No change': the flag stays unset (upstream never writes false) and nothing is copied.",
      },
    ),
    doc(
      8,
      [
        "InfrastructureReady=False",
        "InfraRef defined",
        "Infra provisioned=true",
        "Copy ControlPlaneEndpoint, FailureDomains",
        "InfrastructureProvisioned=True",
      ],
      {
        applies: (i) => {
          const infra = infraFound(i)
          return (
            normal(i) &&
            i.desired.infrastructureRef !== undefined &&
            infra !== undefined &&
            provisioned(infra) &&
            !deletingMeta(infra.metadata) &&
            !infraFlagBefore(i)
          )
        },
        holds: (i, r) => {
          const infra = infraFound(i)
          if (infra === undefined || !statusPatched(r)) return false
          const copied = endpointCopied(r, "infrastructure")
          const expectCopy =
            !validEndpoint(i.desired.controlPlaneEndpoint) && validEndpoint(infra.spec?.controlPlaneEndpoint)
          const e = infra.spec?.controlPlaneEndpoint
          return (
            r.status?.initialization?.infrastructureProvisioned === true &&
            isDeepStrictEqual(r.status.failureDomains ?? [], failureDomains(infra)) &&
            (expectCopy
              ? copied.length === 1 && copied[0]?.host === e?.host && copied[0]?.port === e?.port
              : copied.length === 0)
          )
        },
        reason:
          "'InfrastructureReady=False' is read as 'status.initialization.infrastructureProvisioned not yet true'.",
      },
    ),
    doc(
      9,
      [
        "ControlPlaneRef defined",
        "ControlPlaneRef defined",
        "CP not found (not deleting)",
        "Requeue after 30s",
        "ControlPlaneReady=False",
      ],
      {
        applies: (i) =>
          normal(i) && i.desired.controlPlaneRef !== undefined && i.observed.controlPlane._tag === "NotFound",
        holds: (i, r, c) =>
          statusPatched(r) &&
          requeuesAfter(r, c.missingReferenceRequeueAfter) &&
          v1cond(r, "ControlPlaneReady")?.status ===
            conditionOf(clusterOf(i)?.status?.deprecated?.v1beta1?.conditions, "ControlPlaneReady")?.status,
        reason:
          "'ControlPlaneReady=False' is read as 'not made True': upstream v1.14.2 sets the v1beta1 ControlPlaneReady only from a control-plane object it read, so it keeps what it was (False when a previous reconcile saw the object not ready, absent when never set).",
      },
    ),
    doc(
      10,
      [
        "ControlPlaneRef defined",
        "ControlPlaneRef defined",
        "CP initialized=true",
        "Copy ControlPlaneEndpoint",
        "ControlPlaneInitialized=True",
      ],
      {
        applies: (i) => {
          const cp = cpFound(i)
          return (
            normal(i) &&
            i.desired.controlPlaneRef !== undefined &&
            cp !== undefined &&
            initialized(cp) &&
            !deletingMeta(cp.metadata) &&
            !cpFlagBefore(i)
          )
        },
        holds: (i, r) => {
          const cp = cpFound(i)
          if (cp === undefined || !statusPatched(r)) return false
          const copied = endpointCopied(r, "controlPlane")
          const e = cp.spec?.controlPlaneEndpoint
          const expectCopy = endpointAfterInfra(i) === undefined && validEndpoint(e)
          return (
            r.status?.initialization?.controlPlaneInitialized === true &&
            cond(r, "ControlPlaneInitialized")?.status === "True" &&
            v1cond(r, "ControlPlaneInitialized")?.status === "True" &&
            (expectCopy
              ? copied.length === 1 && copied[0]?.host === e?.host && copied[0]?.port === e?.port
              : copied.length === 0)
          )
        },
      },
    ),
    doc(
      11,
      [
        "No ControlPlaneRef",
        "Endpoint valid",
        "CP initialized, no Kubeconfig secret",
        "Generate Kubeconfig secret",
        "Kubeconfig created",
      ],
      {
        applies: (i) =>
          normal(i) &&
          i.desired.controlPlaneRef === undefined &&
          endpointAfter(i) !== undefined &&
          i.observed.kubeconfigSecret._tag === "NotFound",
        holds: (i, r) => {
          const c = clusterOf(i)
          const e = endpointAfter(i)
          return (
            c !== undefined &&
            statusPatched(r) &&
            has(
              r,
              "CreateKubeconfigSecret",
              (a) =>
                a._tag === "CreateKubeconfigSecret" &&
                a.secret.name === `${c.metadata.name}-kubeconfig` &&
                a.secret.namespace === c.metadata.namespace &&
                a.caSecret.name === `${c.metadata.name}-ca` &&
                a.type === "cluster.x-k8s.io/secret" &&
                a.key === "value" &&
                a.labels[CLUSTER_NAME_LABEL] === c.metadata.name &&
                a.endpoint.host === e?.host &&
                a.endpoint.port === e?.port,
            )
          )
        },
        reason:
          "The kubeconfig Secret is written only without a controlPlaneRef and with a valid endpoint; 'CP initialized' is not required: without a control-plane object the only sign of initialization is a Machine's nodeRef, which needs this very kubeconfig.",
      },
    ),
    doc(
      12,
      [
        "No ControlPlaneRef",
        "-",
        "No CP ref, active machines",
        "Check for control plane machine with NodeRef",
        "ControlPlaneInitialized=True when found",
      ],
      {
        applies: (i) =>
          normal(i) &&
          i.desired.controlPlaneRef === undefined &&
          conditionOf(clusterOf(i)?.status?.deprecated?.v1beta1?.conditions, "ControlPlaneInitialized")
            ?.status !== "True",
        holds: (i, r) => {
          const found = activeCpMachineWithNode(i)
          return (
            statusPatched(r) &&
            r.status?.initialization?.controlPlaneInitialized === (cpFlagBefore(i) ? true : undefined) &&
            (v1cond(r, "ControlPlaneInitialized")?.status === "True") === found
          )
        },
        reason:
          "The check runs whenever the v1beta1 ControlPlaneInitialized condition is not yet True (upstream's reconcileV1Beta1ControlPlaneInitialized); 'active' Machines are those without a deletion timestamp. 'ControlPlaneInitialized=True' is that condition: upstream v1.14.2 sets status.initialization.controlPlaneInitialized from a control-plane object only, so without a controlPlaneRef the flag stays unset; the v1beta2 ControlPlaneInitialized counts any control-plane Machine with a nodeRef (spec/cluster/status.ts).",
      },
    ),
    doc(
      13,
      [
        "Phase=Provisioning",
        "All ready",
        "Infra provisioned + CP initialized",
        "setPhase",
        "Phase=Provisioned",
      ],
      {
        applies: (i) =>
          normal(i) && clusterOf(i)?.status?.phase !== "Provisioned" && phaseAfter(i) === "Provisioned",
        holds: (i, r) =>
          statusPatched(r) &&
          r.status?.phase === "Provisioned" &&
          r.status.initialization?.infrastructureProvisioned === true &&
          validEndpoint(endpointAfter(i)) &&
          has(r, "Event", (a) => a._tag === "Event" && a.reason === "Provisioned"),
        reason:
          "Decides the reconcile in which the phase becomes Provisioned, whatever it was before. 'Infra provisioned + CP initialized' is read as upstream v1.13's setPhase: the infrastructure provisioned and a valid spec.controlPlaneEndpoint, the endpoint being what a provisioned infrastructure or an initialized control plane publishes; a Cluster whose endpoint is set by hand is Provisioned before its control plane is initialized, as upstream's.",
      },
    ),
    derived(
      14,
      [
        "Paused condition not False",
        "Not paused",
        "Neither `spec.paused` nor the paused annotation",
        "`EnsurePausedCondition` sets Paused=False, return",
        "Paused=False",
      ],
      {
        applies: (i) => stage(i) === "pausedCondition",
        holds: (_, r) =>
          onlyAction(r, "PatchStatus") &&
          cond(r, "Paused")?.status === "False" &&
          cond(r, "Paused")?.reason === "NotPaused",
        reason:
          "The Overview draws 'EnsurePausedCondition → Paused/Requeue/Error → Return'; the table has no row for the Requeue branch: an unpaused Cluster whose Paused condition is not yet False gets it, and the reconcile ends.",
      },
    ),
    derived(
      15,
      ["Any", "-", "An error of the Error Handling table", "Return error", "Requeue with backoff"],
      {
        applies: (i) => {
          const s = stage(i)
          return (
            (s === "actionFailed" && !missingCa(i)) ||
            s === "getFailed" ||
            s === "clusterClass" ||
            (s === "normal" && phaseError(i))
          )
        },
        holds: (_, r) => returnsError(r),
        reason:
          "Errors are the Error Handling table's (cluster.errors): the reconcile ends with the error, after the phases that could run did.",
      },
    ),
    derived(
      16,
      ["DeletionTimestamp!=nil", "-", "Cluster being deleted", "reconcileDelete", "Phase=Deleting"],
      {
        applies: (i) => stage(i) === "delete",
        holds: (_, r) =>
          statusPatched(r) &&
          r.status?.phase === "Deleting" &&
          !has(r, "AddFinalizer") &&
          !has(r, "CreateKubeconfigSecret"),
        reason: "A deleting Cluster is the Deletion Reconciliation table's (cluster.deletion).",
      },
    ),
    derived(17, ["Any", "Any", "Nothing to change", "updateStatus only", "Status refreshed"], {
      applies: (i) => normal(i),
      holds: (_, r) =>
        statusPatched(r) &&
        !has(r, "ReturnError") &&
        !has(r, "Requeue") &&
        !has(r, "DeleteObject") &&
        !has(r, "AddFinalizer") &&
        !has(r, "RemoveFinalizer") &&
        !has(r, "CreateKubeconfigSecret"),
      reason:
        "Gap: no documented row for a reconcile that only refreshes the status (everything already provisioned and initialized, or a control plane not yet initialized without a documented row).",
    }),
    derived(
      18,
      [
        "No ControlPlaneRef, kubeconfig Secret missing",
        "Endpoint valid",
        "Creating the kubeconfig Secret failed: no `<cluster>-ca` Secret",
        "Patch status, requeue after 30s",
        "Status refreshed, Kubeconfig not yet created",
      ],
      {
        applies: (i) => stage(i) === "actionFailed" && missingCa(i),
        holds: (i, r) => missingCaHolds(i, r) && !has(r, "CreateKubeconfigSecret"),
        reason:
          "Seed 001 is silent on a kubeconfig that cannot be signed yet; upstream v1.13's reconcileKubeconfig requeues after 30 s without an error when the cluster CA Secret does not exist, and its deferred patch still writes the status. An error of another phase in the same reconcile wins, as with row 15.",
      },
    ),
  ],
  priority: [1, 2, 3, 14, 4, 18, 15, 16, 7, 9, 13, 5, 8, 10, 11, 12, 6, 17],
  resolutions: [
    "Stages first, in the Overview's order: not found (1), finalizer (2), paused (3, derived 14), topology wait (4); an error of any phase (derived 15) before any other row; a deleting Cluster (derived 16) belongs to cluster.deletion.",
    "The requeue rows (7, 9) come before the others: a missing ref holds the reconcile back.",
    "Row 13 (phase becomes Provisioned) outranks the rows that set the flags in the same reconcile (5, 8, 10, 12): the phase is the outcome a user sees.",
    "Then the flowchart order: infrastructure (5, 8), control plane (10), kubeconfig (11), v1beta1 initialization (12), and last the 'infra found, waiting' row 6 and the derived steady state 17.",
    "Row 11 does not require 'CP initialized' (see the row's reason).",
    "Phase (upstream v1.13's setPhase where the seed is silent): Provisioned once the infrastructure is provisioned and spec.controlPlaneEndpoint is valid (row 13); Provisioning once a ref is set or the infrastructure is provisioned (row 5, kept from the seed where upstream would leave a Cluster without refs Pending); else the phase stays (Pending at first). Failed is never derived: a provider's failureReason/failureMessage is copied to status.deprecated.v1beta1 as upstream does, not to the phase.",
    "A failed action other than the finalizer patch and the status patch still gets the status patched (upstream's deferred patch); a kubeconfig Secret that cannot be signed for want of the cluster CA requeues after 30 s (derived row 18).",
    "Where seed 001 is silent, updateStatus follows upstream v1.13: RemoteConnectionProbe keeps its previous value while the ClusterCache has had neither a successful probe nor 5 failed ones (a restarted manager does not flip it), else True within the 50 s grace period of the last success; Available summarizes Deleting, RemoteConnectionProbe, InfrastructureReady, ControlPlaneAvailable, WorkersAvailable and the availability gates, which are the Cluster's own or else the ClusterClass's (not both) plus TopologyReconciled for a topology Cluster; replica counters are left unset while nothing is known of them; a provider's status.failureReason/failureMessage is copied to status.deprecated.v1beta1; the events InfrastructureReady and ControlPlaneInitialized are recorded when the flags are first set from the provider objects.",
    "Every status written validates against upstream v1.13's Cluster CRD: v1beta2 conditions always carry a message, provider reasons that do not match metav1.Condition's pattern are replaced by ours, failureDomains is left out when empty, observedGeneration is at least 1 (property-tests/cluster/upstream-schema.test.ts).",
    ...STATUS_RESOLUTIONS,
  ],
})
