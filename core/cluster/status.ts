/**
 * updateStatus (seed 001, "Defer: updateStatus + patchCluster"): the phase, the initialization
 * flags, the replica counters, the failure domains, the sixteen v1beta2 conditions and the
 * deprecated v1beta1 conditions, computed from what one reconcile saw and decided, as Cluster
 * API v1.14.2's updateStatus writes them (reasons, messages and the fields it leaves unset).
 *
 * Guarantees:
 * - the initialization flags only go from unset to true (upstream never writes false), so a
 *   Cluster whose infrastructure was provisioned never goes back to `Pending`;
 * - `Deleting` is True exactly when the phase is `Deleting`;
 * - conditions of other types (set by other controllers) are kept; the list is in upstream's
 *   order (`conditionOrder.ts`).
 *
 * Phase (seed 001, Normal Reconciliation rows 5 and 13): `Deleting` while deleting;
 * `Provisioned` once the infrastructure is provisioned and `spec.controlPlaneEndpoint` is valid;
 * else `Provisioning` once the phases ran (either an infrastructureRef is set or, without one,
 * the infrastructure counts as provisioned, row 5) or a ref is set; else, while waiting for the
 * topology controller, the previous phase, `Pending` at first. `Failed` is never derived (a
 * provider's failureReason is copied to `status.deprecated.v1beta1`, not the phase).
 *
 * Every status this module returns validates against upstream's Cluster CRD: v1beta2 conditions
 * always carry a `message`, reasons match its pattern, `failureDomains` is left out when empty,
 * replica counters are left unset when nothing is known of them.
 *
 * @module
 */
import { availableCondition } from "./available.ts"
import { sortConditions } from "./conditionOrder.ts"
import { type Decided, findCondition, v1beta2Condition, validReason } from "./conditions.ts"
import {
  isInitialized,
  isProvisioned,
  isValidEndpoint,
  PausedAnnotation,
  V1Beta2ConditionTypes,
} from "./contract.ts"
import { controlPlaneReplicas, workerReplicas } from "./counters.ts"
import {
  inProgressCondition,
  machinesCondition,
  remediatingCondition,
  workersAvailableCondition,
} from "./descendantConditions.ts"
import {
  controlPlaneAvailableCondition,
  controlPlaneInitializedCondition,
  infrastructureReadyCondition,
} from "./providerConditions.ts"
import { controlPlaneOf, infrastructureOf, type StatusScope } from "./statusScope.ts"
import type {
  AvailabilityGate,
  ClusterPhase,
  ClusterSpec,
  ClusterStatus,
  Condition,
  ObservedCluster,
} from "./types.ts"
import { v1beta1Conditions } from "./v1beta1.ts"

export type { StatusScope } from "./statusScope.ts"

/** The phase after a reconcile, as upstream's `setPhase` (see the module doc). */
export const phaseOf = (s: StatusScope): ClusterPhase => {
  if (s.deleting) return "Deleting"
  if (s.infrastructureProvisioned && isValidEndpoint(s.endpoint)) return "Provisioned"
  if (s.phases || s.spec.infrastructureRef !== undefined || s.spec.controlPlaneRef !== undefined)
    return "Provisioning"
  const old = s.cluster.status?.phase
  return old === undefined || (old as string) === "" ? "Pending" : old
}

