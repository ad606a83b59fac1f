/**
 * The ClusterCache Reconciler's table (seed 000, "ClusterCache Reconciler"): its id, its rows
 * by name, and the shapes of its input and result. `reconciler.ts` holds the transition.
 *
 * Rows 1-13 are the seed's; 14 (another error getting the Cluster, Error Handling row 7), 15 (a
 * connected accessor whose probe interval has not elapsed) and 16 (a result for an accessor that
 * is gone or changed) are derived, as `spec/clustercache/reconciler.ts` says.
 *
 * @module
 */
import { type RowId, rowId, type TransitionInput, type TransitionResult } from "../krtt/index.ts"
import type { ReconcilerAction, ReconcilerContinuation } from "./actions.ts"
import type { ProbeOutcome } from "./health.ts"
import type { AccessorState } from "./state.ts"

export const RECONCILER = "clustercache.reconciler"

/** What `client.Get()` of the Cluster returned. */
export type ClusterView =
  | {
      readonly _tag: "Found"
      /** `status.initialization.infrastructureProvisioned`. */
      readonly infrastructureProvisioned: boolean
      /** `metadata.deletionTimestamp` is set. */
      readonly deleting: boolean
    }
  | { readonly _tag: "NotFound" }
  | { readonly _tag: "GetFailed"; readonly error: string }

/** A registered cluster source (`GetClusterSource`). */
export interface ClusterSource {
  /** The controller the source feeds. */
  readonly name: string
  /** `WatchForProbeFailure` durations, ms. */
  readonly probeFailureDurations: ReadonlyArray<number>
}

export interface ReconcilerObserved {
  /** The Cluster's accessor; absent when there is none. */
  readonly accessor?: AccessorState | undefined
}

export interface ReconcilerDesired {
  readonly cluster: ClusterView
  readonly sources: ReadonlyArray<ClusterSource>
}

export type ReconcilerTrigger =
  | ReconcilerContinuation
  | { readonly _tag: "ConnectFinished"; readonly ok: boolean; readonly error?: string | undefined }
  | { readonly _tag: "ProbeFinished"; readonly outcome: ProbeOutcome }

export interface ReconcilerStatus {
  /** The accessor after this step; absent once removed. */
  readonly accessor?: AccessorState | undefined
  /** `false` while the reconcile goes on (a `Connect`, `Probe` or `Continue` action is pending). */
  readonly done: boolean
  /** Set when the reconcile ends with a requeue. */
  readonly requeueAfter?: number | undefined
}

export type ReconcilerInput = TransitionInput<ReconcilerObserved, ReconcilerDesired, ReconcilerTrigger>
export type ReconcilerResult = TransitionResult<ReconcilerAction, ReconcilerStatus>

const r = (n: number): RowId => rowId(RECONCILER, n)
/** The rows by name. */
export const RECONCILER_ROWS = {
  create: r(1),
  notFound: r(2),
  infraNotReady: r(3),
  connect: r(4),
  retryWait: r(5),
  connectFailed: r(6),
  probe: r(7),
  probeSucceeded: r(8),
  probeFailed: r(9),
  threshold: r(10),
  unauthorized: r(11),
  complete: r(12),
  deleted: r(13),
  getFailed: r(14),
  probeNotDue: r(15),
  stale: r(16),
}
