/**
 * What every row of seed 001's tables promises about the status it leaves:
 * the phase, and the (type, status, reason) of each of the sixteen v1beta2 conditions and the
 * four deprecated v1beta1 conditions of "Conditions", for every reconcile that writes them.
 *
 * The seed names the conditions and what each says ("Conditions", "V1Beta2 Conditions",
 * "V1Beta1 Conditions (Deprecated)"); it does not name their reasons. Where it is silent, or
 * less specific, the reasons and the rules are upstream Cluster API v1.14.2's
 * (`core/reconcilers/cluster`, `api/core/v1beta2` condition reasons), as `STATUS_RESOLUTIONS`
 * records with their reasons.
 * Written from the seed and upstream, not from `core/` (only its types are imported).
 *
 * @module
 */

import { isDeepStrictEqual } from "node:util"
import type { Condition, ConditionStatus, Machine, MachineGroup } from "../../core/cluster/index.ts"
import type { TableSpec } from "../../core/krtt/index.ts"
import {
  activeCpMachineWithNode,
  type C,
  clusterDeleting,
  clusterOf,
  conditionOf,
  cpAfter,
  cpFound,
  cpNotFound,
  deletingMeta,
  failureDomains,
  hookBlocks,
  type I,
  infraAfter,
  infraFound,
  infraNotFound,
  infraProceeds,
  initialized,
  listFailed,
  malformedOwner,
  pending,
  phaseAfter,
  phasesRead,
  provisioned,
  type R,
  stage,
} from "./reading.ts"
import { checkControlPlaneVersions, checkWorkerVersions } from "./versions.ts"

/** What a rule decides for one condition. */
export interface Expected {
  readonly status: ConditionStatus
  /** The reason, or the set of reasons the row's own `holds` narrows down. */
  readonly reason: string | ReadonlyArray<string>
}

const CONTROL_PLANE_LABEL = "cluster.x-k8s.io/control-plane"
const PAUSED = "cluster.x-k8s.io/paused"

/** `metav1.Condition`'s reason: this pattern, at most 1024 characters (Kubernetes API). */
const REASON = /^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/
const v1beta2Reason = (r: string | undefined): r is string =>
  r !== undefined && r.length <= 1_024 && REASON.test(r)
/** A v1beta1 condition's reason: non-empty, at most 256 characters (upstream's CRD). */
const v1beta1Reason = (r: string | undefined): r is string => r !== undefined && r !== "" && r.length <= 256

/** The reasons of `Deleting=True`: reconcileDelete's flowchart (Deletion Reconciliation). */
export const DELETING_REASONS = [
  "WaitingForBeforeDeleteHook",
  "InternalError",
  "WaitingForWorkersDeletion",
  "WaitingForControlPlaneDeletion",
  "WaitingForInfrastructureDeletion",
  "DeletionCompleted",
] as const

// ---------------------------------------------------------------------------------------------
// Reading the input

/**
 * The reconcile ran updateStatus (the deferred patch): after the phases, while waiting for the
 * topology controller (nothing read), or after a failed action other than the finalizer or
 * status patch.
 */
export const statusWritten = (i: I): boolean => {
  const s = stage(i)
  if (s === "normal" || s === "delete" || s === "topologyWait") return true
  if (i.trigger._tag !== "ActionFailed" || clusterOf(i) === undefined) return false
  const a = i.trigger.action._tag
  return a !== "AddFinalizer" && a !== "PatchStatus"
}

const paused = (i: I) =>
  i.desired.paused === true || clusterOf(i)?.metadata.annotations?.[PAUSED] !== undefined
/** The descendants as updateStatus reads them: not when listing failed or nothing was read. */
const listed = (i: I) =>
  phasesRead(i) && i.observed.descendants._tag === "Listed" ? i.observed.descendants : undefined
const isCp = (m: Machine) => m.metadata.labels?.[CONTROL_PLANE_LABEL] !== undefined
const cpMachines = (i: I) => listed(i)?.machines.filter(isCp) ?? []
/** `cluster.x-k8s.io/pool-name`: a MachinePool's Machine, left out of the status (v1.14.2). */
const POOL_LABEL = "cluster.x-k8s.io/pool-name"
const isPoolMachine = (m: Machine) => m.metadata.labels?.[POOL_LABEL] !== undefined
const workerMachines = (i: I) => listed(i)?.machines.filter((m) => !isCp(m) && !isPoolMachine(m)) ?? []
const pools = (i: I) => (i.observed.featureGates.machinePool ? (listed(i)?.machinePools ?? []) : [])
/** The provider objects as updateStatus reads them: fetched by the phases. */
const infraRead = (i: I) => (phasesRead(i) ? i.observed.infrastructure._tag : "GetFailed")
const cpRead = (i: I) => (phasesRead(i) ? i.observed.controlPlane._tag : "GetFailed")
const infraObject = (i: I) => (phasesRead(i) ? infraFound(i) : undefined)
const cpObject = (i: I) => (phasesRead(i) ? cpFound(i) : undefined)

/** A MachineSet or Machine whose owner reference names the Cluster itself. */
const ownedByCluster = (
  i: I,
  meta: { readonly ownerReferences?: ReadonlyArray<{ kind: string; name: string; uid?: string }> },
) => {
  const c = clusterOf(i)
  if (c === undefined) return false
  return (meta.ownerReferences ?? []).some(
    (o) =>
      o.kind === "Cluster" &&
      o.name === c.metadata.name &&
      (c.metadata.uid === undefined || o.uid === undefined || o.uid === c.metadata.uid),
  )
}

const statusOfType = (
  o: { readonly status?: { readonly conditions?: ReadonlyArray<Condition> } },
  type: string,
) => conditionOf(o.status?.conditions, type)?.status

/**
 * Upstream's aggregate over objects (positive polarity): False wins, then Unknown (a type not
 * reported counts as Unknown), else True; `none` when there is nothing to aggregate.
 */
const summary = (
  objects: ReadonlyArray<{ readonly status?: { readonly conditions?: ReadonlyArray<Condition> } }>,
  type: string,
  reasons: readonly [none: string, isTrue: string, isFalse: string, isUnknown: string],
): Expected => {
  if (objects.length === 0) return { status: "True", reason: reasons[0] }
  const states = objects.map((o) => statusOfType(o, type) ?? "Unknown")
  if (states.includes("False")) return { status: "False", reason: reasons[2] }
  if (states.includes("Unknown")) return { status: "Unknown", reason: reasons[3] }
  return { status: "True", reason: reasons[1] }
}

