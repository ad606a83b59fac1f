/**
 * The spec's own reading of seed 001, shared by its six tables: where the Overview flowchart
 * sends an input, what the provider contract says, and what a result shows. Written from the
 * seed and `reference/kubernetes-facts.md`, not from `core/` (only its types are imported).
 *
 * @module
 */
import type {
  ClusterAction,
  ClusterControllerConfig,
  ClusterInput,
  ClusterResult,
  ClusterStatus,
  Condition,
  ControlPlane,
  FailureDomain,
  InfrastructureCluster,
  Machine,
  MachineGroup,
  ObjectMeta,
  ObservedCluster,
} from "../../core/cluster/index.ts"

export type I = ClusterInput
export type R = ClusterResult
export type C = ClusterControllerConfig

/** The names seed 001 and the Cluster API contract use. */
export const FINALIZER = "cluster.cluster.x-k8s.io"
const PAUSED = "cluster.x-k8s.io/paused"
const OK_TO_DELETE = "runtime.cluster.x-k8s.io/ok-to-delete"
export const CLUSTER_NAME_LABEL = "cluster.x-k8s.io/cluster-name"
const CONTROL_PLANE_LABEL = "cluster.x-k8s.io/control-plane"

/** The columns of a flowchart transcribed as a table: one row per decision path. */
export const FLOWCHART_COLUMNS = ["Decision path", "Decisions", "Outcome"] as const

// ---------------------------------------------------------------------------------------------
// The Overview flowchart

/** Where the top-level Reconcile sends an input. */
export type Stage =
  | "actionFailed"
  | "notFound"
  | "getFailed"
  | "addFinalizer"
  | "paused"
  | "pausedCondition"
  | "clusterClass"
  | "topologyWait"
  | "delete"
  | "normal"

export const clusterOf = (i: I): ObservedCluster | undefined =>
  i.observed.cluster._tag === "Found" ? i.observed.cluster.object : undefined

const set = (s: string | undefined): boolean => s !== undefined && s !== ""
export const deletingMeta = (m: ObjectMeta): boolean => set(m.deletionTimestamp)

/** The Cluster exists and has a deletion timestamp. */
export const clusterDeleting = (i: I): boolean => {
  const c = clusterOf(i)
  return c !== undefined && deletingMeta(c.metadata)
}

export const conditionOf = (
  conditions: ReadonlyArray<Condition> | undefined,
  type: string,
): Condition | undefined => conditions?.find((c) => c.type === type)

export const stage = (i: I): Stage => {
  if (i.trigger._tag === "ActionFailed") return "actionFailed"
  const f = i.observed.cluster
  if (f._tag === "NotFound") return "notFound"
  if (f._tag === "GetFailed") return "getFailed"
  const meta = f.object.metadata
  // Finalizers cannot be added once the deletion timestamp is set.
  if (!deletingMeta(meta) && !(meta.finalizers ?? []).includes(FINALIZER)) return "addFinalizer"
  if (i.desired.paused === true || meta.annotations?.[PAUSED] !== undefined) return "paused"
  if (conditionOf(f.object.status?.conditions, "Paused")?.status !== "False") return "pausedCondition"
  if (i.desired.topology !== undefined) {
    if (i.observed.clusterClass._tag !== "Found") return "clusterClass"
    // Upstream v1.13 checks deletion before the topology wait: a deleting Cluster
    // whose refs were never generated goes on to reconcileDelete.
    if (
      !deletingMeta(meta) &&
      (i.desired.infrastructureRef === undefined || i.desired.controlPlaneRef === undefined)
    )
      return "topologyWait"
  }
  return deletingMeta(meta) ? "delete" : "normal"
}

/** The always-reconcile phases run (stage normal or delete). */
export const phasesRun = (i: I): boolean => {
  const s = stage(i)
  return s === "normal" || s === "delete"
}

// ---------------------------------------------------------------------------------------------
// The provider contract

export const provisioned = (o: InfrastructureCluster): boolean =>
  o.status?.initialization?.provisioned ?? o.status?.ready ?? false
export const initialized = (o: ControlPlane): boolean =>
  o.status?.initialization?.controlPlaneInitialized ?? o.status?.initialized ?? false
