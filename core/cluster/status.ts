/**
 * updateStatus (seed 001, "Defer: updateStatus + patchCluster"): the phase, the initialization
 * flags, the replica counters, the failure domains, the sixteen v1beta2 conditions and the four
 * deprecated v1beta1 conditions, computed from what one reconcile saw and decided.
 *
 * Guarantees:
 * - the initialization flags only go from false to true, so a Cluster whose infrastructure was
 *   provisioned never goes back to `Pending`;
 * - `Deleting` is True exactly when the phase is `Deleting`; `ControlPlaneInitialized` (both
 *   versions) is True exactly when `status.initialization.controlPlaneInitialized` is;
 * - conditions of other types (set by other controllers) are kept, after the owned ones.
 *
 * Caveat: the deprecated v1beta1 `ControlPlaneReady` mirrors the control-plane object's `Ready`;
 * without a `controlPlaneRef` there is nothing to mirror and it is not set (the v1beta1 `Ready`
 * then summarizes `InfrastructureReady` alone).
 *
 * Phase (seed 001, Normal Reconciliation rows 5 and 13): `Deleting` while deleting; `Failed`
 * only while the deprecated `status.deprecated.v1beta1.failureReason` or `failureMessage` is set
 * (this controller never sets them); `Provisioned` once the infrastructure is provisioned and the
 * control plane initialized; `Provisioning` once either ref is set or the infrastructure is
 * provisioned; `Pending` before.
 *
 * @module
 */
import {
  aggregate,
  anyInProgress,
  type Clock,
  type Decided,
  findCondition,
  type InProgressSource,
  listNames,
  v1beta1Condition,
  v1beta2Condition,
} from "./conditions.ts"
import type { ClusterControllerConfig } from "./config.ts"
import {
  describeRef,
  isInitialized,
  isProvisioned,
  PausedAnnotation,
  V1Beta1ConditionTypes,
  V1Beta2ConditionTypes,
} from "./contract.ts"
import { type Classified, ownedByCluster } from "./descendants.ts"
import type {
  AvailabilityGate,
  ClusterObserved,
  ClusterPhase,
  ClusterSpec,
  ClusterStatus,
  Condition,
  ContractReference,
  FailureDomain,
  ObservedCluster,
  ReplicaCounters,
} from "./types.ts"

/** What updateStatus needs to know about one reconcile. */
export interface StatusScope {
  readonly cluster: ObservedCluster
  readonly spec: ClusterSpec
  readonly observed: ClusterObserved
  readonly now: number
  /** `now` as RFC 3339, formatted on first use. */
  readonly time: Clock
  readonly config: ClusterControllerConfig
  readonly deleting: boolean
  /** The flags after this reconcile. */
  readonly infrastructureProvisioned: boolean
  readonly controlPlaneInitialized: boolean
  /** Copied from a provisioned InfraCluster in this reconcile; `undefined` keeps the old ones. */
  readonly failureDomains: ReadonlyArray<FailureDomain> | undefined
  /** `undefined` when listing the descendants failed. */
  readonly descendants: Classified | undefined
  readonly descendantsError: string | undefined
  /** The `deletingReason` and `deletingMessage` that reconcileDelete left. */
  readonly deletingReason: string | undefined
  readonly deletingMessage: string | undefined
  /** Whether the reconcile ends without an error (then `observedGeneration` is updated). */
  readonly succeeded: boolean
}

const FAILED_TO_LIST = "Failed to list the Cluster's descendants"

/** The phase after a reconcile (see the module doc). */
export const phaseOf = (s: StatusScope): ClusterPhase => {
  if (s.deleting) return "Deleting"
  const v1 = s.cluster.status?.deprecated?.v1beta1
  if (v1?.failureReason !== undefined || v1?.failureMessage !== undefined) return "Failed"
  if (s.infrastructureProvisioned && s.controlPlaneInitialized) return "Provisioned"
  if (
    s.infrastructureProvisioned ||
    s.spec.infrastructureRef !== undefined ||
    s.spec.controlPlaneRef !== undefined
  )
    return "Provisioning"
  return "Pending"
}

