/**
 * What `getDescendants` listed, sorted the way the controller needs it: control-plane and worker
 * Machines apart, the descendants whose deletion the Cluster waits for, and the ones it owns and
 * deletes itself (`filterOwnedDescendants`).
 *
 * @module
 */
import type { ObjectRef } from "./actions.ts"
import {
  ClusterApiGroup,
  groupOf,
  isControlPlaneMachine,
  isDeleting,
  MachinePoolNameLabel,
  refersToCluster,
} from "./contract.ts"
import type { Descendants, FeatureGates, Machine, MachineGroup, ObjectMeta } from "./types.ts"

/** The listed descendants, split. MachinePools are empty unless the MachinePool gate is on. */
export interface Classified {
  readonly machineDeployments: ReadonlyArray<MachineGroup>
  readonly machineSets: ReadonlyArray<MachineGroup>
  readonly machinePools: ReadonlyArray<MachineGroup>
  readonly controlPlaneMachines: ReadonlyArray<Machine>
  readonly workerMachines: ReadonlyArray<Machine>
}

const NONE: ReadonlyArray<never> = []

/** Splits listed descendants; `undefined` when the listing failed. */
export const classify = (d: Descendants, gates: FeatureGates): Classified | undefined => {
  if (d._tag === "ListFailed") return undefined
  const controlPlaneMachines: Array<Machine> = []
  const workerMachines: Array<Machine> = []
  for (const m of d.machines) (isControlPlaneMachine(m) ? controlPlaneMachines : workerMachines).push(m)
  return {
    machineDeployments: d.machineDeployments,
    machineSets: d.machineSets,
    machinePools: gates.machinePool ? d.machinePools : NONE,
    controlPlaneMachines,
    workerMachines,
  }
}

/** A descendant kind and its objects, in the order the controller deletes and reports them. */
interface Group {
  readonly kind: "MachinePool" | "MachineDeployment" | "MachineSet" | "Machine"
  /** e.g. `Worker Machines`, for messages. */
  readonly label: string
  readonly objects: ReadonlyArray<{ readonly metadata: ObjectMeta }>
}

/**
 * The descendants whose deletion reconcileDelete waits for, in the order upstream's
 * `objectsPendingDeleteNames` lists them: control-plane Machines (only when no control-plane
 * object manages them: a control-plane object deletes its own Machines), MachineDeployments,
 * MachineSets, MachinePools, worker Machines.
 */
const pendingGroups = (c: Classified, hasControlPlaneRef: boolean): ReadonlyArray<Group> => [
  ...(hasControlPlaneRef
    ? []
    : [{ kind: "Machine" as const, label: "Control plane Machines", objects: c.controlPlaneMachines }]),
  { kind: "MachineDeployment", label: "MachineDeployments", objects: c.machineDeployments },
  { kind: "MachineSet", label: "MachineSets", objects: c.machineSets },
  { kind: "MachinePool", label: "MachinePools", objects: c.machinePools },
  { kind: "Machine", label: "Worker Machines", objects: c.workerMachines },
]

/** `objectsPendingDeleteCount`. */
export const pendingDeleteCount = (c: Classified, hasControlPlaneRef: boolean): number => {
  let n = c.machinePools.length + c.machineDeployments.length + c.machineSets.length + c.workerMachines.length
  if (!hasControlPlaneRef) n += c.controlPlaneMachines.length
  return n
}

/**
 * One line per kind still pending, e.g. `* MachineDeployments: md-a, md-b`: names sorted, at most
 * `max` of them, then `... (N more)`, as upstream's `StringListToString` writes a list (five names).
 */
export const pendingDeleteMessage = (c: Classified, hasControlPlaneRef: boolean, max: number): string => {
  const lines: Array<string> = []
  for (const g of pendingGroups(c, hasControlPlaneRef)) {
    if (g.objects.length === 0) continue
    const names = g.objects.map((o) => o.metadata.name).sort()
    const shown = names.slice(0, max)
    if (names.length > max) shown.push(`... (${names.length - max} more)`)
    lines.push(`* ${g.label}: ${shown.join(", ")}`)
  }
  return lines.join("\n")
}

/** A descendant the Cluster owns directly. */
export interface OwnedChild {
  readonly ref: ObjectRef
  readonly deleting: boolean
}

/** The outcome of `filterOwnedDescendants`. */
export type Owned =
  | { readonly _tag: "Owned"; readonly children: ReadonlyArray<OwnedChild> }
  /** An owner reference names this Cluster with an apiVersion that does not parse. */
  | {
      readonly _tag: "Undecidable"
      readonly kind: string
      readonly name: string
      readonly apiVersion: string
    }

/**
 * The descendants with an owner reference to the Cluster, control-plane Machines last. Objects
 * owned by a MachineDeployment, a MachineSet or a control-plane object are left to their owner.
 */
export const filterOwned = (
  c: Classified,
  hasControlPlaneRef: boolean,
  cluster: { readonly name: string; readonly namespace: string; readonly uid?: string },
): Owned => {
  const children: Array<OwnedChild> = []
  for (const g of pendingGroups(c, hasControlPlaneRef)) {
    for (const o of g.objects) {
      let owned = false
      for (const ref of o.metadata.ownerReferences ?? NONE) {
        if (ref.kind === "Cluster" && ref.name === cluster.name && groupOf(ref.apiVersion) === undefined)
          return { _tag: "Undecidable", kind: g.kind, name: o.metadata.name, apiVersion: ref.apiVersion }
        if (refersToCluster(ref, cluster.name, cluster.uid)) owned = true
      }
      if (owned)
        children.push({
          ref: {
            apiGroup: ClusterApiGroup,
            kind: g.kind,
            namespace: cluster.namespace,
            name: o.metadata.name,
          },
          deleting: isDeleting(o.metadata),
        })
    }
  }
  return { _tag: "Owned", children }
}

/** Whether a Machine belongs to a MachinePool (it carries the pool-name label). */
export const isMachinePoolMachine = (m: Machine): boolean =>
  m.metadata.labels?.[MachinePoolNameLabel] !== undefined

/** Whether an object is owned by the Cluster directly (stand-alone MachineSets and Machines). */
export const ownedByCluster = (meta: ObjectMeta, name: string, uid: string | undefined): boolean => {
  for (const ref of meta.ownerReferences ?? NONE) if (refersToCluster(ref, name, uid)) return true
  return false
}