const INTERNAL: Expected = { status: "Unknown", reason: "InternalError" }

/**
 * A provider's condition mirrored: its reason when the CRD takes it; none given reads
 * `NoReasonReported`, replaced by the True reason when True.
 */
const mirrored = (c: Condition, trueReason: string, falseReason: string): Expected => {
  if (c.reason === undefined || c.reason === "")
    return { status: c.status, reason: c.status === "True" ? trueReason : "NoReasonReported" }
  return {
    status: c.status,
    reason: v1beta2Reason(c.reason) ? c.reason : c.status === "True" ? trueReason : falseReason,
  }
}

// ---------------------------------------------------------------------------------------------
// v1beta2

/**
 * A v1beta2 condition of a referenced provider object, as upstream v1.14.2's
 * setInfrastructureReadyCondition and setControlPlaneAvailableCondition: False ObjectDoesNotExist
 * while a topology has not set the ref; Unknown when it was not read (no ref at all included);
 * False (ObjectDeleted once the Cluster's flag is set, ObjectDoesNotExist before) when it is not there; its
 * own condition of that type mirrored; else the Cluster's flag after this reconcile.
 */
const providerCondition = (
  i: I,
  ref: unknown,
  tag: "Found" | "NotFound" | "GetFailed",
  conditions: ReadonlyArray<Condition> | undefined,
  flag: boolean,
  wasReady: boolean,
  [type, isTrue, isFalse]: readonly [type: string, isTrue: string, isFalse: string],
): Expected => {
  if (ref === undefined && i.desired.topology !== undefined)
    return { status: "False", reason: "ObjectDoesNotExist" }
  if (ref === undefined || tag === "GetFailed") return INTERNAL
  if (tag === "NotFound")
    return { status: "False", reason: wasReady ? "ObjectDeleted" : "ObjectDoesNotExist" }
  const c = conditionOf(conditions, type)
  if (c !== undefined) return mirrored(c, isTrue, isFalse)
  return flag ? { status: "True", reason: isTrue } : { status: "False", reason: isFalse }
}

/** A Machine counts towards MachinesUpToDate once it reports UpToDate or is older than 10 s. */
const upToDateCounted = (i: I) => (m: Machine) => {
  if (conditionOf(m.status?.conditions, "UpToDate") !== undefined) return true
  const t = m.metadata.creationTimestamp
  const created = t === undefined ? Number.NaN : Date.parse(t)
  return Number.isNaN(created) || i.now - created > 10_000
}

/** ControlPlaneInitialized (setControlPlaneInitializedCondition); it stays True once True. */
const controlPlaneInitializedOf = (i: I, d: unknown): Expected => {
  const kept = conditionOf(clusterOf(i)?.status?.conditions, "ControlPlaneInitialized")
  if (kept?.status === "True") return { status: "True", reason: kept.reason ?? "Initialized" }
  const cpRef = i.desired.controlPlaneRef
  if (cpRef === undefined && i.desired.topology !== undefined)
    return { status: "Unknown", reason: "ObjectDoesNotExist" }
  if (cpRef !== undefined) {
    const tag = cpRead(i)
    if (tag === "GetFailed") return INTERNAL
    if (tag === "NotFound") return { status: "Unknown", reason: "ObjectDoesNotExist" }
    const cp = cpObject(i)
    return cp !== undefined && initialized(cp)
      ? { status: "True", reason: "Initialized" }
      : { status: "False", reason: "NotInitialized" }
  }
  if (d === undefined) return INTERNAL
  return cpMachines(i).some((m) => m.status?.nodeRef !== undefined)
    ? { status: "True", reason: "Initialized" }
    : { status: "False", reason: "NotInitialized" }
}

/**
 * RollingOut, ScalingUp, ScalingDown (negative polarity): the control-plane object when it
 * reports the type, the MachineDeployments, and for scaling the Cluster's own MachineSets; True
 * when one reports True, Unknown when one has not reported, False otherwise or with none.
 */
const inProgressOf = (
  i: I,
  d: ReturnType<typeof listed>,
  type: "RollingOut" | "ScalingUp" | "ScalingDown",
): Expected => {
  const cpRef = i.desired.controlPlaneRef
  if ((cpRef !== undefined && cpRead(i) === "GetFailed") || d === undefined) return INTERNAL
  const sources: Array<{ readonly status?: { readonly conditions?: ReadonlyArray<Condition> } }> = []
  const cp = cpRef === undefined ? undefined : cpObject(i)
  if (cp !== undefined && statusOfType(cp, type) !== undefined) sources.push(cp)
  sources.push(...d.machineDeployments)
  // Upstream's ScalingUp/ScalingDown count the Cluster's own MachineSets; RollingOut does not.
  if (type !== "RollingOut")
    sources.push(...d.machineSets.filter((g: MachineGroup) => ownedByCluster(i, g.metadata)))
  const states = sources.map((s) => statusOfType(s, type) ?? "Unknown")
  if (states.includes("True")) return { status: "True", reason: type }
  if (states.includes("Unknown")) return { status: "Unknown", reason: `${type}Unknown` }
  return { status: "False", reason: `Not${type}` }
}