/** The Cluster's status after a reconcile. */
export const updateStatus = (s: StatusScope): ClusterStatus => {
  const old = s.cluster.status
  const generation = s.cluster.metadata.generation
  const previous = old?.conditions
  const decided = decideV1Beta2(s)
  const conditions: Array<Condition> = []
  for (let i = 0; i < V1Beta2ConditionTypes.length; i++) {
    conditions.push(
      v1beta2Condition(
        V1Beta2ConditionTypes[i] as string,
        decided[i] as Decided,
        previous,
        generation,
        s.time,
      ),
    )
  }
  keepForeign(previous, V1Beta2ConditionTypes, conditions)

  const oldV1 = old?.deprecated?.v1beta1
  const v1Conditions = v1beta1Conditions(s, oldV1?.conditions)
  keepForeign(oldV1?.conditions, V1Beta1ConditionTypes, v1Conditions)

  const failureDomains = s.failureDomains ?? old?.failureDomains
  const observedGeneration = s.succeeded ? generation : old?.observedGeneration
  return {
    conditions,
    initialization: {
      infrastructureProvisioned: s.infrastructureProvisioned,
      controlPlaneInitialized: s.controlPlaneInitialized,
    },
    controlPlane: controlPlaneReplicas(s),
    workers: workerReplicas(s),
    ...(failureDomains === undefined ? {} : { failureDomains }),
    phase: phaseOf(s),
    ...(observedGeneration === undefined ? {} : { observedGeneration }),
    deprecated: { v1beta1: { ...oldV1, conditions: v1Conditions } },
  }
}

const keepForeign = (
  previous: ReadonlyArray<Condition> | undefined,
  owned: ReadonlyArray<string>,
  into: Array<Condition>,
): void => {
  if (previous === undefined) return
  for (const c of previous) if (!owned.includes(c.type)) into.push(c)
}

// ---------------------------------------------------------------------------------------------
// Replica counters

const controlPlaneReplicas = (s: StatusScope): ReplicaCounters => {
  if (s.spec.controlPlaneRef !== undefined) {
    const cp = s.observed.controlPlane
    if (cp._tag !== "Found") return {}
    const st = cp.object.status
    return counters(
      cp.object.spec?.replicas,
      st?.replicas,
      st?.readyReplicas,
      st?.availableReplicas,
      st?.upToDateReplicas,
    )
  }
  if (s.descendants === undefined) return s.cluster.status?.controlPlane ?? {}
  const n = s.descendants.controlPlaneMachines.length
  let ready = 0
  let available = 0
  let upToDate = 0
  for (const m of s.descendants.controlPlaneMachines) {
    if (findCondition(m.status?.conditions, "Ready")?.status === "True") ready++
    if (findCondition(m.status?.conditions, "Available")?.status === "True") available++
    if (findCondition(m.status?.conditions, "UpToDate")?.status === "True") upToDate++
  }
  // Stand-alone Machines: each one that exists stands for one desired replica.
  return counters(n, n, ready, available, upToDate)
}

const workerReplicas = (s: StatusScope): ReplicaCounters => {
  const d = s.descendants
  if (d === undefined) return s.cluster.status?.workers ?? {}
  const { name, uid } = s.cluster.metadata
  let desired = 0
  let replicas = 0
  let ready = 0
  let available = 0
  let upToDate = 0
  const addGroup = (g: Classified["machineDeployments"][number]) => {
    desired += g.spec?.replicas ?? 0
    replicas += g.status?.replicas ?? 0
    ready += g.status?.readyReplicas ?? 0
    available += g.status?.availableReplicas ?? 0
    upToDate += g.status?.upToDateReplicas ?? 0
  }
  for (const g of d.machineDeployments) addGroup(g)
  for (const g of d.machinePools) addGroup(g)
  for (const g of d.machineSets) if (ownedByCluster(g.metadata, name, uid)) addGroup(g)
  for (const m of d.workerMachines) {
    if (!ownedByCluster(m.metadata, name, uid)) continue
    desired++
    replicas++
    if (findCondition(m.status?.conditions, "Ready")?.status === "True") ready++
    if (findCondition(m.status?.conditions, "Available")?.status === "True") available++
    if (findCondition(m.status?.conditions, "UpToDate")?.status === "True") upToDate++
  }
  return counters(desired, replicas, ready, available, upToDate)
}