export const validEndpoint = (e: { readonly host?: string; readonly port?: number } | undefined): boolean =>
  e !== undefined && set(e.host) && e.port !== undefined && e.port !== 0

/** `status.initialization` before this reconcile. */
export const infraFlagBefore = (i: I): boolean =>
  clusterOf(i)?.status?.initialization?.infrastructureProvisioned === true
export const cpFlagBefore = (i: I): boolean =>
  clusterOf(i)?.status?.initialization?.controlPlaneInitialized === true

export const infraFound = (i: I): InfrastructureCluster | undefined =>
  i.observed.infrastructure._tag === "Found" ? i.observed.infrastructure.object : undefined
export const cpFound = (i: I): ControlPlane | undefined =>
  i.observed.controlPlane._tag === "Found" ? i.observed.controlPlane.object : undefined

/**
 * reconcileInfrastructure goes past its "Provisioned?" check: the InfraCluster is not being
 * deleted and reports provisioned, or the Cluster's flag is set already (upstream v1.14.2 stops
 * at an object being deleted, and goes on once provisioned whatever the object reports now).
 */
export const infraProceeds = (i: I): boolean => {
  const infra = infraFound(i)
  return infra !== undefined && !deletingMeta(infra.metadata) && (provisioned(infra) || infraFlagBefore(i))
}
/** Likewise reconcileControlPlane's "Initialized?" check. */
export const cpProceeds = (i: I): boolean => {
  const cp = cpFound(i)
  return cp !== undefined && !deletingMeta(cp.metadata) && (initialized(cp) || cpFlagBefore(i))
}

/** `spec.controlPlaneEndpoint` after the copies of reconcileInfrastructure and reconcileControlPlane. */
export const endpointAfterInfra = (i: I) => {
  if (validEndpoint(i.desired.controlPlaneEndpoint)) return i.desired.controlPlaneEndpoint
  const infra = infraFound(i)
  if (i.desired.infrastructureRef !== undefined && infra !== undefined && infraProceeds(i)) {
    const e = infra.spec?.controlPlaneEndpoint
    if (validEndpoint(e)) return e
  }
  return undefined
}
export const endpointAfter = (i: I) => {
  const e = endpointAfterInfra(i)
  if (e !== undefined) return e
  const cp = cpFound(i)
  if (i.desired.controlPlaneRef !== undefined && cp !== undefined && cpProceeds(i)) {
    const c = cp.spec?.controlPlaneEndpoint
    if (validEndpoint(c)) return c
  }
  return undefined
}

const isCpMachine = (m: Machine): boolean => m.metadata.labels?.[CONTROL_PLANE_LABEL] !== undefined

/**
 * The phases run, or re-run for the status after a failed action: not while waiting for the
 * topology controller (Normal Reconciliation row 4), where updateStatus reads nothing.
 */
export const phasesRead = (i: I): boolean => stage(i) !== "topologyWait"

/** Infrastructure provisioned after this reconcile (row 5: no infraRef counts as provisioned). */
export const infraAfter = (i: I): boolean => {
  if (infraFlagBefore(i)) return true
  if (!phasesRead(i)) return false
  if (i.desired.infrastructureRef === undefined) return !clusterDeleting(i)
  return infraProceeds(i)
}

/**
 * Control plane initialized after this reconcile (row 10): upstream v1.14.2 sets the flag from
 * a control-plane object alone; row 12's Machine fallback sets the v1beta1 condition only.
 */
export const cpAfter = (i: I): boolean => {
  if (cpFlagBefore(i)) return true
  if (!phasesRead(i) || i.desired.controlPlaneRef === undefined) return false
  return cpProceeds(i)
}

export const activeCpMachineWithNode = (i: I): boolean => {
  const d = i.observed.descendants
  return (
    d._tag === "Listed" &&
    d.machines.some((m) => isCpMachine(m) && !deletingMeta(m.metadata) && m.status?.nodeRef !== undefined)
  )
}

/**
 * The phase updateStatus sets (Status Fields; Normal Reconciliation rows 5 and 13), read as
 * upstream v1.13's setPhase where the seed is silent: Provisioned needs the
 * infrastructure provisioned and a valid `spec.controlPlaneEndpoint` (what row 13's "CP
 * initialized" publishes); Failed is never derived; with nothing to say (waiting for the
 * topology controller, no ref set) the phase stays, `Pending` at first.
 */
