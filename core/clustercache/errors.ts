/**
 * Error Handling (seed 000): what each ClusterCache error means for the accessor and when the
 * request is requeued. The reconciler takes its requeue durations from here.
 *
 * @module
 */
import { goDuration, type RowId, rowId, type TransitionInput, type TransitionResult } from "../krtt/index.ts"
import type { ErrorAction } from "./actions.ts"
import { type ClusterCacheConfig, ClusterCacheDefaults } from "./config.ts"

export const ERRORS = "clustercache.errors"

export type ClusterCacheErrorKind =
  /** A caller asked for a client/reader/watch of a cluster without connection. */
  | { readonly _tag: "ClusterNotConnectedError" }
  | { readonly _tag: "ConnectionCreationFailed" }
  /** The health probe failed; `unauthorized` for a 401. */
  | { readonly _tag: "HealthProbeFailed"; readonly unauthorized: boolean }
  | { readonly _tag: "ClusterNotFound" }
  | { readonly _tag: "ClusterGetFailed" }

export interface ErrorsObserved {
  /** The accessor's consecutive failures, counting this error. */
  readonly consecutiveFailures: number
}

export type Requeue =
  | { readonly _tag: "CallerHandles" }
  | { readonly _tag: "None" }
  | { readonly _tag: "After"; readonly after: number }

export interface ErrorsStatus {
  readonly requeue: Requeue
  readonly disconnect: boolean
  readonly removeAccessor: boolean
}

export type ErrorsInput = TransitionInput<
  ErrorsObserved,
  Readonly<Record<string, never>>,
  ClusterCacheErrorKind
>
export type ErrorsResult = TransitionResult<ErrorAction, ErrorsStatus>

const r = (n: number): RowId => rowId(ERRORS, n)
const ROW = {
  notConnected: r(1),
  connectFailed: r(2),
  probeFailed: r(3),
  unauthorized: r(4),
  threshold: r(5),
  notFound: r(6),
  getFailed: r(7),
}

const NOT_CONNECTED: ErrorsResult = {
  actions: [{ _tag: "ReturnError", error: "ClusterNotConnectedError" }],
  status: { requeue: { _tag: "CallerHandles" }, disconnect: false, removeAccessor: false },
  row: ROW.notConnected,
}
const NOT_FOUND: ErrorsResult = {
  actions: [{ _tag: "Disconnect" }, { _tag: "DeleteAccessor" }, { _tag: "CleanupSources" }],
  status: { requeue: { _tag: "None" }, disconnect: true, removeAccessor: true },
  row: ROW.notFound,
}

const after = (
  ms: number,
  disconnect: boolean,
  row: RowId,
  extra: ReadonlyArray<ErrorAction> = [],
): ErrorsResult => ({
  actions: disconnect
    ? [{ _tag: "Disconnect" }, ...extra, { _tag: "Requeue", after: ms }]
    : [...extra, { _tag: "Requeue", after: ms }],
  status: { requeue: { _tag: "After", after: ms }, disconnect, removeAccessor: false },
  row,
})

/** Error Handling as a transition. */
export const errorsTransition = (
  input: ErrorsInput,
  config: ClusterCacheConfig = ClusterCacheDefaults,
): ErrorsResult => {
  const { trigger, observed } = input
  switch (trigger._tag) {
    case "ClusterNotConnectedError":
      return NOT_CONNECTED
    case "ConnectionCreationFailed":
      return after(config.connectionCreationRetryInterval, false, ROW.connectFailed)
    case "HealthProbeFailed":
      // A 401 wins over the threshold (Error Handling rows 4 and 5 overlap): the kubeconfig may
      // have been rotated, so reconnect at once rather than after the retry interval.
      if (trigger.unauthorized) return after(config.unauthorizedRequeueAfter, true, ROW.unauthorized)
      if (observed.consecutiveFailures >= config.healthProbe.failureThreshold) {
        return after(config.connectionCreationRetryInterval, true, ROW.threshold)
      }
      return after(config.healthProbe.interval, false, ROW.probeFailed)
    case "ClusterNotFound":
      return NOT_FOUND
    case "ClusterGetFailed":
      return after(config.defaultRequeueAfter, false, ROW.getFailed, [
        {
          _tag: "Log",
          // upstream's wording, with its Go duration
          message: `Requeuing after ${goDuration(config.defaultRequeueAfter)} (error getting Cluster object)`,
        },
      ])
  }
}
