/**
 * A probe of a connected accessor finished (trigger `ProbeFinished`, seed 000, "ClusterCache
 * Reconciler" rows 8-11, through the Health Checking table).
 *
 * Expected flow: success resets the failures and goes on to `PhasesComplete` with the probe
 * interval (row 8); a failure counts and goes on with Error Handling's requeue (row 9); the
 * failure threshold (row 10) or a 401 (row 11) disconnects the accessor first.
 *
 * Guarantees: disconnect when the failure threshold is reached or at once on a 401, requeueing
 * after the retry interval or 1 ms.
 *
 * @module
 */
import type { ReconcilerAction } from "./actions.ts"
import type { ClusterCacheConfig } from "./config.ts"
import { healthTransition, type ProbeOutcome, probeSucceeded, SUCCESS_METRICS } from "./health.ts"
import { complete, disconnectAccessor, NO_DESIRED, requeueFor, thenComplete } from "./reconcilerActions.ts"
import { RECONCILER_ROWS, type ReconcilerResult } from "./reconcilerTable.ts"
import type { AccessorState } from "./state.ts"

const PROBE_RESULT = {
  success: { _tag: "ProbeResult", outcome: "success" },
  failure: { _tag: "ProbeResult", outcome: "failure" },
  unauthorized: { _tag: "ProbeResult", outcome: "unauthorized" },
} as const

/** The probe of a connected accessor finished: rows 8-11 (a disconnected one is row 16, the caller's). */
export const probeFinished = (
  accessor: AccessorState,
  outcome: ProbeOutcome,
  now: number,
  config: ClusterCacheConfig,
): ReconcilerResult => {
  // The Health Checking table, row 3, for a connected accessor.
  if (outcome === "success") {
    return {
      actions: thenComplete(SUCCESS_METRICS as ReadonlyArray<ReconcilerAction>, config.healthProbe.interval),
      status: { accessor: probeSucceeded(accessor, now), done: false },
      row: RECONCILER_ROWS.probeSucceeded,
    }
  }
  const health = healthTransition(
    { observed: accessor, desired: NO_DESIRED, trigger: PROBE_RESULT[outcome], now },
    config,
  )
  const { tooManyConsecutiveFailures, unauthorizedErrorOccurred } = health.status
  const metrics = health.actions as ReadonlyArray<ReconcilerAction>
  const probed = health.status.accessor
  const after = requeueFor(
    { _tag: "HealthProbeFailed", unauthorized: unauthorizedErrorOccurred },
    probed.consecutiveFailures,
    now,
    config,
  )
  if (!tooManyConsecutiveFailures && !unauthorizedErrorOccurred) {
    return {
      actions: thenComplete(metrics, after),
      status: { accessor: probed, done: false },
      row: RECONCILER_ROWS.probeFailed,
    }
  }
  const disconnect = disconnectAccessor(probed, now, config)
  return {
    actions: [...metrics, ...disconnect.actions, complete(false, true, after)],
    status: { accessor: disconnect.status.accessor, done: false },
    row: unauthorizedErrorOccurred ? RECONCILER_ROWS.unauthorized : RECONCILER_ROWS.threshold,
  }
}
