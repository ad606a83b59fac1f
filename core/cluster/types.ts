/**
 * The objects the Cluster controller (seed 001) reads, in the shapes of `cluster.x-k8s.io/v1beta2`
 * and of the provider contract, and the input of its transitions.
 *
 * Only the fields the controller reads are modelled; anything else in a real object is ignored.
 * Provider objects may publish the v1beta2 contract (`status.initialization.provisioned`,
 * `status.initialization.controlPlaneInitialized`) or the v1beta1 one (`status.ready`,
 * `status.initialized`); when both are present the v1beta2 field wins.
 *
 * @module
 */
import type { TransitionInput } from "../krtt/index.ts"
import type { ClusterAction } from "./actions.ts"
import type { ActionFailure } from "./failure.ts"

/** `metav1.OwnerReference`. */
export interface OwnerReference {
  readonly apiVersion: string
  readonly kind: string
  readonly name: string
  readonly uid?: string
  readonly controller?: boolean
  readonly blockOwnerDeletion?: boolean
}

/** The parts of `metav1.ObjectMeta` the controller reads. Times are RFC 3339 strings. */
export interface ObjectMeta {
  readonly name: string
  readonly namespace?: string
  readonly uid?: string
  readonly generation?: number
  /** Set once deletion was requested; only its presence matters. */
  readonly deletionTimestamp?: string
  readonly finalizers?: ReadonlyArray<string>
  readonly labels?: Readonly<Record<string, string>>
  readonly annotations?: Readonly<Record<string, string>>
  readonly ownerReferences?: ReadonlyArray<OwnerReference>
}

/** A Cluster is namespaced: its namespace is required. */
export interface ClusterMeta extends ObjectMeta {
  readonly namespace: string
}

export type ConditionStatus = "True" | "False" | "Unknown"

/**
 * A condition: `metav1.Condition` (v1beta2) or a v1beta1 Cluster API condition, which adds a
 * severity and may lack a reason. Conditions this controller writes always carry a reason and a
 * `lastTransitionTime`.
 */
export interface Condition {
  readonly type: string
  readonly status: ConditionStatus
  readonly reason?: string
  readonly message?: string
  /** v1beta1 only: `Error`, `Warning` or `Info` when the status is False. */
  readonly severity?: "Error" | "Warning" | "Info" | ""
  readonly observedGeneration?: number
  readonly lastTransitionTime?: string
}

/** `spec.controlPlaneEndpoint`: valid when both host and port are set. */
export interface APIEndpoint {
  readonly host?: string
  readonly port?: number
}

/** `spec.infrastructureRef` and `spec.controlPlaneRef` in v1beta2: no version, only the group. */
export interface ContractReference {
  readonly apiGroup: string
  readonly kind: string
  readonly name: string
}

/** `spec.availabilityGates[]` of a Cluster or a ClusterClass. */
export interface AvailabilityGate {
  readonly conditionType: string
  /** Default `Positive`: the gate is met when the condition is True. */
  readonly polarity?: "Positive" | "Negative"
}

/** `spec.topology`: the Cluster is managed by the topology controller from a ClusterClass. */
export interface Topology {
  readonly classRef: { readonly name: string; readonly namespace?: string }
  readonly version?: string
}

/** The desired state: the Cluster's `spec`. */
export interface ClusterSpec {
  readonly paused?: boolean
  readonly infrastructureRef?: ContractReference
  readonly controlPlaneRef?: ContractReference
  readonly controlPlaneEndpoint?: APIEndpoint
  readonly topology?: Topology
  readonly availabilityGates?: ReadonlyArray<AvailabilityGate>
}

/** `status.failureDomains[]`. */
export interface FailureDomain {
  readonly name: string
  readonly controlPlane?: boolean
  readonly attributes?: Readonly<Record<string, string>>
}

/** An item of a `versions` list: how many replicas run one Kubernetes version. */
export interface StatusVersion {
  readonly version: string
  /** Left out when 0 (upstream's CRD: at least 1 when set). */
  readonly replicas?: number
}

/** Replica counters of `status.controlPlane` and `status.workers`, with their versions. */
export interface ReplicaCounters {
  /** v1.14: the replicas per Kubernetes version, sorted ascending; left out when there are none. */
  readonly versions?: ReadonlyArray<StatusVersion>
  readonly desiredReplicas?: number
  readonly replicas?: number
  readonly readyReplicas?: number
  readonly availableReplicas?: number
  readonly upToDateReplicas?: number
}