const counters = (
  desiredReplicas: number | undefined,
  replicas: number | undefined,
  readyReplicas: number | undefined,
  availableReplicas: number | undefined,
  upToDateReplicas: number | undefined,
): ReplicaCounters => ({
  ...(desiredReplicas === undefined ? {} : { desiredReplicas }),
  ...(replicas === undefined ? {} : { replicas }),
  ...(readyReplicas === undefined ? {} : { readyReplicas }),
  ...(availableReplicas === undefined ? {} : { availableReplicas }),
  ...(upToDateReplicas === undefined ? {} : { upToDateReplicas }),
})

// ---------------------------------------------------------------------------------------------
// v1beta2 conditions, in the order of V1Beta2ConditionTypes

const decideV1Beta2 = (s: StatusScope): ReadonlyArray<Decided> => {
  const infrastructureReady = infrastructureReadyCondition(s)
  const controlPlaneAvailable = controlPlaneAvailableCondition(s)
  const workersAvailable = workersAvailableCondition(s)
  const remoteConnectionProbe = remoteConnectionProbeCondition(s)
  const deleting = deletingCondition(s)
  return [
    infrastructureReady,
    controlPlaneAvailable,
    controlPlaneInitializedCondition(s),
    machinesCondition(s, "controlPlane", "Ready"),
    machinesCondition(s, "controlPlane", "UpToDate"),
    workersAvailable,
    machinesCondition(s, "workers", "Ready"),
    machinesCondition(s, "workers", "UpToDate"),
    remoteConnectionProbe,
    inProgressCondition(s, "RollingOut"),
    inProgressCondition(s, "ScalingUp"),
    inProgressCondition(s, "ScalingDown"),
    remediatingCondition(s),
    deleting,
    availableCondition(s, [
      ["RemoteConnectionProbe", remoteConnectionProbe],
      ["InfrastructureReady", infrastructureReady],
      ["ControlPlaneAvailable", controlPlaneAvailable],
      ["WorkersAvailable", workersAvailable],
    ]),
    pausedCondition(s.spec, s.cluster),
  ]
}

/** The `Paused` condition (EnsurePausedCondition). */
export const pausedCondition = (spec: ClusterSpec, cluster: ObservedCluster): Decided => {
  if (spec.paused === true)
    return { status: "True", reason: "Paused", message: "spec.paused is true; set it to false to resume" }
  if (cluster.metadata.annotations?.[PausedAnnotation] !== undefined)
    return {
      status: "True",
      reason: "Paused",
      message: `The ${PausedAnnotation} annotation is set; remove it to resume`,
    }
  return { status: "False", reason: "NotPaused" }
}

/** Whether the Cluster is paused, by `spec.paused` or the annotation. */
export const isPaused = (spec: ClusterSpec, cluster: ObservedCluster): boolean =>
  spec.paused === true || cluster.metadata.annotations?.[PausedAnnotation] !== undefined

const infrastructureReadyCondition = (s: StatusScope): Decided => {
  const ref = s.spec.infrastructureRef
  if (ref === undefined)
    return {
      status: "True",
      reason: "Ready",
      message: "spec.infrastructureRef is not set: there is no infrastructure to wait for",
    }
  const infra = s.observed.infrastructure
  const what = describeRef(ref)
  switch (infra._tag) {
    case "GetFailed":
      return { status: "Unknown", reason: "InternalError", message: `Failed to read ${what}: ${infra.error}` }
    case "NotFound":
      return missing(what, s.infrastructureProvisioned, s.deleting, "provisioned", "spec.infrastructureRef")
    case "Found": {
      const ready = findCondition(infra.object.status?.conditions, "Ready")
      if (ready !== undefined) return mirror(ready, "Ready", "NotReady")
      return isProvisioned(infra.object)
        ? { status: "True", reason: "Ready", message: `${what} is provisioned` }
        : {
            status: "False",
            reason: "NotReady",
            message: `Waiting for ${what} to report status.initialization.provisioned`,
          }
    }
  }
}