/** The expected v1beta2 conditions of a reconcile that wrote the status. */
export const expectedV1Beta2 = (i: I, c: C): Readonly<Record<string, Expected>> => {
  const deleting = clusterDeleting(i)
  const d = listed(i)
  const infraRef = i.desired.infrastructureRef
  const cpRef = i.desired.controlPlaneRef

  const infrastructureReady = providerCondition(
    i,
    infraRef,
    infraRead(i),
    infraObject(i)?.status?.conditions,
    infraAfter(i),
    infraAfter(i),
    ["Ready", "Ready", "NotReady"],
  )
  const controlPlaneAvailable = providerCondition(
    i,
    cpRef,
    cpRead(i),
    cpObject(i)?.status?.conditions,
    cpAfter(i),
    cpAfter(i),
    ["Available", "Available", "NotAvailable"],
  )

  const machines = (ms: ReadonlyArray<Machine>, type: "Ready" | "UpToDate"): Expected =>
    d === undefined
      ? INTERNAL
      : summary(
          type === "UpToDate" ? ms.filter(upToDateCounted(i)) : ms,
          type,
          type === "Ready"
            ? ["NoReplicas", "Ready", "NotReady", "ReadyUnknown"]
            : ["NoReplicas", "UpToDate", "NotUpToDate", "UpToDateUnknown"],
        )

  const workersAvailable: Expected =
    d === undefined
      ? INTERNAL
      : summary(d.machineDeployments, "Available", [
          "NoWorkers",
          "Available",
          "NotAvailable",
          "AvailableUnknown",
        ])

  // Remediating: a Machine unhealthy (HealthCheckSucceeded False) that waits for its owner's
  // remediation (OwnerRemediated False).
  const remediating: Expected =
    d === undefined
      ? INTERNAL
      : d.machines.some(
            (m) =>
              !isPoolMachine(m) &&
              statusOfType(m, "HealthCheckSucceeded") === "False" &&
              statusOfType(m, "OwnerRemediated") === "False",
          )
        ? { status: "True", reason: "Remediating" }
        : { status: "False", reason: "NotRemediating" }

  const remoteConnectionProbe = remoteConnection(i, c)
  const deletingCondition: Expected = deleting
    ? { status: "True", reason: DELETING_REASONS }
    : { status: "False", reason: "NotDeleting" }

  const available = availableOf(i, {
    Deleting: deletingCondition.status,
    RemoteConnectionProbe: remoteConnectionProbe.status,
    InfrastructureReady: infrastructureReady,
    ControlPlaneAvailable: controlPlaneAvailable,
    WorkersAvailable: workersAvailable.status,
  })

  return {
    InfrastructureReady: infrastructureReady,
    ControlPlaneAvailable: controlPlaneAvailable,
    ControlPlaneInitialized: controlPlaneInitializedOf(i, d),
    ControlPlaneMachinesReady: machines(cpMachines(i), "Ready"),
    ControlPlaneMachinesUpToDate: machines(cpMachines(i), "UpToDate"),
    WorkersAvailable: workersAvailable,
    WorkerMachinesReady: machines(workerMachines(i), "Ready"),
    WorkerMachinesUpToDate: machines(workerMachines(i), "UpToDate"),
    RemoteConnectionProbe: remoteConnectionProbe,
    RollingOut: inProgressOf(i, d, "RollingOut"),
    ScalingUp: inProgressOf(i, d, "ScalingUp"),
    ScalingDown: inProgressOf(i, d, "ScalingDown"),
    Remediating: remediating,
    Deleting: deletingCondition,
    Available: available,
    Paused: paused(i) ? { status: "True", reason: "Paused" } : { status: "False", reason: "NotPaused" },
  }
}

/**
 * Available, as upstream's setAvailableCondition summarizes: Deleting (True is the issue),
 * RemoteConnectionProbe, InfrastructureReady, ControlPlaneAvailable, WorkersAvailable,
 * TopologyReconciled (not required without a topology) and the availability gates; a type not
 * reported counts as Unknown. While deleting, a gone provider object is no issue; a False
 * TopologyReconciled is one only when reconciling failed.
 */
const availableOf = (
  i: I,
  parts: {
    readonly Deleting: ConditionStatus
    readonly RemoteConnectionProbe: ConditionStatus
    readonly InfrastructureReady: Expected
    readonly ControlPlaneAvailable: Expected
    readonly WorkersAvailable: ConditionStatus
  },
): Expected => {
  const deleting = clusterDeleting(i)
  const gone = (e: Expected) =>
    deleting && (e.reason === "ObjectDeleted" || e.reason === "ObjectDoesNotExist") ? "True" : e.status
  const states: Array<ConditionStatus> = [
    parts.Deleting === "True" ? "False" : parts.Deleting === "False" ? "True" : "Unknown",
    parts.RemoteConnectionProbe,
    gone(parts.InfrastructureReady),
    gone(parts.ControlPlaneAvailable),
    parts.WorkersAvailable,
  ]
  const conditions = clusterOf(i)?.status?.conditions
  const topology = conditionOf(conditions, "TopologyReconciled")
  if (topology !== undefined)
    states.push(
      topology.status === "False" &&
        topology.reason !== "ReconcileFailed" &&
        topology.reason !== "ClusterClassNotReconciled"
        ? "True"
        : topology.status,
    )
  else if (i.desired.topology !== undefined) states.push("Unknown")
  for (const g of gates(i)) {
    const s = conditionOf(conditions, g.conditionType)?.status ?? "Unknown"
    states.push(
      s === "Unknown" ? "Unknown" : (s === "True") === (g.polarity !== "Negative") ? "True" : "False",
    )
  }
  if (states.includes("False")) return { status: "False", reason: "NotAvailable" }
  if (states.includes("Unknown")) return { status: "Unknown", reason: "AvailableUnknown" }
  return { status: "True", reason: "Available" }
}

/**
 * RemoteConnectionProbe (upstream's setRemoteConnectionProbeCondition): True while the last
 * successful probe is at most the grace period (50 s) old; kept as it was while the ClusterCache
 * has had neither a success nor `remoteConnectionFailureThreshold` (5) failures; else False.
 */
const remoteConnection = (i: I, c: C): Expected => {
  const { lastProbeSuccessTime: last, consecutiveFailures = 0 } = i.observed.remoteConnection
  if (last === undefined && consecutiveFailures < c.remoteConnectionFailureThreshold) {
    const kept = conditionOf(clusterOf(i)?.status?.conditions, "RemoteConnectionProbe")
    if (kept === undefined) return { status: "False", reason: "ProbeFailed" }
    return {
      status: kept.status,
      reason: v1beta2Reason(kept.reason)
        ? kept.reason
        : kept.status === "True"
          ? "ProbeSucceeded"
          : "ProbeFailed",
    }
  }
  return last !== undefined && i.now - last <= c.remoteConnectionGracePeriod
    ? { status: "True", reason: "ProbeSucceeded" }
    : { status: "False", reason: "ProbeFailed" }
}

