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
 * Phase (seed 001, Normal Reconciliation rows 5 and 13, read as upstream v1.13's setPhase, issue
 * 10): `Deleting` while deleting; `Provisioned` once the infrastructure is provisioned and
 * `spec.controlPlaneEndpoint` is valid; else `Provisioning`: once the phases run, either an
 * infrastructureRef is set or, without one, the infrastructure counts as provisioned (row 5), so
 * upstream's "previous phase, Pending at first" is never reached here. `Failed` is never
 * derived (a provider's failureReason is copied to `status.deprecated.v1beta1`, not the phase).
 *
 * Every status this module returns validates against upstream's Cluster CRD: v1beta2 conditions
 * always carry a `message`, reasons match its pattern, `failureDomains` is left out when empty,
 * replica counters are left unset when nothing is known of them.
 *
 * @module
 */
import {
  aggregate,
  anyInProgress,
  type Clock,
  ConditionLimits,
  type Decided,
  findCondition,
  type InProgressSource,
  listNames,
  v1beta1Condition,
  v1beta2Condition,
  validReason,
} from "./conditions.ts"
import type { ClusterControllerConfig } from "./config.ts"
import {
  describeRef,
  isInitialized,
  isProvisioned,
  isValidEndpoint,
  PausedAnnotation,
  V1Beta1ConditionTypes,
  V1Beta2ConditionTypes,
} from "./contract.ts"
import { type Classified, isMachinePoolMachine, ownedByCluster } from "./descendants.ts"
import { readControlPlaneVersions } from "./readVersions.ts"
import type {
  APIEndpoint,
  AvailabilityGate,
  ClusterObserved,
  ClusterPhase,
  ClusterSpec,
  ClusterStatus,
  Condition,
  ContractReference,
  FailureDomain,
  Machine,
  ObservedCluster,
  ReplicaCounters,
  StatusVersion,
} from "./types.ts"
import { aggregateVersions, versionsFromMachines } from "./versions.ts"

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
  /** `spec.controlPlaneEndpoint` after the copies of this reconcile. */
  readonly endpoint: APIEndpoint | undefined
  /** The providers' `status.failureReason`/`failureMessage` copied in this reconcile. */
  readonly failure: { readonly reason?: string; readonly message?: string }
}

const FAILED_TO_LIST = "Failed to list the Cluster's descendants"

/**
 * The phase after a reconcile, as upstream's `setPhase` (see the module doc): `Deleting` while
 * deleting, `Provisioned` once the infrastructure is provisioned and `spec.controlPlaneEndpoint`
 * is valid, else `Provisioning` (a ref is set, or no infrastructureRef counts as provisioned:
 * the "previous phase, Pending at first" branch of upstream cannot be reached after the phases;
 * mutation testing found it dead). `Failed` is never set.
 */