const controlPlaneAvailableCondition = (s: StatusScope): Decided => {
  const ref = s.spec.controlPlaneRef
  if (ref === undefined) {
    const d = s.descendants
    if (d === undefined)
      return {
        status: "Unknown",
        reason: "InternalError",
        message: `${FAILED_TO_LIST}: ${s.descendantsError}`,
      }
    if (d.controlPlaneMachines.length === 0)
      return {
        status: "False",
        reason: "DoesNotExist",
        message: "spec.controlPlaneRef is not set and no control plane Machine exists",
      }
    for (const m of d.controlPlaneMachines)
      if (findCondition(m.status?.conditions, "Available")?.status === "True")
        return { status: "True", reason: "Available" }
    return {
      status: "False",
      reason: "NotAvailable",
      message: `No control plane Machine is Available yet (${listNames(
        d.controlPlaneMachines.map((m) => m.metadata.name),
        s.config.maxNamesInMessage,
      )})`,
    }
  }
  const cp = s.observed.controlPlane
  const what = describeRef(ref)
  switch (cp._tag) {
    case "GetFailed":
      return { status: "Unknown", reason: "InternalError", message: `Failed to read ${what}: ${cp.error}` }
    case "NotFound":
      return missing(what, s.controlPlaneInitialized, s.deleting, "initialized", "spec.controlPlaneRef")
    case "Found": {
      const available = findCondition(cp.object.status?.conditions, "Available")
      if (available !== undefined) return mirror(available, "Available", "NotAvailable")
      return isInitialized(cp.object)
        ? { status: "True", reason: "Available", message: `${what} is initialized` }
        : { status: "False", reason: "NotAvailable", message: `Waiting for ${what} to report Available` }
    }
  }
}

const controlPlaneInitializedCondition = (s: StatusScope): Decided => {
  if (s.controlPlaneInitialized) return { status: "True", reason: "Initialized" }
  const ref = s.spec.controlPlaneRef
  if (ref === undefined) {
    if (s.descendants === undefined)
      return {
        status: "Unknown",
        reason: "InternalError",
        message: `${FAILED_TO_LIST}: ${s.descendantsError}`,
      }
    return {
      status: "False",
      reason: "NotInitialized",
      message: "Waiting for the first control plane Machine to have status.nodeRef set",
    }
  }
  const cp = s.observed.controlPlane
  const what = describeRef(ref)
  switch (cp._tag) {
    case "GetFailed":
      return { status: "Unknown", reason: "InternalError", message: `Failed to read ${what}: ${cp.error}` }
    case "NotFound":
      return { status: "False", reason: "DoesNotExist", message: `${what} does not exist` }
    case "Found":
      return {
        status: "False",
        reason: "NotInitialized",
        message: `Waiting for ${what} to report status.initialization.controlPlaneInitialized`,
      }
  }
}

const machinesCondition = (s: StatusScope, which: "controlPlane" | "workers", type: "Ready" | "UpToDate") => {
  const d = s.descendants
  if (d === undefined)
    return {
      status: "Unknown",
      reason: "InternalError",
      message: `${FAILED_TO_LIST}: ${s.descendantsError}`,
    } as const
  const machines = which === "controlPlane" ? d.controlPlaneMachines : d.workerMachines
  const label = which === "controlPlane" ? "Control plane Machine" : "Worker Machine"
  const what = machines.length === 1 ? label : `${label}s`
  return aggregate(
    machines,
    type,
    what,
    type === "Ready"
      ? { isTrue: "Ready", isFalse: "NotReady", isUnknown: "ReadyUnknown", none: "NoReplicas" }
      : { isTrue: "UpToDate", isFalse: "NotUpToDate", isUnknown: "UpToDateUnknown", none: "NoReplicas" },
    s.config.maxNamesInMessage,
  )
}