/** Availability gates: the Cluster's, else its ClusterClass's (with a topology). */
const gates = (i: I) => {
  const cc = i.observed.clusterClass
  return (
    i.desired.availabilityGates ??
    (i.desired.topology !== undefined && cc._tag === "Found" ? (cc.object.spec?.availabilityGates ?? []) : [])
  )
}

// ---------------------------------------------------------------------------------------------
// v1beta1

/** A v1beta1 condition: no reason (`undefined`) for upstream's MarkTrue and mirrored ones without. */
export interface ExpectedV1 {
  readonly status: ConditionStatus
  readonly reason: string | undefined
  readonly severity: string | undefined
}

const v1True: ExpectedV1 = { status: "True", reason: undefined, severity: undefined }
const v1Info = (reason: string): ExpectedV1 => ({ status: "False", reason, severity: "Info" })
const v1Of = (c: Condition | undefined): ExpectedV1 | undefined =>
  c === undefined
    ? undefined
    : {
        status: c.status,
        reason: c.reason === "" ? undefined : c.reason,
        severity:
          c.severity === "Error" || c.severity === "Warning" || c.severity === "Info"
            ? c.severity
            : undefined,
      }

/** A provider's v1beta1 Ready mirrored; a reason longer than the CRD's 256 is replaced. */
const v1Mirror = (
  o: { readonly status?: { readonly conditions?: ReadonlyArray<Condition> } },
  fallback: ExpectedV1,
  waiting: string,
): ExpectedV1 => {
  const c = v1Of(conditionOf(o.status?.conditions, "Ready"))
  if (c === undefined) return fallback
  if (c.reason !== undefined && !v1beta1Reason(c.reason))
    return { ...c, reason: c.status === "True" ? undefined : waiting }
  return c
}

/** reconcileDelete gets to the control-plane and infrastructure steps. */
const deleteReachesRefs = (i: I): boolean =>
  clusterDeleting(i) && !hookBlocks(i) && !listFailed(i) && !malformedOwner(i) && pending(i).length === 0

/** The v1beta1 Ready summary: the first (ControlPlaneReady, then InfrastructureReady) of the most severe. */
const v1Summary = (cs: ReadonlyArray<ExpectedV1 | undefined>): ExpectedV1 | undefined => {
  const rank = (c: ExpectedV1) =>
    c.status === "False"
      ? c.severity === "Error"
        ? 0
        : c.severity === "Warning"
          ? 1
          : c.severity === "Info"
            ? 2
            : 99
      : c.status === "True"
        ? 3
        : 4
  let top: ExpectedV1 | undefined
  for (const c of cs) if (c !== undefined && (top === undefined || rank(c) < rank(top))) top = c
  if (top === undefined) return undefined
  return top.status === "True" ? v1True : top.status === "Unknown" ? { ...top, severity: undefined } : top
}

/**
 * The expected deprecated v1beta1 conditions, as upstream v1.14.2 keeps them: each is changed
 * by its own step only and keeps its value otherwise (`undefined`: never set).
 */
export const expectedV1Beta1 = (i: I): Readonly<Record<string, ExpectedV1 | undefined>> => {
  const deleting = clusterDeleting(i)
  const prev = (type: string) =>
    v1Of(conditionOf(clusterOf(i)?.status?.deprecated?.v1beta1?.conditions, type))
  let infrastructure = prev("InfrastructureReady")
  let controlPlane = prev("ControlPlaneReady")
  let cpInitialized = prev("ControlPlaneInitialized")
  if (phasesRead(i)) {
    const infra = infraFound(i)
    if (i.desired.infrastructureRef === undefined) {
      if (!deleting) infrastructure = v1True
    } else if (infra !== undefined)
      infrastructure = v1Mirror(
        infra,
        deleting ? v1Info("Deleting") : provisioned(infra) ? v1True : v1Info("WaitingForInfrastructure"),
        "WaitingForInfrastructure",
      )
    const cp = cpFound(i)
    if (i.desired.controlPlaneRef !== undefined && cp !== undefined) {
      controlPlane = v1Mirror(
        cp,
        deleting ? v1Info("Deleting") : initialized(cp) ? v1True : v1Info("WaitingForControlPlane"),
        "WaitingForControlPlane",
      )
      if (!deletingMeta(cp.metadata) && cpInitialized?.status !== "True")
        cpInitialized = initialized(cp) ? v1True : v1Info("WaitingForControlPlaneProviderInitialized")
    }
    if (deleteReachesRefs(i)) {
      if (i.desired.controlPlaneRef !== undefined && cpNotFound(i)) controlPlane = v1Info("Deleted")
      if (
        (i.desired.controlPlaneRef === undefined || cpNotFound(i)) &&
        i.desired.infrastructureRef !== undefined &&
        infraNotFound(i)
      )
        infrastructure = v1Info("Deleted")
    }
    if (
      !deleting &&
      i.desired.controlPlaneRef === undefined &&
      cpInitialized?.status !== "True" &&
      listed(i) !== undefined
    )
      cpInitialized = activeCpMachineWithNode(i) ? v1True : v1Info("MissingNodeRef")
  }
  return {
    Ready: v1Summary([controlPlane, infrastructure]) ?? prev("Ready"),
    ControlPlaneReady: controlPlane,
    InfrastructureReady: infrastructure,
    ControlPlaneInitialized: cpInitialized,
  }
}

// ---------------------------------------------------------------------------------------------
// Status Fields: the replica counters

type Counters = {
  readonly [K in
    | "desiredReplicas"
    | "replicas"
    | "readyReplicas"
    | "availableReplicas"
    | "upToDateReplicas"]?: number | undefined
}

const counters = (c: Counters): Counters | undefined =>
  Object.values(c).every((v) => v === undefined) ? undefined : c

/** A sum that stays unset until something is added to it (upstream's nil pointers). */
const sum = (xs: ReadonlyArray<number | undefined>): number | undefined =>
  xs.reduce<number | undefined>((a, x) => (x === undefined ? a : (a ?? 0) + x), undefined)
const count = (ms: ReadonlyArray<Machine>, type?: string): number | undefined => {
  const n = ms.filter((m) => type === undefined || statusOfType(m, type) === "True").length
  return n === 0 ? undefined : n
}

