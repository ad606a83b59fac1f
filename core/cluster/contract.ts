/**
 * Names of the Cluster API contract (finalizer, labels, annotations, condition types and
 * reasons) and the readers of the provider contract: what an InfraCluster or a control-plane
 * object says about itself, in the v1beta2 or the v1beta1 form.
 *
 * @module
 */
import { byName } from "../krtt/index.ts"
import type {
  APIEndpoint,
  ContractReference,
  ControlPlane,
  FailureDomain,
  InfrastructureCluster,
  Machine,
  ObjectMeta,
  OwnerReference,
} from "./types.ts"

export const ClusterApiGroup = "cluster.x-k8s.io"
export const ClusterApiVersion = "cluster.x-k8s.io/v1beta2"
export const ClusterApiV1Beta1Version = "cluster.x-k8s.io/v1beta1"
export const ClusterFinalizer = "cluster.cluster.x-k8s.io"
export const PausedAnnotation = "cluster.x-k8s.io/paused"
export const OkToDeleteAnnotation = "runtime.cluster.x-k8s.io/ok-to-delete"
export const ClusterNameLabel = "cluster.x-k8s.io/cluster-name"
/** The label `--watch-filter` selects on (upstream's `clusterv1.WatchLabel`). */
export const WatchFilterLabel = "cluster.x-k8s.io/watch-filter"
/** The label on a provider's CRD naming the versions that implement the v1beta2 contract. */
export const ContractLabel = "cluster.x-k8s.io/v1beta2"
/** The label of the older v1beta1 contract, still accepted by upstream v1.13. */
export const V1Beta1ContractLabel = "cluster.x-k8s.io/v1beta1"
/** The annotation where conversion keeps what the other version cannot hold. */
export const ConversionDataAnnotation = "cluster.x-k8s.io/conversion-data"
/** The label naming a Machine's MachinePool. */
export const MachinePoolNameLabel = "cluster.x-k8s.io/pool-name"
export const ControlPlaneMachineLabel = "cluster.x-k8s.io/control-plane"
export const KubeconfigSecretType = "cluster.x-k8s.io/secret"
export const KubeconfigDataKey = "value"

/** `<cluster>-kubeconfig`. */
export const kubeconfigSecretName = (cluster: string): string => `${cluster}-kubeconfig`
/** `<cluster>-ca`: the cluster CA the kubeconfig is signed with. */
export const caSecretName = (cluster: string): string => `${cluster}-ca`

/** The sixteen v1beta2 conditions of seed 001, in its order. */
export const V1Beta2ConditionTypes = [
  "InfrastructureReady",
  "ControlPlaneAvailable",
  "ControlPlaneInitialized",
  "ControlPlaneMachinesReady",
  "ControlPlaneMachinesUpToDate",
  "WorkersAvailable",
  "WorkerMachinesReady",
  "WorkerMachinesUpToDate",
  "RemoteConnectionProbe",
  "RollingOut",
  "ScalingUp",
  "ScalingDown",
  "Remediating",
  "Deleting",
  "Available",
  "Paused",
] as const
export type V1Beta2ConditionType = (typeof V1Beta2ConditionTypes)[number]

/** The four deprecated v1beta1 conditions of seed 001. */
export const V1Beta1ConditionTypes = [
  "Ready",
  "ControlPlaneReady",
  "InfrastructureReady",
  "ControlPlaneInitialized",
] as const
export type V1Beta1ConditionType = (typeof V1Beta1ConditionTypes)[number]

/** The `deletingReason`s of reconcileDelete (seed 001's delete flowchart). */
export const DeletingReason = {
  NotDeleting: "NotDeleting",
  WaitingForBeforeDeleteHook: "WaitingForBeforeDeleteHook",
  InternalError: "InternalError",
  WaitingForWorkersDeletion: "WaitingForWorkersDeletion",
  WaitingForControlPlaneDeletion: "WaitingForControlPlaneDeletion",
  WaitingForInfrastructureDeletion: "WaitingForInfrastructureDeletion",
  DeletionCompleted: "DeletionCompleted",
} as const
export type DeletingReason = (typeof DeletingReason)[keyof typeof DeletingReason]