export const phaseAfter = (i: I): ClusterStatus["phase"] => {
  if (clusterDeleting(i)) return "Deleting"
  const endpoint = phasesRead(i) ? endpointAfter(i) : validEndpoint(i.desired.controlPlaneEndpoint)
  if (infraAfter(i) && endpoint !== undefined && endpoint !== false) return "Provisioned"
  if (
    (phasesRead(i) && infraAfter(i)) ||
    i.desired.infrastructureRef !== undefined ||
    i.desired.controlPlaneRef !== undefined
  )
    return "Provisioning"
  const old = clusterOf(i)?.status?.phase
  return old === undefined || (old as string) === "" ? "Pending" : old
}

/**
 * The trigger reports that the kubeconfig Secret could not be created because the
 * `<cluster>-ca` Secret does not exist (upstream's reconcileKubeconfig requeues after 30 s).
 */
/**
 * What a failed kubeconfig creation ends in (derived rows normal#18, errors#11): the status
 * patched, then a requeue after 30 s, or the error of another phase of the same reconcile;
 * without a Cluster to patch, the error alone.
 */
export const missingCaHolds = (i: I, r: R): boolean => {
  if (clusterOf(i) === undefined) return returnsError(r) && patched(r) === undefined
  if (patched(r) === undefined) return false
  const phasesFailed = phaseError({ ...i, trigger: { _tag: "Reconcile" } })
  return phasesFailed ? returnsError(r) : requeuesAfter(r, 30_000) || returnsError(r)
}

export const missingCa = (i: I): boolean =>
  i.trigger._tag === "ActionFailed" &&
  i.trigger.action._tag === "CreateKubeconfigSecret" &&
  i.trigger.failure._tag === "NotFound"

// ---------------------------------------------------------------------------------------------
// Errors of the phases (Error Handling)

export const infraGetFailed = (i: I): boolean =>
  i.desired.infrastructureRef !== undefined && i.observed.infrastructure._tag === "GetFailed"
export const cpGetFailed = (i: I): boolean =>
  i.desired.controlPlaneRef !== undefined && i.observed.controlPlane._tag === "GetFailed"
export const infraNotFound = (i: I): boolean =>
  i.desired.infrastructureRef !== undefined && i.observed.infrastructure._tag === "NotFound"
export const cpNotFound = (i: I): boolean =>
  i.desired.controlPlaneRef !== undefined && i.observed.controlPlane._tag === "NotFound"
export const listFailed = (i: I): boolean => i.observed.descendants._tag === "ListFailed"

/** reconcileKubeconfig looks for the Secret: no controlPlaneRef and a valid endpoint. */
export const kubeconfigLooked = (i: I): boolean =>
  stage(i) === "normal" && i.desired.controlPlaneRef === undefined && endpointAfter(i) !== undefined

/** Any phase of a reconcile that reached the phases returns an error. */
export const phaseError = (i: I): boolean => {
  const s = stage(i)
  if (s !== "normal" && s !== "delete") return false
  if (infraGetFailed(i) || cpGetFailed(i) || listFailed(i)) return true
  if (s === "normal") {
    if (infraNotFound(i) && infraFlagBefore(i)) return true
    if (cpNotFound(i) && cpFlagBefore(i)) return true
    if (kubeconfigLooked(i) && i.observed.kubeconfigSecret._tag === "GetFailed") return true
  }
  return false
}

// ---------------------------------------------------------------------------------------------
// reconcileDelete

/** RuntimeSDK + ClusterTopology enabled, managed topology, no ok-to-delete annotation. */
export const hookBlocks = (i: I): boolean =>
  i.observed.featureGates.runtimeSDK &&
  i.observed.featureGates.clusterTopology &&
  i.desired.topology !== undefined &&
  clusterOf(i)?.metadata.annotations?.[OK_TO_DELETE] === undefined

interface Named {
  readonly kind: string
  readonly meta: ObjectMeta
}