/**
 * `status.controlPlane` (Status Fields): with a controlPlaneRef, each counter the control-plane
 * object publishes (the v1beta1 contract's `unavailableReplicas` and `updatedReplicas` read as
 * upstream does), a counter it does not publish keeping its value; none while the object was not
 * read or only a topology is set; without one, the control-plane Machines counted; the previous
 * counters when the Machines could not be listed.
 */
export const expectedControlPlaneCounters = (i: I): Counters | undefined => {
  const cpRef = i.desired.controlPlaneRef
  if (cpRef !== undefined || i.desired.topology !== undefined) {
    const cp = cpRef === undefined ? undefined : cpObject(i)
    if (cp === undefined) return undefined
    const old = clusterOf(i)?.status?.controlPlane
    const st = cp.status
    const desired = cp.spec?.replicas ?? old?.desiredReplicas
    return counters({
      desiredReplicas: desired,
      replicas: st?.replicas ?? old?.replicas,
      readyReplicas: st?.readyReplicas ?? old?.readyReplicas,
      availableReplicas:
        st?.availableReplicas ??
        (st?.unavailableReplicas !== undefined && desired !== undefined
          ? Math.max(0, desired - st.unavailableReplicas)
          : old?.availableReplicas),
      upToDateReplicas: st?.upToDateReplicas ?? st?.updatedReplicas ?? old?.upToDateReplicas,
    })
  }
  if (listed(i) === undefined) return clusterOf(i)?.status?.controlPlane
  const ms = cpMachines(i)
  return counters({
    desiredReplicas: count(ms),
    replicas: count(ms),
    readyReplicas: count(ms, "Ready"),
    availableReplicas: count(ms, "Available"),
    upToDateReplicas: count(ms, "UpToDate"),
  })
}

/**
 * `status.workers` (Status Fields): the sums over MachineDeployments, MachinePools (with the
 * gate), and the MachineSets and worker Machines the Cluster owns directly (each such Machine one
 * replica); the previous counters when the descendants could not be listed.
 */
export const expectedWorkerCounters = (i: I): Counters | undefined => {
  const d = listed(i)
  if (d === undefined) return clusterOf(i)?.status?.workers
  const groups = [
    ...pools(i),
    ...d.machineDeployments,
    ...d.machineSets.filter((g) => ownedByCluster(i, g.metadata)),
  ]
  const ms = workerMachines(i).filter((m) => ownedByCluster(i, m.metadata))
  return counters({
    desiredReplicas: sum([...groups.map((g) => g.spec?.replicas), count(ms)]),
    replicas: sum([...groups.map((g) => g.status?.replicas), count(ms)]),
    readyReplicas: sum([...groups.map((g) => g.status?.readyReplicas), count(ms, "Ready")]),
    availableReplicas: sum([...groups.map((g) => g.status?.availableReplicas), count(ms, "Available")]),
    upToDateReplicas: sum([...groups.map((g) => g.status?.upToDateReplicas), count(ms, "UpToDate")]),
  })
}

const sameCounters = (got: Counters | undefined, want: Counters | undefined): boolean => {
  if (got === undefined || want === undefined) return got === want
  const keys = [
    "desiredReplicas",
    "replicas",
    "readyReplicas",
    "availableReplicas",
    "upToDateReplicas",
  ] as const
  return (
    keys.every((k) => got[k] === want[k]) &&
    Object.keys(got).every((k) => (got as Record<string, unknown>)[k] !== undefined)
  )
}

// ---------------------------------------------------------------------------------------------
// The check

/**
 * The status each owned v1beta2 condition has when nothing needs attention: True for the
 * positive ones, False for the negative ones (Deleting, Paused, Remediating, RollingOut,
 * ScalingUp, ScalingDown).
 */
export const NORMAL: Readonly<Record<string, ConditionStatus>> = {
  InfrastructureReady: "True",
  ControlPlaneAvailable: "True",
  ControlPlaneInitialized: "True",
  ControlPlaneMachinesReady: "True",
  ControlPlaneMachinesUpToDate: "True",
  WorkersAvailable: "True",
  WorkerMachinesReady: "True",
  WorkerMachinesUpToDate: "True",
  RemoteConnectionProbe: "True",
  RollingOut: "False",
  ScalingUp: "False",
  ScalingDown: "False",
  Remediating: "False",
  Deleting: "False",
  Available: "True",
  Paused: "False",
}

/**
 * The condition's message is someone else's: a provider's condition mirrored, or
 * RemoteConnectionProbe kept as it was; such a message may be empty.
 */
const mirroredMessage = (i: I, c: C, type: string): boolean => {
  switch (type) {
    case "InfrastructureReady": {
      const infra = i.desired.infrastructureRef === undefined ? undefined : infraFound(i)
      return infra !== undefined && conditionOf(infra.status?.conditions, "Ready") !== undefined
    }
    case "ControlPlaneAvailable": {
      const cp = i.desired.controlPlaneRef === undefined ? undefined : cpFound(i)
      return cp !== undefined && conditionOf(cp.status?.conditions, "Available") !== undefined
    }
    case "RemoteConnectionProbe": {
      const { lastProbeSuccessTime: last, consecutiveFailures = 0 } = i.observed.remoteConnection
      return (
        last === undefined &&
        consecutiveFailures < c.remoteConnectionFailureThreshold &&
        conditionOf(clusterOf(i)?.status?.conditions, type) !== undefined
      )
    }
    default:
      return false
  }
}

const reasonOk = (e: Expected, reason: string | undefined) =>
  typeof e.reason === "string" ? reason === e.reason : reason !== undefined && e.reason.includes(reason)

const rfc3339 = (ms: number) => `${new Date(ms).toISOString().slice(0, 19)}Z`

/**
 * A v1beta1 condition's `lastTransitionTime` moves to `now` exactly when its status, reason,
 * severity or message changes (upstream's v1beta1 `HasSameState`).
 */
const transitionOkV1 = (before: Condition | undefined, after: Condition, now: number) =>
  after.lastTransitionTime ===
  (before !== undefined &&
  before.status === after.status &&
  (before.reason ?? "") === (after.reason ?? "") &&
  (before.severity ?? "") === (after.severity ?? "") &&
  (before.message ?? "") === (after.message ?? "") &&
  before.lastTransitionTime !== undefined
    ? before.lastTransitionTime
    : rfc3339(now))

