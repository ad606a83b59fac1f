/**
 * The v1beta2 conditions aggregated over the Cluster's descendants, as Cluster API v1.14.2's
 * setWorkersAvailableCondition, setControlPlaneMachinesReadyCondition (and the three other
 * Machine ones), setRollingOutCondition, setScalingUpCondition, setScalingDownCondition and
 * setRemediatingCondition: Unknown `InternalError` when the descendants were not listed; a
 * reason of its own when there is nothing to aggregate; else {@link aggregateCondition}.
 *
 * MachinePools count towards none of these (upstream v1.14.2 passes none), and a MachinePool's
 * Machines are left out of the Machine ones. MachinesUpToDate leaves out a Machine that has no
 * UpToDate condition yet and was created at most 10 s ago, so a new Machine does not flip it.
 *
 * @module
 */
import { aggregateCondition, type Source } from "./aggregate.ts"
import { type Decided, findCondition } from "./conditions.ts"
import { isControlPlaneMachine } from "./contract.ts"
import { statusWorkerMachines } from "./counters.ts"
import { ownedByCluster } from "./descendants.ts"
import { controlPlaneOf, INTERNAL_ERROR, type StatusScope } from "./statusScope.ts"
import type { Machine } from "./types.ts"

/** How long a new Machine without an UpToDate condition is left out of MachinesUpToDate. */
export const UP_TO_DATE_GRACE = 10_000

const machineSource = (m: Machine): Source => ({
  kind: "Machine",
  name: m.metadata.name,
  controlPlaneMachine: isControlPlaneMachine(m),
  conditions: m.status?.conditions,
})

const considered = (s: StatusScope, m: Machine): boolean => {
  if (findCondition(m.status?.conditions, "UpToDate") !== undefined) return true
  const created =
    m.metadata.creationTimestamp === undefined ? Number.NaN : Date.parse(m.metadata.creationTimestamp)
  // A Machine without a readable creation time is as old as can be.
  return Number.isNaN(created) || s.now - created > UP_TO_DATE_GRACE
}

export const machinesCondition = (
  s: StatusScope,
  which: "controlPlane" | "workers",
  type: "Ready" | "UpToDate",
): Decided => {
  const d = s.descendants
  if (d === undefined) return INTERNAL_ERROR
  const all = which === "controlPlane" ? d.controlPlaneMachines : statusWorkerMachines(d)
  const machines = type === "UpToDate" ? all.filter((m) => considered(s, m)) : all
  if (machines.length === 0) return { status: "True", reason: "NoReplicas", message: "" }
  return aggregateCondition(
    machines.map(machineSource),
    type,
    { issue: `Not${type}`, unknown: `${type}Unknown`, info: type },
    s.config.maxNamesInMessage,
  )
}

export const workersAvailableCondition = (s: StatusScope): Decided => {
  const d = s.descendants
  if (d === undefined) return INTERNAL_ERROR
  if (d.machineDeployments.length === 0) return { status: "True", reason: "NoWorkers", message: "" }
  return aggregateCondition(
    d.machineDeployments.map((g) => ({
      kind: "MachineDeployment",
      name: g.metadata.name,
      conditions: g.status?.conditions,
    })),
    "Available",
    { issue: "NotAvailable", unknown: "AvailableUnknown", info: "Available" },
    s.config.maxNamesInMessage,
  )
}

/**
 * RollingOut, ScalingUp, ScalingDown: the control-plane object when it reports the type, the
 * MachineDeployments, and for scaling the MachineSets the Cluster owns; True when one is.
 */
export const inProgressCondition = (
  s: StatusScope,
  type: "RollingOut" | "ScalingUp" | "ScalingDown",
): Decided => {
  const ref = s.spec.controlPlaneRef
  const cp = controlPlaneOf(s)
  const d = s.descendants
  if ((ref !== undefined && cp._tag === "GetFailed") || d === undefined) return INTERNAL_ERROR
  const sources: Array<Source> = []
  if (
    ref !== undefined &&
    cp._tag === "Found" &&
    findCondition(cp.object.status?.conditions, type) !== undefined
  )
    sources.push({
      kind: cp.object.kind ?? ref.kind,
      name: cp.object.metadata.name,
      conditions: cp.object.status?.conditions,
    })
  for (const g of d.machineDeployments)
    sources.push({ kind: "MachineDeployment", name: g.metadata.name, conditions: g.status?.conditions })
  if (type !== "RollingOut") {
    const { name, uid } = s.cluster.metadata
    for (const g of d.machineSets)
      if (ownedByCluster(g.metadata, name, uid))
        sources.push({ kind: "MachineSet", name: g.metadata.name, conditions: g.status?.conditions })
  }
  if (sources.length === 0) return { status: "False", reason: `Not${type}`, message: "" }
  return aggregateCondition(
    sources,
    type,
    { issue: type, unknown: `${type}Unknown`, info: `Not${type}` },
    s.config.maxNamesInMessage,
    true,
  )
}

const isFalse = (m: Machine, type: string) => findCondition(m.status?.conditions, type)?.status === "False"

/**
 * Remediating: True while a Machine is unhealthy (HealthCheckSucceeded False) and waits for its
 * owner's remediation (OwnerRemediated False), with the aggregate of their OwnerRemediated
 * messages; else False, naming the unhealthy Machines not to be remediated.
 */
export const remediatingCondition = (s: StatusScope): Decided => {
  const d = s.descendants
  if (d === undefined) return INTERNAL_ERROR
  const machines = [...d.controlPlaneMachines, ...statusWorkerMachines(d)]
  const unhealthy = machines.filter((m) => isFalse(m, "HealthCheckSucceeded"))
  const toRemediate = unhealthy.filter((m) => isFalse(m, "OwnerRemediated"))
  if (toRemediate.length > 0) {
    const a = aggregateCondition(
      toRemediate.map(machineSource),
      "OwnerRemediated",
      { issue: "Remediating", unknown: "Remediating", info: "Remediating" },
      s.config.maxNamesInMessage,
    )
    return { status: "True", reason: "Remediating", message: a.message }
  }
  return { status: "False", reason: "NotRemediating", message: unhealthyMessage(unhealthy) }
}

/** `Machines a, b, c, ... (2 more) are not healthy (not to be remediated)`. */
const unhealthyMessage = (machines: ReadonlyArray<Machine>): string => {
  if (machines.length === 0) return ""
  const names = machines.map((m) => m.metadata.name).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
  const shown =
    names.length > 3 ? `${names.slice(0, 3).join(", ")}, ... (${names.length - 3} more)` : names.join(", ")
  return `${names.length === 1 ? "Machine" : "Machines"} ${shown} ${names.length === 1 ? "is" : "are"} not healthy (not to be remediated)`
}
