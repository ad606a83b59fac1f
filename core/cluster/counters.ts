/**
 * `status.controlPlane` and `status.workers`, as Cluster API v1.14.2's setControlPlaneReplicas
 * and setWorkersReplicas.
 *
 * Control plane, with a controlPlaneRef or a topology: none while the control-plane object was
 * not read; else each counter the object publishes replaces the Cluster's, and a counter it
 * does not publish keeps its value (`availableReplicas` from the v1beta1 contract's
 * `spec.replicas - unavailableReplicas`, at least 0; `upToDateReplicas` from its
 * `updatedReplicas`). `versions`: the object's `status.versions` when it reads and checks
 * (`readControlPlaneVersions`), none when it has none, the previous ones when it does not read.
 * Without a controlPlaneRef: the control-plane Machines counted (a counter unset while nothing
 * counts towards it), kept as they were when the Machines could not be listed.
 *
 * Workers: the sums of what MachineDeployments, MachinePools, the Cluster's own MachineSets and
 * Machines (not a MachinePool's) publish, each unset until something adds to it; `versions` the
 * groups' `status.versions` and the Machines' versions summed per version and sorted; kept as
 * they were when the descendants could not be listed.
 *
 * @module
 */
import { findCondition } from "./conditions.ts"
import { type Classified, isMachinePoolMachine, ownedByCluster } from "./descendants.ts"
import { readControlPlaneVersions } from "./readVersions.ts"
import type { ControlPlane, Machine, ReplicaCounters, StatusVersion } from "./types.ts"
import { aggregateVersions, versionsFromMachines } from "./versions.ts"

/** What the counters are computed from. */
export interface CountersInput {
  readonly hasControlPlaneRef: boolean
  readonly topology: boolean
  /** The control-plane object, when it was read. */
  readonly controlPlane: ControlPlane | undefined
  readonly descendants: Classified | undefined
  readonly previous:
    | { readonly controlPlane?: ReplicaCounters; readonly workers?: ReplicaCounters }
    | undefined
  readonly cluster: { readonly name: string; readonly uid?: string | undefined }
}

/**
 * The worker Machines the status reads: a MachinePool's Machines are left out of the worker
 * counters and the Machine-based conditions, as upstream v1.14.2 leaves them out.
 */
export const statusWorkerMachines = (d: Classified): ReadonlyArray<Machine> =>
  d.workerMachines.filter((m) => !isMachinePoolMachine(m))

/** `status.controlPlane` after a reconcile; `undefined`: nothing to say. */
export const controlPlaneReplicas = (c: CountersInput): ReplicaCounters | undefined => {
  const old = c.previous?.controlPlane
  if (c.hasControlPlaneRef || c.topology) {
    const cp = c.controlPlane
    if (cp === undefined) return undefined
    const st = cp.status
    const desired = cp.spec?.replicas ?? old?.desiredReplicas
    const available =
      st?.availableReplicas ??
      (st?.unavailableReplicas !== undefined && desired !== undefined
        ? Math.max(0, desired - st.unavailableReplicas)
        : old?.availableReplicas)
    const read = readControlPlaneVersions(cp)
    const versions =
      read._tag === "Read" ? read.versions : read._tag === "Missing" ? undefined : old?.versions
    return counters(
      desired,
      st?.replicas ?? old?.replicas,
      st?.readyReplicas ?? old?.readyReplicas,
      available,
      st?.upToDateReplicas ?? st?.updatedReplicas ?? old?.upToDateReplicas,
      versions,
    )
  }
  if (c.descendants === undefined) return old
  const machines = c.descendants.controlPlaneMachines
  const n = nz(machines.length)
  // Stand-alone Machines: each one that exists stands for one desired replica.
  return counters(
    n,
    n,
    nz(countTrue(machines, "Ready")),
    nz(countTrue(machines, "Available")),
    nz(countTrue(machines, "UpToDate")),
    versionsFromMachines(machines),
  )
}

const countTrue = (machines: ReadonlyArray<Machine>, type: string): number =>
  machines.filter((m) => findCondition(m.status?.conditions, type)?.status === "True").length

/** A count, or unset when nothing counted towards it (upstream's nil pointers). */
const nz = (n: number): number | undefined => (n === 0 ? undefined : n)

/** Adds a published counter to a sum that stays unset until something is added. */
const plus = (sum: number | undefined, n: number | undefined): number | undefined =>
  n === undefined ? sum : (sum ?? 0) + n

/** `status.workers` after a reconcile; `undefined`: nothing to say. */
export const workerReplicas = (c: CountersInput): ReplicaCounters | undefined => {
  const d = c.descendants
  if (d === undefined) return c.previous?.workers
  const { name, uid } = c.cluster
  const sum = {
    desired: undefined,
    replicas: undefined,
    ready: undefined,
    available: undefined,
    upToDate: undefined,
  } as Record<"desired" | "replicas" | "ready" | "available" | "upToDate", number | undefined>
  const versions: Array<StatusVersion> = []
  const addGroup = (g: Classified["machineDeployments"][number]) => {
    versions.push(...(g.status?.versions ?? []))
    sum.desired = plus(sum.desired, g.spec?.replicas)
    sum.replicas = plus(sum.replicas, g.status?.replicas)
    sum.ready = plus(sum.ready, g.status?.readyReplicas)
    sum.available = plus(sum.available, g.status?.availableReplicas)
    sum.upToDate = plus(sum.upToDate, g.status?.upToDateReplicas)
  }
  for (const g of d.machinePools) addGroup(g)
  for (const g of d.machineDeployments) addGroup(g)
  for (const g of d.machineSets) if (ownedByCluster(g.metadata, name, uid)) addGroup(g)
  const standalone = statusWorkerMachines(d).filter((m) => ownedByCluster(m.metadata, name, uid))
  for (const m of standalone) {
    sum.desired = plus(sum.desired, 1)
    sum.replicas = plus(sum.replicas, 1)
    const is = (type: string) => findCondition(m.status?.conditions, type)?.status === "True"
    if (is("Ready")) sum.ready = plus(sum.ready, 1)
    if (is("Available")) sum.available = plus(sum.available, 1)
    if (is("UpToDate")) sum.upToDate = plus(sum.upToDate, 1)
  }
  versions.push(...(versionsFromMachines(standalone) ?? []))
  return counters(
    sum.desired,
    sum.replicas,
    sum.ready,
    sum.available,
    sum.upToDate,
    aggregateVersions(versions),
  )
}

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