/**
 * While a deleting topology Cluster has no ref yet, upstream leaves the message of the
 * conditions about it empty.
 */
const topologyWhileDeleting = (i: I, type: string): boolean =>
  clusterDeleting(i) &&
  i.desired.topology !== undefined &&
  ((type === "InfrastructureReady" && i.desired.infrastructureRef === undefined) ||
    ((type === "ControlPlaneAvailable" || type === "ControlPlaneInitialized") &&
      i.desired.controlPlaneRef === undefined))

/** A condition's `lastTransitionTime` moves to `now` exactly when its status changes. */
const transitionOk = (before: Condition | undefined, after: Condition, now: number) =>
  after.lastTransitionTime ===
  (before !== undefined && before.status === after.status && before.lastTransitionTime !== undefined
    ? before.lastTransitionTime
    : rfc3339(now))

/**
 * Why the result's status breaks the promise of every row (phase and conditions), or
 * `undefined` when it keeps it.
 */
export const statusMismatch = (i: I, r: R, c: C): string | undefined => {
  const cluster = clusterOf(i)
  const before = cluster?.status
  if (cluster === undefined) return r.status === undefined ? undefined : "a status without a Cluster"
  const s = stage(i)
  if (!statusWritten(i)) {
    if (s === "paused" || s === "pausedCondition") {
      const want = paused(i) ? "True" : "False"
      const p = conditionOf(r.status?.conditions, "Paused")
      if (p?.status !== want || p.reason !== (want === "True" ? "Paused" : "NotPaused")) return "Paused"
      // EnsurePausedCondition sets Paused only: the other conditions and the phase stay.
      for (const old of before?.conditions ?? [])
        if (old.type !== "Paused" && conditionOf(r.status?.conditions, old.type)?.status !== old.status)
          return `${old.type} changed by EnsurePausedCondition`
    }
    return r.status?.phase === before?.phase ? undefined : `phase ${r.status?.phase} (unchanged expected)`
  }
  const st = r.status
  if (st === undefined) return "no status"
  if (st.phase !== phaseAfter(i)) return `phase ${st.phase}, expected ${phaseAfter(i)}`
  // Upstream only ever sets the flags to true: one not true is left out.
  if (st.initialization?.infrastructureProvisioned !== (infraAfter(i) ? true : undefined))
    return "infrastructureProvisioned"
  if (st.initialization?.controlPlaneInitialized !== (cpAfter(i) ? true : undefined))
    return "controlPlaneInitialized"
  if (!sameCounters(st.controlPlane, expectedControlPlaneCounters(i))) return "status.controlPlane"
  if (!sameCounters(st.workers, expectedWorkerCounters(i))) return "status.workers"
  const versions = checkControlPlaneVersions(i, st) ?? checkWorkerVersions(i, st)
  if (versions !== undefined) return versions
  // observedGeneration: this generation when the reconcile ends without an error, else the old
  // one; left out below 1 (upstream's CRD).
  const failed = r.actions.some((a) => a._tag === "ReturnError")
  const og = failed ? before?.observedGeneration : cluster.metadata.generation
  if (st.observedGeneration !== (og !== undefined && og >= 1 ? og : undefined)) return "observedGeneration"
  // failureDomains: copied from a provisioned InfraCluster (Normal Reconciliation row 8), else
  // kept; left out when empty.
  const infra = i.desired.infrastructureRef === undefined ? undefined : infraObject(i)
  const domains = infra !== undefined && infraProceeds(i) ? failureDomains(infra) : before?.failureDomains
  const wantDomains = domains === undefined || domains.length === 0 ? undefined : domains
  if (!isDeepStrictEqual(st.failureDomains, wantDomains)) return "failureDomains"
  const generation = cluster.metadata.generation
  const observedGeneration = generation !== undefined && generation >= 1 ? generation : undefined
  for (const [type, e] of Object.entries(expectedV1Beta2(i, c))) {
    const got = conditionOf(st.conditions, type)
    if (got === undefined) return `v1beta2 ${type} missing`
    if (got.status !== e.status || !reasonOk(e, got.reason))
      return `v1beta2 ${type} ${got.status}/${got.reason}, expected ${e.status}/${String(e.reason)}`
    if (typeof got.message !== "string") return `v1beta2 ${type} without a message`
    if (
      got.status !== NORMAL[type] &&
      got.message === "" &&
      !mirroredMessage(i, c, type) &&
      !topologyWhileDeleting(i, type)
    )
      return `v1beta2 ${type} ${got.status} without saying why`
    if (got.observedGeneration !== observedGeneration) return `v1beta2 ${type} observedGeneration`
    if (!transitionOk(conditionOf(before?.conditions, type), got, i.now))
      return `v1beta2 ${type} lastTransitionTime`
  }
  const previousV1 = before?.deprecated?.v1beta1?.conditions
  const v1 = st.deprecated?.v1beta1?.conditions
  for (const [type, e] of Object.entries(expectedV1Beta1(i))) {
    const got = conditionOf(v1, type)
    if (e === undefined) {
      if (got !== undefined) return `v1beta1 ${type} set though nothing sets it`
      continue
    }
    if (got === undefined) return `v1beta1 ${type} missing`
    if (got.status !== e.status || got.reason !== e.reason)
      return `v1beta1 ${type} ${got.status}/${got.reason}, expected ${e.status}/${String(e.reason)}`
    if (got.severity !== e.severity) return `v1beta1 ${type} severity ${got.severity}, expected ${e.severity}`
    if (got.reason === "" || got.message === "") return `v1beta1 ${type} with an empty reason or message`
    if (got.observedGeneration !== undefined) return `v1beta1 ${type} observedGeneration`
    if (!transitionOkV1(conditionOf(previousV1, type), got, i.now))
      return `v1beta1 ${type} lastTransitionTime`
  }
  // Conditions of other types (other controllers') are kept as they were.
  const owned = new Set(Object.keys(NORMAL))
  for (const old of before?.conditions ?? [])
    if (!owned.has(old.type) && conditionOf(st.conditions, old.type) !== old)
      return `foreign ${old.type} not kept`
  const ownedV1 = new Set(Object.keys(expectedV1Beta1(i)))
  for (const old of previousV1 ?? [])
    if (!ownedV1.has(old.type) && conditionOf(v1, old.type) !== old)
      return `foreign v1beta1 ${old.type} not kept`
  return failureMismatch(i, r)
}

