/**
 * What updateStatus knows of one reconcile, and how its rules read the objects: the objects the
 * phases read, or, when the phases did not run (waiting for the topology controller), none.
 *
 * @module
 */
import type { Clock, Decided } from "./conditions.ts"
import type { ClusterControllerConfig } from "./config.ts"
import type { Classified } from "./descendants.ts"
import type {
  APIEndpoint,
  ClusterObserved,
  ClusterSpec,
  ControlPlane,
  FailureDomain,
  Fetched,
  InfrastructureCluster,
  ObservedCluster,
} from "./types.ts"

/** What updateStatus needs to know about one reconcile. */
export interface StatusScope {
  readonly cluster: ObservedCluster
  readonly spec: ClusterSpec
  readonly observed: ClusterObserved
  readonly now: number
  /** `now` as RFC 3339, formatted on first use. */
  readonly time: Clock
  readonly config: ClusterControllerConfig
  readonly deleting: boolean
  /** Whether the reconcile phases ran: not while waiting for the topology controller. */
  readonly phases: boolean
  /** The flags after this reconcile. */
  readonly infrastructureProvisioned: boolean
  readonly controlPlaneInitialized: boolean
  /** Copied from a provisioned InfraCluster in this reconcile; `undefined` keeps the old ones. */
  readonly failureDomains: ReadonlyArray<FailureDomain> | undefined
  /** `undefined` when listing the descendants failed (or the phases did not run). */
  readonly descendants: Classified | undefined
  /** The `deletingReason` and `deletingMessage` that reconcileDelete left. */
  readonly deletingReason: string | undefined
  readonly deletingMessage: string | undefined
  /** reconcileDelete found the control-plane object, or the InfraCluster, gone. */
  readonly controlPlaneGone: boolean
  readonly infrastructureGone: boolean
  /** Whether the reconcile ends without an error (then `observedGeneration` is updated). */
  readonly succeeded: boolean
  /** `spec.controlPlaneEndpoint` after the copies of this reconcile. */
  readonly endpoint: APIEndpoint | undefined
  /** The providers' `status.failureReason`/`failureMessage` copied in this reconcile. */
  readonly failure: { readonly reason?: string; readonly message?: string }
}

/** An object the phases did not read: upstream's nil object that is not "not found". */
const NOT_READ = { _tag: "GetFailed", error: "not read" } as const

/** The InfraCluster as the phases read it. */
export const infrastructureOf = (s: StatusScope): Fetched<InfrastructureCluster> =>
  s.phases ? s.observed.infrastructure : NOT_READ

/** The control-plane object as the phases read it. */
export const controlPlaneOf = (s: StatusScope): Fetched<ControlPlane> =>
  s.phases ? s.observed.controlPlane : NOT_READ

/** Upstream's answer when something could not be read or listed; the error is logged. */
export const INTERNAL_ERROR: Decided = {
  status: "Unknown",
  reason: "InternalError",
  message: "Please check controller logs for errors",
}

/** Upstream's message while the topology controller has not set a ref (empty while deleting). */
export const waitingForTopology = (s: StatusScope): string =>
  s.deleting ? "" : "Waiting for cluster topology to be reconciled"