/**
 * The descendants whose deletion the Cluster waits for (`objectsPendingDeleteCount`):
 * MachinePools (with the gate), MachineDeployments, MachineSets, worker Machines, and the
 * control-plane Machines only when there is no control-plane object to delete them.
 */
export const pending = (i: I): ReadonlyArray<Named> => {
  const d = i.observed.descendants
  if (d._tag !== "Listed") return []
  const out: Array<Named> = []
  const add = (kind: string, xs: ReadonlyArray<MachineGroup | Machine>) => {
    for (const x of xs) out.push({ kind, meta: x.metadata })
  }
  if (i.observed.featureGates.machinePool) add("MachinePool", d.machinePools)
  add("MachineDeployment", d.machineDeployments)
  add("MachineSet", d.machineSets)
  add(
    "Machine",
    d.machines.filter((m) => !isCpMachine(m)),
  )
  if (i.desired.controlPlaneRef === undefined)
    add(
      "Machine",
      d.machines.filter((m) => isCpMachine(m)),
    )
  return out
}

const clusterGroup = (apiVersion: string): string | undefined => {
  const parts = apiVersion.split("/")
  if (parts.length === 1) return parts[0] === "" ? undefined : ""
  if (parts.length !== 2 || parts[0] === "" || parts[1] === "") return undefined
  return parts[0]
}

/** A descendant whose owner reference names this Cluster with an apiVersion that does not parse. */
export const malformedOwner = (i: I): boolean => {
  const c = clusterOf(i)
  if (c === undefined) return false
  return pending(i).some((p) =>
    (p.meta.ownerReferences ?? []).some(
      (o) => o.kind === "Cluster" && o.name === c.metadata.name && clusterGroup(o.apiVersion) === undefined,
    ),
  )
}

/** The descendants the Cluster owns directly (`filterOwnedDescendants`). */
export const owned = (i: I): ReadonlyArray<Named> => {
  const c = clusterOf(i)
  if (c === undefined) return []
  const { name, uid } = c.metadata
  return pending(i).filter((p) =>
    (p.meta.ownerReferences ?? []).some(
      (o) =>
        o.kind === "Cluster" &&
        o.name === name &&
        clusterGroup(o.apiVersion) === "cluster.x-k8s.io" &&
        (uid === undefined || o.uid === undefined || o.uid === uid),
    ),
  )
}

/** The control-plane object is gone or was never referenced. */
export const cpGone = (i: I): boolean => i.desired.controlPlaneRef === undefined || cpNotFound(i)
export const infraGone = (i: I): boolean => i.desired.infrastructureRef === undefined || infraNotFound(i)

/** The delete flow gets past the hook, the listing and the filter. */
export const pastFilter = (i: I): boolean =>
  stage(i) === "delete" && !hookBlocks(i) && !listFailed(i) && !malformedOwner(i)

/** The trigger reports a failed delete of the given role. */
export const failedDelete = (i: I, roles: ReadonlyArray<string>): boolean =>
  i.trigger._tag === "ActionFailed" &&
  i.trigger.action._tag === "DeleteObject" &&
  roles.includes(i.trigger.action.role)

/** The failure domains as the Cluster carries them: a list sorted by name (v1beta1 is a map). */
export const failureDomains = (infra: InfrastructureCluster): ReadonlyArray<FailureDomain> => {
  const fd = infra.status?.failureDomains
  if (fd === undefined) return []
  if (Array.isArray(fd))
    return [...(fd as ReadonlyArray<FailureDomain>)].sort((a, b) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
    )
  const map = fd as Readonly<Record<string, Omit<FailureDomain, "name">>>
  return Object.keys(map)
    .sort()
    .map((name) => ({ name, ...map[name] }))
}

// ---------------------------------------------------------------------------------------------
// Results

export const has = (r: R, tag: ClusterAction["_tag"], match: (a: ClusterAction) => boolean = () => true) =>
  r.actions.some((a) => a._tag === tag && match(a))

export const patched = (r: R): ClusterStatus | undefined => {
  for (let k = r.actions.length - 1; k >= 0; k--) {
    const a = r.actions[k] as ClusterAction
    if (a._tag === "PatchStatus") return a.status
  }
  return undefined
}