/** The phases of seed 001's Status Fields. `Failed` is deprecated (see `status.ts`). */
export type ClusterPhase = "Pending" | "Provisioning" | "Provisioned" | "Deleting" | "Failed"

/** `status` of a `cluster.x-k8s.io/v1beta2` Cluster. */
export interface ClusterStatus {
  readonly conditions?: ReadonlyArray<Condition>
  readonly initialization?: {
    readonly infrastructureProvisioned?: boolean
    readonly controlPlaneInitialized?: boolean
  }
  readonly controlPlane?: ReplicaCounters
  readonly workers?: ReplicaCounters
  readonly failureDomains?: ReadonlyArray<FailureDomain>
  readonly phase?: ClusterPhase
  readonly observedGeneration?: number
  readonly deprecated?: {
    readonly v1beta1?: {
      readonly conditions?: ReadonlyArray<Condition>
      readonly failureReason?: string
      readonly failureMessage?: string
    }
  }
}

/** The Cluster as fetched: its metadata and status (its spec is the transition's `desired`). */
export interface ObservedCluster {
  readonly metadata: ClusterMeta
  readonly status?: ClusterStatus
}

/** The v1beta1 contract's failure domains: a map from name to domain. */
export type FailureDomainMap = Readonly<
  Record<string, { readonly controlPlane?: boolean; readonly attributes?: Readonly<Record<string, string>> }>
>

/** The object `spec.infrastructureRef` names (an InfraCluster), as far as the contract goes. */
export interface InfrastructureCluster {
  readonly apiVersion?: string
  readonly kind?: string
  readonly metadata: ObjectMeta
  readonly spec?: { readonly controlPlaneEndpoint?: APIEndpoint }
  readonly status?: {
    /** v1beta2 contract. */
    readonly initialization?: { readonly provisioned?: boolean }
    /** v1beta1 contract. */
    readonly ready?: boolean
    readonly failureDomains?: ReadonlyArray<FailureDomain> | FailureDomainMap
    /** v1beta1 contract: copied to the Cluster's `status.deprecated.v1beta1`. */
    readonly failureReason?: string
    readonly failureMessage?: string
    /** The `Ready` condition is mirrored to the Cluster's `InfrastructureReady`. */
    readonly conditions?: ReadonlyArray<Condition>
  }
}

/** The object `spec.controlPlaneRef` names, as far as the contract goes. */
export interface ControlPlane {
  readonly apiVersion?: string
  readonly kind?: string
  readonly metadata: ObjectMeta
  readonly spec?: { readonly controlPlaneEndpoint?: APIEndpoint; readonly replicas?: number }
  readonly status?: {
    /** v1beta2 contract. */
    readonly initialization?: { readonly controlPlaneInitialized?: boolean }
    /** v1beta1 contract. */
    readonly initialized?: boolean
    /** v1beta1 contract; not read (the `Ready` condition is mirrored instead). */
    readonly ready?: boolean
    readonly replicas?: number
    readonly readyReplicas?: number
    readonly availableReplicas?: number
    readonly upToDateReplicas?: number
    /** v1beta1 contract: `availableReplicas` is `spec.replicas - unavailableReplicas`. */
    readonly unavailableReplicas?: number
    /** v1beta1 contract's name of `upToDateReplicas`. */
    readonly updatedReplicas?: number
    /** v1beta1 contract: copied to the Cluster's `status.deprecated.v1beta1`. */
    readonly failureReason?: string
    readonly failureMessage?: string
    /**
     * v1.14: the replicas per Kubernetes version, as the provider publishes them; read and
     * checked by `readControlPlaneVersions` (anything may be here).
     */
    readonly versions?: unknown
    /** `Available`, `RollingOut`, `ScalingUp`, `ScalingDown`, and the v1beta1 `Ready`. */
    readonly conditions?: ReadonlyArray<Condition>
  }
}

/** The ClusterClass named by `spec.topology.classRef`. */
export interface ClusterClass {
  readonly metadata: ObjectMeta
  readonly spec?: { readonly availabilityGates?: ReadonlyArray<AvailabilityGate> }
}