export const phaseOf = (s: StatusScope): ClusterPhase => {
  if (s.deleting) return "Deleting"
  if (s.infrastructureProvisioned && isValidEndpoint(s.endpoint)) return "Provisioned"
  return "Provisioning"
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

  // Upstream's CRD: `failureDomains` has at least one item, `observedGeneration` is at least 1.
  const domains = s.failureDomains ?? old?.failureDomains
  const failureDomains = domains === undefined || domains.length === 0 ? undefined : domains
  const observed = s.succeeded ? generation : old?.observedGeneration
  const observedGeneration = (observed ?? 0) >= 1 ? observed : undefined
  const controlPlane = controlPlaneReplicas(s)
  const workers = workerReplicas(s)
  return {
    conditions,
    initialization: {
      infrastructureProvisioned: s.infrastructureProvisioned,
      controlPlaneInitialized: s.controlPlaneInitialized,
    },
    ...(controlPlane === undefined ? {} : { controlPlane }),
    ...(workers === undefined ? {} : { workers }),
    ...(failureDomains === undefined ? {} : { failureDomains }),
    phase: phaseOf(s),
    ...(observedGeneration === undefined ? {} : { observedGeneration }),
    deprecated: {
      v1beta1: {
        ...oldV1,
        ...(s.failure.reason === undefined ? {} : { failureReason: s.failure.reason }),
        ...(s.failure.message === undefined ? {} : { failureMessage: s.failure.message }),
        conditions: v1Conditions,
      },
    },
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

/**
 * `status.controlPlane`, as upstream's setControlPlaneReplicas: with a controlPlaneRef (or a
 * topology) the counters the control-plane object publishes, none while it is not there; without
 * one, counts of the control-plane Machines, a counter left unset while nothing counts towards
 * it; the previous counters when the Machines could not be listed. `undefined`: nothing to say.
 *
 * `versions` (v1.14.2): the control-plane object's `status.versions` when it reads and checks
 * (`readControlPlaneVersions`), none when it has none, the previous ones when it does not read;
 * the control-plane Machines' versions otherwise.
 */
const controlPlaneReplicas = (s: StatusScope): ReplicaCounters | undefined => {
  if (s.spec.controlPlaneRef !== undefined || s.spec.topology !== undefined) {
    const cp = s.observed.controlPlane
    if (s.spec.controlPlaneRef === undefined || cp._tag !== "Found") return undefined
    const st = cp.object.status
    const desired = cp.object.spec?.replicas
    const available =
      st?.availableReplicas ??
      (st?.unavailableReplicas !== undefined && desired !== undefined
        ? Math.max(0, desired - st.unavailableReplicas)
        : undefined)
    const read = readControlPlaneVersions(cp.object)
    const versions =
      read._tag === "Read"
        ? read.versions
        : read._tag === "Missing"
          ? undefined
          : s.cluster.status?.controlPlane?.versions
    return counters(
      desired,
      st?.replicas,
      st?.readyReplicas,
      available,
      st?.upToDateReplicas ?? st?.updatedReplicas,
      versions,
    )
  }
  if (s.descendants === undefined) return s.cluster.status?.controlPlane
  let n = 0
  let ready = 0
  let available = 0
  let upToDate = 0
  for (const m of s.descendants.controlPlaneMachines) {
    n++
    if (findCondition(m.status?.conditions, "Ready")?.status === "True") ready++
    if (findCondition(m.status?.conditions, "Available")?.status === "True") available++
    if (findCondition(m.status?.conditions, "UpToDate")?.status === "True") upToDate++
  }
  // Stand-alone Machines: each one that exists stands for one desired replica.
  return counters(
    nz(n),
    nz(n),
    nz(ready),
    nz(available),
    nz(upToDate),
    versionsFromMachines(s.descendants.controlPlaneMachines),
  )
}

/** A count, or unset when nothing counted towards it (upstream's nil pointers). */
const nz = (n: number): number | undefined => (n === 0 ? undefined : n)

/** Adds a published counter to a sum that stays unset until something is added. */
const plus = (sum: number | undefined, n: number | undefined): number | undefined =>
  n === undefined ? sum : (sum ?? 0) + n

/**
 * `status.workers`, as upstream's setWorkersReplicas: the sums of what MachineDeployments,
 * MachinePools, the Cluster's own MachineSets and Machines (not a MachinePool's) publish, each
 * unset until something adds to it; the previous counters when the descendants could not be
 * listed. `versions` (v1.14.2): the groups' `status.versions` and the Machines' versions, summed
 * per version and sorted (`aggregateVersions`).
 */
const workerReplicas = (s: StatusScope): ReplicaCounters | undefined => {
  const d = s.descendants
  if (d === undefined) return s.cluster.status?.workers
  const { name, uid } = s.cluster.metadata
  let desired: number | undefined
  let replicas: number | undefined
  let ready: number | undefined
  let available: number | undefined
  let upToDate: number | undefined
  const versions: Array<StatusVersion> = []
  const standalone: Array<Machine> = []
  const addGroup = (g: Classified["machineDeployments"][number]) => {
    versions.push(...(g.status?.versions ?? []))
    desired = plus(desired, g.spec?.replicas)
    replicas = plus(replicas, g.status?.replicas)
    ready = plus(ready, g.status?.readyReplicas)
    available = plus(available, g.status?.availableReplicas)
    upToDate = plus(upToDate, g.status?.upToDateReplicas)
  }
  for (const g of d.machinePools) addGroup(g)
  for (const g of d.machineDeployments) addGroup(g)
  for (const g of d.machineSets) if (ownedByCluster(g.metadata, name, uid)) addGroup(g)
  for (const m of statusWorkerMachines(d)) {
    if (!ownedByCluster(m.metadata, name, uid)) continue
    standalone.push(m)
    desired = plus(desired, 1)
    replicas = plus(replicas, 1)
    if (findCondition(m.status?.conditions, "Ready")?.status === "True") ready = plus(ready, 1)
    if (findCondition(m.status?.conditions, "Available")?.status === "True") available = plus(available, 1)
    if (findCondition(m.status?.conditions, "UpToDate")?.status === "True") upToDate = plus(upToDate, 1)
  }
  versions.push(...(versionsFromMachines(standalone) ?? []))
  return counters(desired, replicas, ready, available, upToDate, aggregateVersions(versions))
}

/**
 * The worker Machines updateStatus reads: a MachinePool's Machines are left out of the worker
 * counters and the Machine-based conditions, as upstream v1.14.2 leaves them out.
 */
const statusWorkerMachines = (d: Classified): ReadonlyArray<Machine> =>
  d.workerMachines.filter((m) => !isMachinePoolMachine(m))

const counters = (
  desiredReplicas: number | undefined,
  replicas: number | undefined,
  readyReplicas: number | undefined,
  availableReplicas: number | undefined,
  upToDateReplicas: number | undefined,
  versions?: ReadonlyArray<StatusVersion>,
): ReplicaCounters | undefined =>
  (versions === undefined || versions.length === 0) &&
  desiredReplicas === undefined &&
  replicas === undefined &&
  readyReplicas === undefined &&
  availableReplicas === undefined &&
  upToDateReplicas === undefined
    ? undefined
    : {
        ...(desiredReplicas === undefined ? {} : { desiredReplicas }),
        ...(replicas === undefined ? {} : { replicas }),
        ...(readyReplicas === undefined ? {} : { readyReplicas }),
        ...(availableReplicas === undefined ? {} : { availableReplicas }),
        ...(upToDateReplicas === undefined ? {} : { upToDateReplicas }),
        ...(versions === undefined || versions.length === 0 ? {} : { versions }),
      }

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
    // Stryker disable next-line StringLiteral: every `which` but "controlPlane" is the workers' (equivalent)
    machinesCondition(s, "workers", "Ready"),
    // Stryker disable next-line StringLiteral: as above (equivalent)
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

/**
 * Whether the Cluster is paused, by `spec.paused` or the `cluster.x-k8s.io/paused` annotation:
 * the predicate of Normal Reconciliation row 3 ("Cluster paused | Paused annotation or spec"),
 * upstream's `annotations.IsPaused`. The reconcile stops here when it holds.
 */
export const isPaused = (spec: ClusterSpec, cluster: ObservedCluster): boolean =>
  spec.paused === true || cluster.metadata.annotations?.[PausedAnnotation] !== undefined

/** The `Paused` condition (EnsurePausedCondition): True exactly when {@link isPaused}. */
export const pausedCondition = (spec: ClusterSpec, cluster: ObservedCluster): Decided => {
  if (!isPaused(spec, cluster)) return { status: "False", reason: "NotPaused" }
  return {
    status: "True",
    reason: "Paused",
    message:
      spec.paused === true
        ? "spec.paused is true; set it to false to resume"
        : `The ${PausedAnnotation} annotation is set; remove it to resume`,
  }
}

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
  const machines = which === "controlPlane" ? d.controlPlaneMachines : statusWorkerMachines(d)
  const label = which === "controlPlane" ? "Control plane Machine" : "Worker Machine"
  return aggregate(
    machines,
    type,
    { one: label, many: `${label}s` },
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
  // MachinePools do not count (upstream v1.14.2 passes none: they lack the Available condition).
  return aggregate(
    d.machineDeployments,
    "Available",
    { one: "MachineDeployment", many: "MachineDeployments" },
    { isTrue: "Available", isFalse: "NotAvailable", isUnknown: "AvailableUnknown", none: "NoWorkers" },
    s.config.maxNamesInMessage,
  )
}

/**
 * RemoteConnectionProbe, as upstream's setRemoteConnectionProbeCondition: while the ClusterCache
 * has not yet had a successful probe nor `remoteConnectionFailureThreshold` (5) failed ones (a
 * manager that just started, a Cluster just created) the condition is kept as it is, or set False
 * "not established yet" when there is none; True within the grace period (50 s) of the last
 * successful probe; False after it.
 */
const remoteConnectionProbeCondition = (s: StatusScope): Decided => {
  const { lastProbeSuccessTime: last, consecutiveFailures = 0 } = s.observed.remoteConnection
  if (last === undefined && consecutiveFailures < s.config.remoteConnectionFailureThreshold) {
    const kept = findCondition(s.cluster.status?.conditions, "RemoteConnectionProbe")
    if (kept !== undefined)
      return {
        status: kept.status,
        reason: validReason(kept.reason, kept.status === "True" ? "ProbeSucceeded" : "ProbeFailed", 1_024),
        message: kept.message,
      }
    return { status: "False", reason: "ProbeFailed", message: "Remote connection not established yet" }
  }
  // Stryker disable next-line ConditionalExpression: without a last success the difference is NaN, and NaN <= x is false (equivalent)
  if (last !== undefined && s.now - last <= s.config.remoteConnectionGracePeriod)
    return { status: "True", reason: "ProbeSucceeded" }
  return {
    status: "False",
    reason: "ProbeFailed",
    message:
      last === undefined
        ? "Remote connection probe failed"
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
  // Stryker disable next-line ArrayDeclaration: a junk element has no conditions and reports nothing (equivalent)
  const sources: Array<InProgressSource> = []
  if (ref !== undefined && cp._tag === "Found")
    sources.push({ kind: ref.kind, name: ref.name, conditions: cp.object.status?.conditions })
  for (const g of d.machineDeployments)
    sources.push({ kind: "MachineDeployment", name: g.metadata.name, conditions: g.status?.conditions })
  // MachinePools do not count (upstream v1.14.2 passes none).
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
  for (const list of [d.controlPlaneMachines, statusWorkerMachines(d)])
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
        // Stryker disable next-line StringLiteral: every path of reconcileDelete (and a failed delete) sets a reason and a message, so these fallbacks are never read (equivalent)
        reason: s.deletingReason ?? "Deleting",
        // Stryker disable next-line StringLiteral: as above (equivalent)
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
      // A gate never reported counts as Unknown, worded as upstream's condition summary words it.
      unknown.push(
        `* ${gate.conditionType}: ${c === undefined ? `Condition ${gate.conditionType} not yet reported` : (c.message ?? c.reason ?? "Unknown")}`,
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

/**
 * What gates `Available` besides the four summarized conditions, as upstream's
 * setAvailableCondition: the Cluster's availability gates, or the ClusterClass's when the Cluster
 * has none; and, for a Cluster with a topology, the topology controller's `TopologyReconciled`.
 */
const availabilityGates = (s: StatusScope): ReadonlyArray<AvailabilityGate> => {
  const topology = s.spec.topology !== undefined
  const own = s.spec.availabilityGates
  const gates =
    own !== undefined
      ? own
      : topology && s.observed.clusterClass._tag === "Found"
        ? (s.observed.clusterClass.object.spec?.availabilityGates ?? [])
        : []
  return topology && !gates.some((g) => g.conditionType === "TopologyReconciled")
    ? [...gates, { conditionType: "TopologyReconciled" }]
    : gates
}

/** A provider's condition mirrored: its status, reason and message. */
const mirror = (c: Condition, trueReason: string, falseReason: string): Decided => ({
  status: c.status,
  reason: validReason(
    c.reason,
    c.status === "True" ? trueReason : falseReason,
    ConditionLimits.v1beta2ReasonMax,
  ),
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
            c.reason !== undefined && c.reason !== "" && c.reason.length <= ConditionLimits.v1beta1ReasonMax
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
