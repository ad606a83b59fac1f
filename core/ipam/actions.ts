/**
 * The vocabulary of the IPAM Cluster controller's reconcile (`ipam.reconcile`, seed 004): what
 * the reconcile of one Cluster observes and is asked, the actions it answers with, the status it
 * reports and its rows. The decision itself is core/ipam/reconcile.ts; the jobs it is made of are
 * core/ipam/release.ts (the Cluster gone), core/ipam/align.ts (annotation and ClusterConfigs) and
 * core/ipam/apply.ts (rules not applied yet).
 *
 * Guarantees: every action is idempotent, so a reconcile whose write was refused is retried with
 * fresh reads; the Event action names its object, type, reason and message, which the shell
 * records as a Kubernetes Event and nothing more.
 *
 * @module
 */
import { type RowId, rowId, type TransitionResult } from "../krtt/index.ts"
import type { IpamState } from "./allocator.ts"
import type { IpamConfigSpec } from "./config.ts"
import { CLUSTER_KIND, CLUSTERS_API_VERSION } from "./constants.ts"
import type {
  AppliedRules,
  ClusterConfigObject,
  ClusterConfigView,
  ClusterView,
  ControllerIdentity,
  JsonPatch,
} from "./objects.ts"

export const RECONCILE = "ipam.reconcile"

/** `{namespace, name}` of an object. */
export interface ObjectKey {
  readonly namespace: string
  readonly name: string
}

/** What the shell does for the reconcile, in order. Each is idempotent. */
export type ReconcileAction =
  /** Remove `openmcp.cloud/operation: reconcile` from the Cluster (the annotation is used up). */
  | { readonly _tag: "RemoveOperationAnnotation"; readonly cluster: ObjectKey }
  /** Remove `openmcp.cloud/operation: reconcile` from a ClusterConfig of the Cluster (used up too). */
  | { readonly _tag: "RemoveClusterConfigOperationAnnotation"; readonly clusterConfig: ObjectKey }
  /** Set the applied-rules annotation on the Cluster to `value` (merge patch). */
  | { readonly _tag: "SetAppliedRules"; readonly cluster: ObjectKey; readonly value: string }
  | { readonly _tag: "CreateClusterConfig"; readonly object: ClusterConfigObject }
  /** Append `add` patches to an existing ClusterConfig (injections of the annotation it lacks). */
  | {
      readonly _tag: "AddPatches"
      readonly clusterConfig: ObjectKey
      readonly patches: ReadonlyArray<JsonPatch>
    }
  | { readonly _tag: "AddFinalizer"; readonly clusterConfig: ObjectKey; readonly finalizer: string }
  | { readonly _tag: "RemoveFinalizer"; readonly clusterConfig: ObjectKey; readonly finalizer: string }
  /**
   * Release the CIDRs in the allocator; the shell applies it (`releaseAll`) only when the
   * `RemoveFinalizer` of the same ClusterConfig before it succeeded.
   */
  | {
      readonly _tag: "ReleaseCidrs"
      readonly clusterConfig: ObjectKey
      readonly cidrs: ReadonlyArray<string>
    }
  | { readonly _tag: "DeleteClusterConfig"; readonly clusterConfig: ObjectKey }
  | {
      readonly _tag: "Event"
      readonly object: { readonly apiVersion: string; readonly kind: string } & ObjectKey
      readonly type: "Normal" | "Warning"
      readonly reason: string
      readonly action: string
      readonly message: string
    }

/** A Kubernetes condition the controller reports. */
export interface IpamCondition {
  readonly type: string
  readonly status: "True" | "False"
  readonly reason: string
  readonly message: string
}

/** What happened to one matching rule. */
export interface RuleOutcome {
  readonly id: string
  readonly outcome: "Applied" | "AlreadyApplied" | "PathConflict" | "Exhausted"
  readonly message: string
}

