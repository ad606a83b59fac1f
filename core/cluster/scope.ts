/**
 * The scope of one reconcile: what the phases read, what they decide, and the trace of the
 * decision paths they took, from which every table names its row.
 *
 * @module
 */
import type { ClusterAction, ClusterKey } from "./actions.ts"
import type { ClusterControllerConfig } from "./config.ts"
import type { Classified } from "./descendants.ts"
import type {
  APIEndpoint,
  ClusterInput,
  ClusterObserved,
  ClusterPhase,
  ClusterSpec,
  FailureDomain,
  ObservedCluster,
} from "./types.ts"

/** Where the top-level Reconcile flow (seed 001, Overview) ended. */
export type Exit =
  | "NotFound"
  | "GetFailed"
  | "FinalizerAdded"
  | "Paused"
  | "PausedConditionChanged"
  | "ClusterClassFailed"
  | "WaitingForTopology"
  | "ActionFailed"
  /** The always-reconcile phases ran, then the delete or the normal ones. */
  | "Phases"

/** The path reconcileInfrastructure or reconcileControlPlane took (their flowcharts). */
export type ExternalPath =
  | "NoRef"
  /** Found, not yet provisioned / initialized: log and wait. */
  | "Waiting"
  /** Found and provisioned / initialized. */
  | "Ready"
  /** Not found while the Cluster is deleting. */
  | "Tolerated"
  /** Not found after it was provisioned / initialized: an error. */
  | "DeletedAfterReady"
  /** Not found before it was provisioned / initialized: requeue. */
  | "Requeue"
  | "GetFailed"

/** The path reconcileDelete took (its flowchart). */
export type DeletePath =
  | "WaitingForHook"
  | "ListFailed"
  | "FilterFailed"
  | "DeletedChildren"
  | "WaitingForDescendants"
  | "DeletedControlPlane"
  | "WaitingForControlPlane"
  | "ControlPlaneGetFailed"
  | "DeletedInfrastructure"
  | "WaitingForInfrastructure"
  | "InfrastructureGetFailed"
  | "CompletedInfrastructureGone"
  | "CompletedNoInfrastructure"

/** The kind of action an `ActionFailed` trigger reports. */
export type FailedKind =
  | "AddFinalizer"
  | "DeleteDescendant"
  | "DeleteExternal"
  /** `CreateKubeconfigSecret` without the `<cluster>-ca` Secret: requeue after 30 s (upstream). */
  | "MissingCA"
  | "Other"

/** The decisions of one reconcile, enough for every table to name its row. */
export interface Trace {
  exit: Exit
  failed: FailedKind | undefined
  infrastructure: ExternalPath | undefined
  /** `status.initialization.infrastructureProvisioned` went from false to true. */
  infrastructureMarked: boolean
  controlPlane: ExternalPath | undefined
  controlPlaneMarked: boolean
  /** reconcileKubeconfig created the `<cluster>-kubeconfig` Secret (row 11). */
  kubeconfigCreated: boolean
  /** reconcileV1Beta1ControlPlaneInitialized ran (no controlPlaneRef, not yet initialized). */
  initializedFallback: boolean
  deletePath: DeletePath | undefined
  /** Owned descendants found by filterOwnedDescendants. */
  ownedChildren: number
  /** The Cluster's `Deleting` condition was not yet True: the first reconcile of the deletion. */
  firstDeletion: boolean
  /** Whether the Cluster was deleting and its finalizer-holding state allowed the phases. */
  deleting: boolean
  phaseBefore: ClusterPhase | undefined
  phaseAfter: ClusterPhase | undefined
  /** The reconcile ends with an error. */
  error: boolean
}

export const newTrace = (exit: Exit): Trace => ({
  exit,
  failed: undefined,
  infrastructure: undefined,
  infrastructureMarked: false,
  controlPlane: undefined,
  controlPlaneMarked: false,
  kubeconfigCreated: false,
  initializedFallback: false,
  deletePath: undefined,
  ownedChildren: 0,
  firstDeletion: false,
  deleting: false,
  phaseBefore: undefined,
  phaseAfter: undefined,
  error: false,
})

/** The mutable scope the phases share (upstream's `scope`). */
export interface Scope {
  readonly input: ClusterInput
  readonly config: ClusterControllerConfig
  readonly cluster: ObservedCluster
  readonly key: ClusterKey
  readonly spec: ClusterSpec
  readonly observed: ClusterObserved
  readonly deleting: boolean
  readonly actions: Array<ClusterAction>
  readonly errors: Array<string>
  /** The smallest requeue a phase asked for; 0 for none. */
  requeueAfter: number
  /** `spec.controlPlaneEndpoint`, after the copies of this reconcile. */
  endpoint: APIEndpoint | undefined
  infrastructureProvisioned: boolean
  controlPlaneInitialized: boolean
  failureDomains: ReadonlyArray<FailureDomain> | undefined
  descendants: Classified | undefined
  descendantsError: string | undefined
  deletingReason: string | undefined
  /** reconcileDelete reached the control-plane (infrastructure) step and found the object gone. */
  controlPlaneGone: boolean
  infrastructureGone: boolean
  deletingMessage: string | undefined
  removeFinalizer: boolean
  /** The providers' failureReason / failureMessage copied in this reconcile (upstream's getExternal). */
  readonly failure: { reason?: string; message?: string }
  readonly trace: Trace
}

/** Asks for a requeue; the smallest non-zero duration wins (`LowestNonZeroResult`). */
export const requeue = (s: Scope, after: number): void => {
  // Stryker disable next-line EqualityOperator
  if (after > 0 && (s.requeueAfter === 0 || after < s.requeueAfter)) s.requeueAfter = after
}