/**
 * A provider's v1beta1 `status.failureReason`/`failureMessage` is copied to the Cluster's
 * `status.deprecated.v1beta1` (upstream's getExternal; the control plane's after the
 * infrastructure's), the message naming the object it comes from; otherwise the old ones stay.
 */
const failureMismatch = (i: I, r: R): string | undefined => {
  const old = clusterOf(i)?.status?.deprecated?.v1beta1
  const got = r.status?.deprecated?.v1beta1
  let reason = old?.failureReason
  let message = (m: string | undefined) => m === old?.failureMessage
  for (const [ref, o] of [
    [i.desired.infrastructureRef, infraObject(i)],
    [i.desired.controlPlaneRef, cpObject(i)],
  ] as const) {
    if (ref === undefined || o === undefined) continue
    const fr = o.status?.failureReason
    const fm = o.status?.failureMessage
    if (fr !== undefined && fr !== "") reason = fr
    if (fm !== undefined && fm !== "")
      message = (m) => m?.endsWith(fm) === true && m.includes(ref.kind) && m.includes(`"${ref.name}"`)
  }
  if (got?.failureReason !== reason) return "deprecated.v1beta1.failureReason"
  return message(got?.failureMessage) ? undefined : "deprecated.v1beta1.failureMessage"
}

/** Every row of a table also keeps the status promise of {@link statusMismatch}. */
export const withStatus = (table: TableSpec<I, R, C>): TableSpec<I, R, C> => ({
  ...table,
  rows: table.rows.map((row) => ({
    ...row,
    holds: (i: I, r: R, c: C) => row.holds(i, r, c) && statusMismatch(i, r, c) === undefined,
  })),
})