/** Whether an endpoint has both a host and a port. */
export const isValidEndpoint = (
  e: APIEndpoint | undefined,
): e is { readonly host: string; readonly port: number } =>
  e !== undefined && e.host !== undefined && e.host !== "" && e.port !== undefined && e.port !== 0

/** Whether the InfraCluster reports itself provisioned (v1beta2 field first, then v1beta1). */
export const isProvisioned = (infra: InfrastructureCluster): boolean =>
  infra.status?.initialization?.provisioned ?? infra.status?.ready ?? false

/** Whether the control plane reports itself initialized (v1beta2 field first, then v1beta1). */
export const isInitialized = (cp: ControlPlane): boolean =>
  cp.status?.initialization?.controlPlaneInitialized ?? cp.status?.initialized ?? false

/** The InfraCluster's failure domains as a v1beta2 list sorted by name (the v1beta1 form is a map). */
export const failureDomainsOf = (infra: InfrastructureCluster): ReadonlyArray<FailureDomain> | undefined => {
  const fd = infra.status?.failureDomains
  if (fd === undefined) return undefined
  if (Array.isArray(fd)) return [...(fd as ReadonlyArray<FailureDomain>)].sort(byName)
  return Object.keys(fd)
    .sort()
    .map((name) => {
      const d = (fd as Readonly<Record<string, Omit<FailureDomain, "name">>>)[name]
      return { name, ...d }
    })
}

export const isDeleting = (meta: ObjectMeta): boolean =>
  meta.deletionTimestamp !== undefined && meta.deletionTimestamp !== ""

export const isControlPlaneMachine = (m: Machine): boolean =>
  m.metadata.labels?.[ControlPlaneMachineLabel] !== undefined

/** The group of an `apiVersion` (`group/version`, or `version` for the core group). */
export const groupOf = (apiVersion: string): string | undefined => {
  if (apiVersion === "") return undefined
  const slash = apiVersion.indexOf("/")
  if (slash === -1) return ""
  if (slash === 0 || slash === apiVersion.length - 1 || apiVersion.indexOf("/", slash + 1) !== -1)
    return undefined
  return apiVersion.slice(0, slash)
}

/** Whether an owner reference names a Cluster of the given name (and uid, when both have one). */
export const refersToCluster = (ref: OwnerReference, name: string, uid: string | undefined): boolean =>
  ref.kind === "Cluster" &&
  groupOf(ref.apiVersion) === ClusterApiGroup &&
  ref.name === name &&
  (uid === undefined || ref.uid === undefined || ref.uid === uid)

/**
 * The owner reference this controller sets on the objects the Cluster owns. With `controller`
 * (a Cluster with a topology, whose controllers manage those objects' whole life) it is the
 * objects' controller reference and blocks the Cluster's deletion while they exist; without, a
 * plain reference, so that another tool may be their controller.
 */
export const clusterOwnerReference = (
  name: string,
  uid: string | undefined,
  controller = false,
): OwnerReference => ({
  apiVersion: ClusterApiVersion,
  kind: "Cluster",
  name,
  ...(uid === undefined ? {} : { uid }),
  ...(controller ? { controller: true, blockOwnerDeletion: true } : {}),
})

/**
 * Whether `refs` hold `ref` exactly: the same apiVersion, kind, name and uid, and the same
 * controller flag (an absent flag is false). An older apiVersion or a changed flag is not it.
 */
export const hasExactOwnerReference = (refs: ReadonlyArray<OwnerReference>, ref: OwnerReference): boolean =>
  refs.some(
    (r) =>
      r.apiVersion === ref.apiVersion &&
      r.kind === ref.kind &&
      r.name === ref.name &&
      r.uid === ref.uid &&
      (r.controller === true) === (ref.controller === true),
  )

/** `Kind name`, for messages. */
export const describeRef = (ref: ContractReference): string => `${ref.kind} ${ref.name}`