/** A Machine (control-plane Machines carry the `cluster.x-k8s.io/control-plane` label). */
export interface Machine {
  readonly metadata: ObjectMeta & {
    /** RFC 3339; orders the Machines whose versions are counted. */
    readonly creationTimestamp?: string
  }
  readonly spec?: { readonly version?: string }
  readonly status?: {
    readonly nodeRef?: { readonly name: string }
    /** The kubelet's version, once the Machine has a Node; wins over `spec.version`. */
    readonly nodeInfo?: { readonly kubeletVersion?: string }
    /** `Ready`, `Available`, `UpToDate`, and `OwnerRemediated` (False: waiting for remediation). */
    readonly conditions?: ReadonlyArray<Condition>
  }
}

/** A MachineDeployment, MachineSet or MachinePool: a group of worker replicas. */
export interface MachineGroup {
  readonly metadata: ObjectMeta
  readonly spec?: { readonly replicas?: number }
  readonly status?: ReplicaCounters & {
    /** `Available`, `RollingOut`, `ScalingUp`, `ScalingDown`. */
    readonly conditions?: ReadonlyArray<Condition>
  }
}

/** The result of `client.Get()` of one object. */
export type Fetched<A> =
  | { readonly _tag: "Found"; readonly object: A }
  | { readonly _tag: "NotFound" }
  | { readonly _tag: "GetFailed"; readonly error: string }

/** The result of looking an object up when only its existence matters. */
export type Lookup =
  | { readonly _tag: "Found" }
  | { readonly _tag: "NotFound" }
  | { readonly _tag: "GetFailed"; readonly error: string }

/** What `getDescendants` listed: everything labelled `cluster.x-k8s.io/cluster-name: <cluster>`. */
export type Descendants =
  | {
      readonly _tag: "Listed"
      readonly machineDeployments: ReadonlyArray<MachineGroup>
      readonly machineSets: ReadonlyArray<MachineGroup>
      /** Only read with the MachinePool feature gate on. */
      readonly machinePools: ReadonlyArray<MachineGroup>
      readonly machines: ReadonlyArray<Machine>
    }
  | { readonly _tag: "ListFailed"; readonly error: string }

/** The feature gates the controller consults. */
export interface FeatureGates {
  /** With ClusterTopology, makes deletion wait for the BeforeClusterDelete hook. */
  readonly runtimeSDK: boolean
  readonly clusterTopology: boolean
  readonly machinePool: boolean
}

/** What the ClusterCache knows of the workload cluster's API server. */
export interface RemoteConnection {
  /** When a health probe last succeeded, ms since the epoch; absent: never. */
  readonly lastProbeSuccessTime?: number
  /** Health probes failed in a row since the last success (the ClusterCache's count); absent: 0. */
  readonly consecutiveFailures?: number
}

/** Everything one reconcile of one Cluster reads. */
export interface ClusterObserved {
  readonly cluster: Fetched<ObservedCluster>
  /** Read when `spec.topology` is set; ignored otherwise. */
  readonly clusterClass: Fetched<ClusterClass>
  /** Read when `spec.infrastructureRef` is set; ignored otherwise. */
  readonly infrastructure: Fetched<InfrastructureCluster>
  /** Read when `spec.controlPlaneRef` is set; ignored otherwise. */
  readonly controlPlane: Fetched<ControlPlane>
  readonly descendants: Descendants
  /** The `<cluster>-kubeconfig` Secret. */
  readonly kubeconfigSecret: Lookup
  readonly featureGates: FeatureGates
  readonly remoteConnection: RemoteConnection
}

/**
 * Why the transition runs: a reconcile request (watch event, resync or requeue), or the report
 * that an action of the previous step failed. The shell executes actions in order and, on the
 * first failure, skips the rest and calls the transition again with `ActionFailed` and the
 * same observations.
 */
export type ClusterTrigger =
  | { readonly _tag: "Reconcile" }
  | {
      readonly _tag: "ActionFailed"
      readonly action: ClusterAction
      /**
       * Why it was refused. `NotFound` for `CreateKubeconfigSecret` is the `<cluster>-ca` Secret
       * it needed (Error Handling derived row 11).
       */
      readonly failure: ActionFailure
    }

/** The input of every Cluster controller table. */
export type ClusterInput = TransitionInput<ClusterObserved, ClusterSpec, ClusterTrigger>