/** The choices behind this module where seed 001 is silent, with their reasons. */
export const STATUS_RESOLUTIONS: ReadonlyArray<string> = [
  "v1.14.2 (Status Fields, which the seed predates): status.controlPlane.versions and status.workers.versions are written as Cluster API v1.14.2 writes them (core/reconcilers/cluster/cluster_controller_status.go, internal/util/version/version.go, internal/contract/controlplane.go). With a control-plane object: its status.versions copied when every version parses as semver, the list never goes down (build identifiers counted) and no replica count is negative; none when the field is missing or the object is absent (with the replica counters); the previous list on any other read error, because upstream keeps it. Without one: the control-plane Machines' versions. Workers: the status.versions of MachinePools, MachineDeployments and the MachineSets the Cluster owns, and the versions of the worker Machines it owns, summed per exact string; not updated when listing descendants failed. A Machine's version is status.nodeInfo.kubeletVersion, else spec.version, Machines taken by creation time then name, those without one skipped. Lists are sorted ascending (semver with build identifiers; equal versions by string; non-versions last by string; else first seen); an empty list is left out. spec/cluster/versions.ts checks totals per string exactly and the order of X.Y.Z versions; core's unit tests (core/cluster/versions.test.ts) hold the rest.",
  "v1.14.2: MachinePools count towards the worker replica counters (sum of spec.replicas and of status replicas, readyReplicas, availableReplicas, upToDateReplicas) but not towards WorkersAvailable, RollingOut, ScalingUp or ScalingDown, which upstream still computes over MachineDeployments (and owned MachineSets) only; a MachinePool's Machines (label cluster.x-k8s.io/pool-name) are left out of the worker counters, WorkerMachinesReady, WorkerMachinesUpToDate and Remediating, as upstream filters them before updateStatus reads them. They are still listed, waited for and deleted by reconcileDelete (Deletion Reconciliation, rows 4 and 5).",
  "v1.13 installations: the versions fields are optional in v1.14's Cluster CRD and absent from v1.13.6's, whose structural schema (no x-kubernetes-preserve-unknown-fields under status) makes the API server prune them from a status patch without an error; writing them is harmless there, and a v1.13 Cluster simply shows no versions. The patch carries them on every status write there (the pruned field reads back absent), which changes nothing and triggers no watch event.",
  "Every row is also held to the status it leaves: the phase (Status Fields; see the Normal Reconciliation resolutions for setPhase), and each owned condition's (type, status, reason), for every reconcile that runs updateStatus (the phases ran, or a failed action other than the finalizer or status patch: upstream's deferred patch). A reconcile that stops before the phases leaves the phase as it was; EnsurePausedCondition changes the Paused condition only.",
  "The seed names the conditions but not their reasons; the reasons are upstream v1.14.2's (api/core/v1beta2): Ready/NotReady/ObjectDoesNotExist/ObjectDeleted/InternalError for the mirrored provider conditions (a provider condition without a reason reads NoReasonReported, Ready or Available when True), NoReplicas/Ready/NotReady/ReadyUnknown (UpToDate likewise) for the Machine aggregates, NoWorkers/Available/NotAvailable/AvailableUnknown for WorkersAvailable, ProbeSucceeded/ProbeFailed, <type>/Not<type>/<type>Unknown for RollingOut/ScalingUp/ScalingDown, Remediating/NotRemediating, NotDeleting and the reconcileDelete reasons of the seed, Available/NotAvailable/AvailableUnknown, Paused/NotPaused.",
  "Without an infrastructureRef the infrastructure counts as provisioned (Normal Reconciliation row 5: the flag, and the v1beta1 InfrastructureReady True without a reason, only while the Cluster is not being deleted), but v1.14.2's setInfrastructureReadyCondition has no object to mirror and none that was 'not found': InfrastructureReady is Unknown InternalError 'Please check controller logs for errors', as upstream writes it; likewise ControlPlaneAvailable without a controlPlaneRef. With a topology whose controller has not set the ref, both are False ObjectDoesNotExist 'Waiting for cluster topology to be reconciled' (no message while deleting).",
  "Without a controlPlaneRef, the v1beta2 ControlPlaneInitialized is True once any control-plane Machine has a nodeRef (upstream's setControlPlaneInitializedCondition, deleting Machines included), and stays True once True; Normal Reconciliation row 12 (an active control-plane Machine with a nodeRef, looked for in reconcileNormal only) sets the v1beta1 ControlPlaneInitialized, and status.initialization.controlPlaneInitialized is set from a control-plane object only (row 10), as v1.14.2 does. With a controlPlaneRef: Unknown ObjectDoesNotExist while the object is gone, True Initialized or False NotInitialized 'Control plane not yet initialized' from the object's initialized field.",
  "A provider's reason is mirrored only when metav1.Condition's pattern accepts it (v1beta2) or it is at most 256 characters (v1beta1); else ours replaces it (upstream would write it and the API server would refuse the patch).",
  "Wording (v1.14.2, cluster_controller_status.go and util/conditions, util/paused): the flags' fallbacks say '<Kind> status.initialization.provisioned is false' and '<Kind> status.initialization.controlPlaneInitialized is false' and nothing when True; a missing object '<Kind> does not exist', '<Kind> has been deleted' (deleting) or '<Kind> has been deleted while the cluster still exists'; whatever could not be read or listed 'Please check controller logs for errors' (Deleting=InternalError too; the error goes to the log and the returned error); aggregates list '* <Kind> <names>: <message>' per distinct message (control-plane Machines first, then issues before unknowns, then the messages most objects share), three names then ', ... (N more)', three lines then 'And N <Kinds> with other issues'; an object that has not reported says 'Condition <type> not yet reported'; Available lists '* <Type>: <message or reason>' for each issue and unknown (a gate not reported: 'Condition not yet reported'), and the info messages when True; Paused says 'Cluster spec.paused is set to true' and/or 'Cluster has the cluster.x-k8s.io/paused annotation'. core's unit tests (core/cluster/reconcile.test.ts) hold the wording; this spec holds statuses and reasons. A v1beta2 condition not in its normal state says why in a non-empty message, except a provider's mirrored condition, a kept RemoteConnectionProbe, and the topology conditions of a deleting Cluster, which upstream leaves empty.",
  "Available (setAvailableCondition): the summary of Deleting (True is the issue), RemoteConnectionProbe, InfrastructureReady, ControlPlaneAvailable, WorkersAvailable, TopologyReconciled (required with a topology; summarized when present without one) and the availability gates; while deleting, a provider object gone (ObjectDeleted, ObjectDoesNotExist) is no issue, and a False TopologyReconciled is an issue only for ReconcileFailed and ClusterClassNotReconciled.",
  "v1beta1 conditions (v1.14.2's reconcileInfrastructure, reconcileControlPlane, reconcileDelete, reconcileV1Beta1ControlPlaneInitialized, patchCluster): each is set by its own step and otherwise keeps its value: InfrastructureReady and ControlPlaneReady mirror the provider's v1beta1 Ready when the object was read (fallback True without a reason, or False WaitingForInfrastructure/WaitingForControlPlane, or Deleting while deleting, severity Info, no message), False Deleted when reconcileDelete finds the object gone, untouched when it could not be read or is not there (Normal Reconciliation row 9's 'ControlPlaneReady=False' is read as 'not made True'); ControlPlaneInitialized until True: from a read control-plane object not being deleted (False WaitingForControlPlaneProviderInitialized 'Waiting for control plane provider to indicate the control plane has been initialized'), or row 12 (False MissingNodeRef 'Waiting for the first control plane machine to have its status.nodeRef set'); Ready summarizes ControlPlaneReady and InfrastructureReady by severity, as upstream's v1beta1 summary: the group False Error, then False Warning, False Info, True, Unknown, False without severity; from the first of the most severe group (ControlPlaneReady before InfrastructureReady) its reason, severity and message; True without a reason; kept when neither exists. lastTransitionTime moves when status, reason, severity or message change.",
  "Status Fields' replica counters, as upstream v1.14.2's setControlPlaneReplicas and setWorkersReplicas: with a controlPlaneRef each counter the control-plane object publishes (availableReplicas from the v1beta1 contract's spec.replicas - unavailableReplicas, at least 0; upToDateReplicas from its updatedReplicas), a counter it does not publish keeping its value; none while the object was not read; without one the control-plane Machines counted; workers summed over MachineDeployments, MachinePools (with the gate) and the MachineSets and Machines the Cluster owns directly; a counter is left unset while nothing counts towards it, and the counters stay as they were when the descendants could not be listed. status.initialization's flags are only ever set to true, never written false.",
  "Remediating (setRemediatingCondition): True while a Machine (not a MachinePool's) has HealthCheckSucceeded False and OwnerRemediated False, with the aggregate of their OwnerRemediated messages; else False, naming the unhealthy Machines not to be remediated. MachinesUpToDate leaves out a Machine that has no UpToDate condition and was created at most 10 s ago (upstream's guard against flicker right after a Machine is created).",
  "While waiting for the topology controller (Normal Reconciliation row 4, 'No change' read as 'nothing reconciled'), upstream's deferred updateStatus still writes the status having read nothing: the phase Pending until a ref is set (the previous phase kept), the provider conditions as above, everything that needs the descendants Unknown InternalError, the control-plane counters cleared and the worker counters kept; observedGeneration is updated.",
  "A provider's v1beta1 status.failureReason/failureMessage is copied to status.deprecated.v1beta1 as upstream's getExternal does (the control plane's last, so it wins), the message naming the kind and name it comes from; v1beta1 conditions of other types are kept like the v1beta2 ones.",
  "Deleting=WaitingForWorkersDeletion's message is worded as upstream v1.14.2's objectsPendingDeleteNames: one `* <kind>: <names>` line per kind still pending, in its order (Control plane Machines when there is no controlPlaneRef, MachineDeployments, MachineSets, MachinePools, Worker Machines), names sorted, at most five (maxNamesInDeletingMessage) then `... (N more)` as its StringListToString writes a list; the other Deleting messages are upstream's too ('Waiting for BeforeClusterDelete hook', 'Waiting for <Kind> to be deleted', 'Deletion completed'); users and tooling that read the message see the same text as from upstream's manager.",
  "A v1beta2 condition carries observedGeneration = metadata.generation when that is at least 1 (upstream's CRD minimum) and always a message; lastTransitionTime moves to now (RFC 3339, seconds) exactly when the status changes.",
]