const workersAvailableCondition = (s: StatusScope): Decided => {
  const d = s.descendants
  if (d === undefined)
    return { status: "Unknown", reason: "InternalError", message: `${FAILED_TO_LIST}: ${s.descendantsError}` }
  const groups =
    d.machinePools.length === 0 ? d.machineDeployments : [...d.machineDeployments, ...d.machinePools]
  return aggregate(
    groups,
    "Available",
    groups.length === 1 ? "MachineDeployment or MachinePool" : "MachineDeployments or MachinePools",
    { isTrue: "Available", isFalse: "NotAvailable", isUnknown: "AvailableUnknown", none: "NoWorkers" },
    s.config.maxNamesInMessage,
  )
}

const remoteConnectionProbeCondition = (s: StatusScope): Decided => {
  const last = s.observed.remoteConnection.lastProbeSuccessTime
  if (last !== undefined && s.now - last <= s.config.remoteConnectionGracePeriod)
    return { status: "True", reason: "ProbeSucceeded" }
  return {
    status: "False",
    reason: "ProbeFailed",
    message:
      last === undefined
        ? "Remote connection probe failed: the workload cluster's API server has not been reached yet"
        : `Remote connection probe failed, probe last succeeded at ${new Date(last).toISOString().slice(0, 19)}Z`,
  }
}

const inProgressCondition = (s: StatusScope, type: "RollingOut" | "ScalingUp" | "ScalingDown"): Decided => {
  const reasons = { isTrue: type, isFalse: `Not${type}` }
  const ref = s.spec.controlPlaneRef
  const cp = s.observed.controlPlane
  if (ref !== undefined && cp._tag === "GetFailed")
    return {
      status: "Unknown",
      reason: "InternalError",
      message: `Failed to read ${describeRef(ref)}: ${cp.error}`,
    }
  const d = s.descendants
  if (d === undefined)
    return { status: "Unknown", reason: "InternalError", message: `${FAILED_TO_LIST}: ${s.descendantsError}` }
  const sources: Array<InProgressSource> = []
  if (ref !== undefined && cp._tag === "Found")
    sources.push({ kind: ref.kind, name: ref.name, conditions: cp.object.status?.conditions })
  for (const g of d.machineDeployments)
    sources.push({ kind: "MachineDeployment", name: g.metadata.name, conditions: g.status?.conditions })
  for (const g of d.machinePools)
    sources.push({ kind: "MachinePool", name: g.metadata.name, conditions: g.status?.conditions })
  if (type !== "RollingOut") {
    const { name, uid } = s.cluster.metadata
    for (const g of d.machineSets)
      if (ownedByCluster(g.metadata, name, uid))
        sources.push({ kind: "MachineSet", name: g.metadata.name, conditions: g.status?.conditions })
  }
  return anyInProgress(sources, type, reasons, s.config.maxNamesInMessage)
}

const remediatingCondition = (s: StatusScope): Decided => {
  const d = s.descendants
  if (d === undefined)
    return { status: "Unknown", reason: "InternalError", message: `${FAILED_TO_LIST}: ${s.descendantsError}` }
  const names: Array<string> = []
  for (const list of [d.controlPlaneMachines, d.workerMachines])
    for (const m of list)
      if (findCondition(m.status?.conditions, "OwnerRemediated")?.status === "False")
        names.push(m.metadata.name)
  if (names.length === 0) return { status: "False", reason: "NotRemediating" }
  return {
    status: "True",
    reason: "Remediating",
    message: `${names.length === 1 ? "Machine" : "Machines"} ${listNames(names, s.config.maxNamesInMessage)} ${
      names.length === 1 ? "is" : "are"
    } being remediated`,
  }
}