/** The v1beta2 condition of a type in the result's status. */
export const cond = (r: R, type: string): Condition | undefined => conditionOf(r.status?.conditions, type)
/** The deprecated v1beta1 condition of a type in the result's status. */
export const v1cond = (r: R, type: string): Condition | undefined =>
  conditionOf(r.status?.deprecated?.v1beta1?.conditions, type)

export const returnsError = (r: R): boolean =>
  r.actions[r.actions.length - 1]?._tag === "ReturnError" && !has(r, "Requeue")
export const requeuesAfter = (r: R, ms: number): boolean =>
  has(r, "Requeue", (a) => a._tag === "Requeue" && a.after === ms) && !has(r, "ReturnError")
export const errorSays = (r: R, text: string): boolean =>
  has(r, "ReturnError", (a) => a._tag === "ReturnError" && a.error.includes(text))

export const deletingReason = (r: R): string | undefined => {
  const c = cond(r, "Deleting")
  return c?.status === "True" ? c.reason : undefined
}

export const deletes = (r: R, role: string): ReadonlyArray<string> =>
  r.actions.flatMap((a) =>
    a._tag === "DeleteObject" && a.role === role ? [`${a.ref.kind}/${a.ref.name}`] : [],
  )

/**
 * The promise of the deletion order: nothing of the control plane or the infrastructure is
 * deleted while descendants remain, the infrastructure not while the control plane exists, and
 * the finalizer is not removed while anything remains.
 */
export const orderKept = (i: I, r: R): boolean => {
  const descendantsRemain = listFailed(i) || pending(i).length > 0
  const cpRemains = i.desired.controlPlaneRef !== undefined && !cpNotFound(i)
  const infraRemains = i.desired.infrastructureRef !== undefined && !infraNotFound(i)
  if (descendantsRemain && (deletes(r, "controlPlane").length > 0 || deletes(r, "infrastructure").length > 0))
    return false
  if (cpRemains && deletes(r, "infrastructure").length > 0) return false
  if ((descendantsRemain || cpRemains || infraRemains) && has(r, "RemoveFinalizer")) return false
  return true
}

/** The object a ref names has the Cluster's owner reference and cluster-name label, or gets them. */
export const ownership = (i: I, r: R, role: "infrastructure" | "controlPlane"): boolean => {
  const c = clusterOf(i)
  const ref = role === "infrastructure" ? i.desired.infrastructureRef : i.desired.controlPlaneRef
  const obj = role === "infrastructure" ? infraFound(i) : cpFound(i)
  if (c === undefined || ref === undefined || obj === undefined) return false
  const { name, namespace, uid } = c.metadata
  const topology = i.desired.topology !== undefined
  const labelled = obj.metadata.labels?.[CLUSTER_NAME_LABEL] === name
  const refs = obj.metadata.ownerReferences ?? []
  const ownedNow = refs.some(
    (o) =>
      o.kind === "Cluster" &&
      o.name === name &&
      o.apiVersion === "cluster.x-k8s.io/v1beta2" &&
      o.uid === uid &&
      (o.controller === true) === topology,
  )
  const patches = r.actions.filter((a) => a._tag === "PatchExternal" && a.role === role)
  if (labelled && ownedNow) return patches.length === 0
  if (patches.length !== 1) return false
  const p = patches[0] as Extract<ClusterAction, { _tag: "PatchExternal" }>
  return (
    p.ref.name === ref.name &&
    p.ref.kind === ref.kind &&
    p.ref.apiGroup === ref.apiGroup &&
    p.ref.namespace === namespace &&
    p.labels[CLUSTER_NAME_LABEL] === name &&
    p.ownerReference.kind === "Cluster" &&
    p.ownerReference.name === name &&
    p.ownerReference.apiVersion === "cluster.x-k8s.io/v1beta2" &&
    p.ownerReference.uid === uid &&
    (p.ownerReference.controller === true) === topology &&
    (p.ownerReference.blockOwnerDeletion === true) === topology
  )
}

/** The endpoint copied from a provider, if the result copies one. */
export const endpointCopied = (r: R, from: "infrastructure" | "controlPlane") =>
  r.actions.flatMap((a) => (a._tag === "SetControlPlaneEndpoint" && a.from === from ? [a.endpoint] : []))
