/**
 * What a Cluster waits on, in words naming the object, the field and its value, derived from
 * the reconcile's trace and the observed objects (`krtt why`, through `why.ts`).
 *
 * @module
 */
import type { Trace } from "./scope.ts"
import type { ClusterObserved, ClusterSpec } from "./types.ts"

type Ref = ClusterSpec["infrastructureRef"]

const objectName = (ref: Ref, namespace: string) =>
  // Stryker disable next-line StringLiteral
  ref === undefined ? "(none)" : `${ref.kind} ${namespace}/${ref.name}`

/** The wait of the infrastructure and control-plane phases, or `undefined`. */
export const externalWait = (
  role: "infrastructure" | "controlPlane",
  trace: Trace,
  spec: ClusterSpec,
  observed: ClusterObserved,
  namespace: string,
): string | undefined => {
  const ref = role === "infrastructure" ? spec.infrastructureRef : spec.controlPlaneRef
  const path = role === "infrastructure" ? trace.infrastructure : trace.controlPlane
  const fetched = role === "infrastructure" ? observed.infrastructure : observed.controlPlane
  const name = objectName(ref, namespace)
  const field =
    role === "infrastructure"
      ? "status.initialization.provisioned"
      : "status.initialization.controlPlaneInitialized"
  switch (path) {
    case "Waiting":
      return `${name} ${field} is not true`
    case "GetFailed":
    case "Requeue":
      return `${name} cannot be read: ${fetched._tag === "GetFailed" ? fetched.error : fetched._tag}`
  }
  return undefined
}

/** The wait of the deletion, or `undefined`. */
export const deletionWait = (
  trace: Trace,
  spec: ClusterSpec,
  observed: ClusterObserved,
  namespace: string,
): string | undefined => {
  switch (trace.deletePath) {
    case "WaitingForHook":
      return "the BeforeClusterDelete lifecycle hook has not answered yet"
    case "DeletedChildren":
    case "WaitingForDescendants": {
      const d = observed.descendants
      const n =
        d._tag === "Listed"
          ? d.machineDeployments.length + d.machineSets.length + d.machinePools.length + d.machines.length
          : 0
      return `${n} descendants (MachineDeployments, MachineSets, MachinePools, Machines) still exist`
    }
    case "DeletedControlPlane":
    case "WaitingForControlPlane":
      return `${objectName(spec.controlPlaneRef, namespace)} still exists`
    case "DeletedInfrastructure":
    case "WaitingForInfrastructure":
      return `${objectName(spec.infrastructureRef, namespace)} still exists`
  }
  return undefined
}

/** The wait before the phases run (paused, topology), or `undefined`. */
export const gateWait = (trace: Trace): string | undefined => {
  switch (trace.exit) {
    case "Paused":
      return "Cluster spec.paused is true or it has the cluster.x-k8s.io/paused annotation"
    case "WaitingForTopology":
      return "Cluster spec.infrastructureRef and spec.controlPlaneRef are not both set by the topology controller"
    case "FinalizerAdded":
      return "Cluster metadata.finalizers lacks cluster.cluster.x-k8s.io (added now)"
  }
  return undefined
}