const deletingCondition = (s: StatusScope): Decided =>
  s.deleting
    ? {
        status: "True",
        reason: s.deletingReason ?? "Deleting",
        message: s.deletingMessage ?? "Deletion is in progress",
      }
    : { status: "False", reason: "NotDeleting" }

const availableCondition = (s: StatusScope, parts: ReadonlyArray<readonly [string, Decided]>): Decided => {
  if (s.deleting) return { status: "False", reason: "NotAvailable", message: "Cluster is being deleted" }
  const issues: Array<string> = []
  const unknown: Array<string> = []
  for (const [type, d] of parts) {
    if (d.status === "False") issues.push(`* ${type}: ${d.message ?? d.reason}`)
    else if (d.status === "Unknown") unknown.push(`* ${type}: ${d.message ?? d.reason}`)
  }
  for (const gate of availabilityGates(s)) {
    const c = findCondition(s.cluster.status?.conditions, gate.conditionType)
    const negative = gate.polarity === "Negative"
    if (c === undefined || c.status === "Unknown") {
      unknown.push(
        `* ${gate.conditionType}: ${c === undefined ? "Condition not yet reported" : (c.message ?? c.reason ?? "Unknown")}`,
      )
    } else if ((c.status === "True") === negative) {
      issues.push(`* ${gate.conditionType}: ${c.message ?? c.reason ?? c.status}`)
    }
  }
  if (issues.length > 0) return { status: "False", reason: "NotAvailable", message: issues.join("\n") }
  if (unknown.length > 0)
    return { status: "Unknown", reason: "AvailableUnknown", message: unknown.join("\n") }
  return { status: "True", reason: "Available" }
}

/** The Cluster's availability gates, then the ClusterClass's that the Cluster does not repeat. */
const availabilityGates = (s: StatusScope): ReadonlyArray<AvailabilityGate> => {
  const own = s.spec.availabilityGates ?? []
  const cc =
    s.spec.topology !== undefined && s.observed.clusterClass._tag === "Found"
      ? (s.observed.clusterClass.object.spec?.availabilityGates ?? [])
      : []
  if (cc.length === 0) return own
  const merged = [...own]
  for (const g of cc) if (!merged.some((o) => o.conditionType === g.conditionType)) merged.push(g)
  return merged
}

/** A provider's condition mirrored: its status, reason and message. */
const mirror = (c: Condition, trueReason: string, falseReason: string): Decided => ({
  status: c.status,
  reason:
    c.reason !== undefined && c.reason !== "" ? c.reason : c.status === "True" ? trueReason : falseReason,
  message: c.message,
})

/** An external object that is not there. */
const missing = (
  what: string,
  wasReady: boolean,
  deleting: boolean,
  readyWord: "provisioned" | "initialized",
  field: string,
): Decided => {
  if (wasReady)
    return {
      status: "False",
      reason: "Deleted",
      message: deleting
        ? `${what} has been deleted`
        : `${what} has been deleted after being ${readyWord}; recreate it or delete the Cluster`,
    }
  return {
    status: "False",
    reason: "DoesNotExist",
    message: deleting
      ? `${what} does not exist`
      : `${what} does not exist yet; create it or correct ${field}`,
  }
}

// ---------------------------------------------------------------------------------------------
// v1beta1 conditions (deprecated), in the order of V1Beta1ConditionTypes

const v1beta1Conditions = (
  s: StatusScope,
  previous: ReadonlyArray<Condition> | undefined,
): Array<Condition> => {
  const infrastructureReady = v1InfrastructureReady(s)
  const cpRef = s.spec.controlPlaneRef
  const controlPlaneReady = cpRef === undefined ? undefined : v1ControlPlaneReady(s, cpRef)
  const out: Array<Condition> = [
    v1beta1Condition("Ready", v1Ready(s, controlPlaneReady, infrastructureReady), previous, s.time),
  ]
  if (controlPlaneReady !== undefined)
    out.push(v1beta1Condition("ControlPlaneReady", controlPlaneReady, previous, s.time))
  out.push(v1beta1Condition("InfrastructureReady", infrastructureReady, previous, s.time))
  out.push(v1beta1Condition("ControlPlaneInitialized", v1ControlPlaneInitialized(s), previous, s.time))
  return out
}