export interface ReconcileStatus {
  readonly outcome:
    | "Released"
    | "Ignored"
    | "NoConfig"
    | "NoMatchingRule"
    | "Invalid"
    | "Reconciled"
    | "Unchanged"
  /** The applied-rules annotation after the reconcile (empty when the Cluster is gone). */
  readonly applied: AppliedRules
  /** CIDRs acquired by this decision, in order. */
  readonly acquired: ReadonlyArray<string>
  /** CIDRs the `ReleaseCidrs` actions release. */
  readonly released: ReadonlyArray<string>
  readonly rules: ReadonlyArray<RuleOutcome>
  readonly conditions: ReadonlyArray<IpamCondition>
  /**
   * The Cluster waits for CIDRs: a rule found every allowed parent exhausted. The shell requeues
   * it with the controller's rate limiter, and at once when CIDRs are released (ipam.trigger#20).
   */
  readonly waiting: boolean
}

export interface ReconcileObserved {
  /** The Cluster, or `undefined` when the API server says NotFound. */
  readonly cluster: ClusterView | undefined
  /**
   * The ClusterConfigs of the request's namespace labelled for the Cluster (others are ignored:
   * only this controller's, by its three identity labels and the cluster label, count).
   */
  readonly clusterConfigs: ReadonlyArray<ClusterConfigView>
}

export interface ReconcileDesired {
  /** The last valid IPAMConfig; `undefined` when none is known. */
  readonly config: IpamConfigSpec | undefined
  readonly identity: ControllerIdentity
}

/** The reconcile request. */
export interface ReconcileTrigger {
  readonly _tag: "Reconcile"
  readonly namespace: string
  readonly name: string
}

/** The decision's input with the allocator state. */
export interface ReconcileArgs {
  readonly observed: ReconcileObserved
  readonly desired: ReconcileDesired
  readonly trigger: ReconcileTrigger
  readonly ipam: IpamState
}

/** The decision and the allocator state after its acquisitions (commit it before acting). */
export type ReconcileResult = TransitionResult<ReconcileAction, ReconcileStatus> & {
  readonly ipam: IpamState
}

/**
 * A write of an answer that the API server refused, as the table hears of it: the refused action,
 * the server's reason (`Conflict`, `Forbidden`, ...) and message, and the answer it belonged to.
 */
export interface WriteRefused {
  readonly _tag: "WriteRefused"
  readonly namespace: string
  readonly name: string
  readonly action: ReconcileAction
  readonly reason: string
  readonly message: string
  readonly answer: TransitionResult<ReconcileAction, ReconcileStatus>
}

/** What one run of the reconcile table is asked: the request, or a refusal of its answer's write. */
export type ReconcileRunTrigger = ReconcileTrigger | WriteRefused

const r = (n: number): RowId => rowId(RECONCILE, n)
export const ReconcileRow = {
  released: r(1),
  ignored: r(2),
  noMatchingRule: r(3),
  clusterConfigsToAnnotation: r(4),
  annotationToClusterConfigs: r(5),
  ruleApplied: r(6),
  exhausted: r(7),
  unchanged: r(8),
  noConfig: r(9),
  annotationInvalid: r(10),
  clusterConfigInvalid: r(11),
  pathConflict: r(12),
  finalizerMissing: r(13),
} as const

/** `{namespace, name}` of an object, without its other fields. */
export const keyOf = (o: ObjectKey): ObjectKey => ({ namespace: o.namespace, name: o.name })

/** A status with nothing acquired, released or applied. */
export const emptyStatus = (outcome: ReconcileStatus["outcome"]): ReconcileStatus => ({
  outcome,
  applied: {},
  acquired: [],
  released: [],
  rules: [],
  conditions: [],
  waiting: false,
})

/** An Event about the requested Cluster. */
export const clusterEvent = (
  cluster: ObjectKey,
  type: "Normal" | "Warning",
  reason: string,
  action: string,
  message: string,
): ReconcileAction => ({
  _tag: "Event",
  object: {
    apiVersion: CLUSTERS_API_VERSION,
    kind: CLUSTER_KIND,
    namespace: cluster.namespace,
    name: cluster.name,
  },
  type,
  reason,
  action,
  message,
})