/** The Cluster's status after a reconcile. */
export const updateStatus = (s: StatusScope): ClusterStatus => {
  const old = s.cluster.status
  const generation = s.cluster.metadata.generation
  const previous = old?.conditions
  const owned = v1beta2Conditions(s)
  keepForeign(previous, V1Beta2ConditionTypes, owned)
  const conditions = sortConditions(owned)

  const oldV1 = old?.deprecated?.v1beta1
  const infra = infrastructureOf(s)
  const cp = controlPlaneOf(s)
  const v1Conditions = v1beta1Conditions({
    previous: oldV1?.conditions,
    phases: s.phases,
    deleting: s.deleting,
    infrastructureRef: s.spec.infrastructureRef,
    infrastructure: infra,
    provisioned: infra._tag === "Found" && isProvisioned(infra.object),
    controlPlaneRef: s.spec.controlPlaneRef,
    controlPlane: cp,
    initialized: cp._tag === "Found" && isInitialized(cp.object),
    controlPlaneGone: s.controlPlaneGone,
    infrastructureGone: s.infrastructureGone,
    descendants: s.descendants,
    time: s.time,
  })

  // Upstream's CRD: `failureDomains` has at least one item, `observedGeneration` is at least 1.
  const domains = s.failureDomains ?? old?.failureDomains
  const failureDomains = domains === undefined || domains.length === 0 ? undefined : domains
  const observed = s.succeeded ? generation : old?.observedGeneration
  const observedGeneration = (observed ?? 0) >= 1 ? observed : undefined
  const counters = {
    hasControlPlaneRef: s.spec.controlPlaneRef !== undefined,
    topology: s.spec.topology !== undefined,
    controlPlane: s.spec.controlPlaneRef !== undefined && cp._tag === "Found" ? cp.object : undefined,
    descendants: s.descendants,
    previous: old,
    cluster: s.cluster.metadata,
  }
  const controlPlane = controlPlaneReplicas(counters)
  const workers = workerReplicas(counters)
  // Left out while empty, as upstream leaves `status.deprecated` unset.
  const { conditions: _, ...oldRest } = oldV1 ?? {}
  const v1beta1 = {
    ...oldRest,
    ...(s.failure.reason === undefined ? {} : { failureReason: s.failure.reason }),
    ...(s.failure.message === undefined ? {} : { failureMessage: s.failure.message }),
    ...(v1Conditions.length === 0 ? {} : { conditions: v1Conditions }),
  }
  // Upstream only ever sets a flag to true: one not (yet) true is left out.
  const initialization = {
    ...(s.infrastructureProvisioned ? { infrastructureProvisioned: true } : {}),
    ...(s.controlPlaneInitialized ? { controlPlaneInitialized: true } : {}),
  }
  return {
    conditions,
    ...(Object.keys(initialization).length === 0 ? {} : { initialization }),
    ...(controlPlane === undefined ? {} : { controlPlane }),
    ...(workers === undefined ? {} : { workers }),
    ...(failureDomains === undefined ? {} : { failureDomains }),
    phase: phaseOf(s),
    ...(observedGeneration === undefined ? {} : { observedGeneration }),
    ...(Object.keys(v1beta1).length === 0 ? {} : { deprecated: { v1beta1 } }),
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
// v1beta2 conditions, in the order of V1Beta2ConditionTypes

const v1beta2Conditions = (s: StatusScope): Array<Condition> => {
  const previous = s.cluster.status?.conditions
  const generation = s.cluster.metadata.generation
  const set = (type: string, d: Decided) => v1beta2Condition(type, d, previous, generation, s.time)
  const decided: Record<string, Decided> = {
    InfrastructureReady: infrastructureReadyCondition(s),
    ControlPlaneAvailable: controlPlaneAvailableCondition(s),
    ControlPlaneInitialized: controlPlaneInitializedCondition(s),
    ControlPlaneMachinesReady: machinesCondition(s, "controlPlane", "Ready"),
    ControlPlaneMachinesUpToDate: machinesCondition(s, "controlPlane", "UpToDate"),
    WorkersAvailable: workersAvailableCondition(s),
    // Stryker disable next-line StringLiteral
    WorkerMachinesReady: machinesCondition(s, "workers", "Ready"),
    // Stryker disable next-line StringLiteral
    WorkerMachinesUpToDate: machinesCondition(s, "workers", "UpToDate"),
    RemoteConnectionProbe: remoteConnectionProbeCondition(s),
    RollingOut: inProgressCondition(s, "RollingOut"),
    ScalingUp: inProgressCondition(s, "ScalingUp"),
    ScalingDown: inProgressCondition(s, "ScalingDown"),
    Remediating: remediatingCondition(s),
    Deleting: deletingCondition(s),
    Paused: pausedCondition(s.spec, s.cluster),
  }
  const written = new Map<string, Condition>()
  for (const [type, d] of Object.entries(decided)) written.set(type, set(type, d))
  // Available summarizes the conditions above and the other controllers' ones.
  const others = (previous ?? []).filter((c) => !written.has(c.type) && c.type !== "Available")
  written.set(
    "Available",
    set(
      "Available",
      availableCondition({
        conditions: [...written.values(), ...others],
        deleting: s.deleting,
        topology: s.spec.topology !== undefined,
        gates: availabilityGates(s),
      }),
    ),
  )
  return V1Beta2ConditionTypes.map((t) => written.get(t) as Condition)
}

/**
 * Whether the Cluster is paused, by `spec.paused` or the `cluster.x-k8s.io/paused` annotation:
 * the predicate of Normal Reconciliation row 3 ("Cluster paused | Paused annotation or spec"),
 * upstream's `annotations.IsPaused`. The reconcile stops here when it holds.
 */
export const isPaused = (spec: ClusterSpec, cluster: ObservedCluster): boolean =>
  spec.paused === true || cluster.metadata.annotations?.[PausedAnnotation] !== undefined

/**
 * The `Paused` condition (EnsurePausedCondition): True exactly when {@link isPaused}, its
 * message naming each cause as upstream's util/paused does.
 */
export const pausedCondition = (spec: ClusterSpec, cluster: ObservedCluster): Decided => {
  if (!isPaused(spec, cluster)) return { status: "False", reason: "NotPaused", message: "" }
  const causes: Array<string> = []
  if (spec.paused === true) causes.push("Cluster spec.paused is set to true")
  if (cluster.metadata.annotations?.[PausedAnnotation] !== undefined)
    causes.push(`Cluster has the ${PausedAnnotation} annotation`)
  return { status: "True", reason: "Paused", message: causes.join(", ") }
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
  // Stryker disable next-line ConditionalExpression
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

const deletingCondition = (s: StatusScope): Decided =>
  s.deleting
    ? {
        status: "True",
        // Stryker disable next-line StringLiteral
        reason: s.deletingReason ?? "Deleting",
        // Stryker disable next-line StringLiteral
        message: s.deletingMessage ?? "",
      }
    : { status: "False", reason: "NotDeleting", message: "" }

/**
 * The availability gates of `Available`, as upstream's setAvailableCondition: the Cluster's, or
 * the ClusterClass's when the Cluster has none.
 */
const availabilityGates = (s: StatusScope): ReadonlyArray<AvailabilityGate> => {
  const own = s.spec.availabilityGates
  if (own !== undefined) return own
  const cc = s.observed.clusterClass
  return s.spec.topology !== undefined && cc._tag === "Found" ? (cc.object.spec?.availabilityGates ?? []) : []
}