const v1Ready = (s: StatusScope, controlPlane: Decided | undefined, infrastructure: Decided): Decided => {
  if (s.deleting)
    return { status: "False", reason: "Deleting", severity: "Info", message: "Cluster is being deleted" }
  for (const d of controlPlane === undefined ? [infrastructure] : [controlPlane, infrastructure])
    if (d.status !== "True") return d
  return { status: "True", reason: "Ready" }
}

const v1InfrastructureReady = (s: StatusScope): Decided => {
  const ref = s.spec.infrastructureRef
  if (ref === undefined) return { status: "True", reason: "NoInfrastructure" }
  const f = s.observed.infrastructure
  const seen: Seen =
    f._tag === "Found"
      ? { _tag: "Found", conditions: f.object.status?.conditions, ready: isProvisioned(f.object) }
      : f
  return v1Mirror(seen, ref, "WaitingForInfrastructure", s.infrastructureProvisioned, s.deleting)
}

const v1ControlPlaneReady = (s: StatusScope, ref: ContractReference): Decided => {
  const f = s.observed.controlPlane
  const seen: Seen =
    f._tag === "Found"
      ? {
          _tag: "Found",
          conditions: f.object.status?.conditions,
          ready: f.object.status?.ready ?? isInitialized(f.object),
        }
      : f
  return v1Mirror(seen, ref, "WaitingForControlPlane", s.controlPlaneInitialized, s.deleting)
}

/** What a v1beta1 mirror needs of a fetched provider object. */
type Seen =
  | {
      readonly _tag: "Found"
      readonly conditions: ReadonlyArray<Condition> | undefined
      readonly ready: boolean
    }
  | { readonly _tag: "NotFound" }
  | { readonly _tag: "GetFailed"; readonly error: string }

/** The v1beta1 mirror of a provider's `Ready` condition, with the contract's flag as fallback. */
const v1Mirror = (
  seen: Seen,
  ref: ContractReference,
  waitingReason: string,
  wasReady: boolean,
  deleting: boolean,
): Decided => {
  const what = describeRef(ref)
  switch (seen._tag) {
    case "GetFailed":
      return { status: "Unknown", reason: "InternalError", message: `Failed to read ${what}: ${seen.error}` }
    case "NotFound":
      if (deleting) return { status: "False", reason: "Deleted", severity: "Info" }
      return wasReady
        ? { status: "False", reason: "Deleted", severity: "Error", message: `${what} has been deleted` }
        : { status: "False", reason: waitingReason, severity: "Info", message: `${what} does not exist yet` }
    case "Found": {
      const c = findCondition(seen.conditions, "Ready")
      if (c !== undefined)
        return {
          status: c.status,
          reason:
            c.reason !== undefined && c.reason !== ""
              ? c.reason
              : c.status === "True"
                ? "Ready"
                : waitingReason,
          message: c.message,
          severity: c.severity === "Error" || c.severity === "Warning" ? c.severity : "Info",
        }
      if (seen.ready) return { status: "True", reason: "Ready" }
      return deleting
        ? { status: "False", reason: "Deleting", severity: "Info", message: `${what} is being deleted` }
        : {
            status: "False",
            reason: waitingReason,
            severity: "Info",
            message: `Waiting for ${what} to be ready`,
          }
    }
  }
}

const v1ControlPlaneInitialized = (s: StatusScope): Decided => {
  if (s.controlPlaneInitialized) return { status: "True", reason: "Initialized" }
  return s.spec.controlPlaneRef === undefined
    ? {
        status: "False",
        reason: "MissingNodeRef",
        severity: "Info",
        message: "Waiting for the first control plane Machine to have its status.nodeRef set",
      }
    : {
        status: "False",
        reason: "WaitingForControlPlaneProviderInitialized",
        severity: "Info",
        message: `Waiting for ${describeRef(s.spec.controlPlaneRef)} to be initialized`,
      }
}
