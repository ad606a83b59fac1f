/**
 * Health Checking (seed 000): `clusterAccessor.HealthCheck()` as a pure transition.
 *
 * Expected flow: `HealthCheck` while connected and due → row 2 asks for `GET /` with the probe
 * timeout and records `lastProbeTime`; the probe's outcome comes back as `ProbeResult` and rows
 * 3-6 update the failure counter, the success time and the metrics, and say whether the caller
 * must disconnect: `(tooManyConsecutiveFailures, unauthorizedErrorOccurred)`.
 *
 * Guarantees: the failure counter only grows by one per probe; the disconnect signal is raised
 * exactly when the counter reaches the threshold, or at once on a 401.
 *
 * @module
 */
import { type RowId, rowId, type TransitionInput, type TransitionResult } from "../krtt/index.ts"
import type { HealthAction } from "./actions.ts"
import type { ClusterCacheConfig } from "./config.ts"
import { ClusterCacheDefaults } from "./config.ts"
import { type AccessorState, remaining } from "./state.ts"

export const HEALTH = "clustercache.health"

export type ProbeOutcome = "success" | "failure" | "unauthorized"

export type HealthTrigger =
  /** `HealthCheck()` called. */
  | { readonly _tag: "HealthCheck" }
  /** The probe returned: 2xx, a non-auth error or timeout, or a 401. */
  | { readonly _tag: "ProbeResult"; readonly outcome: ProbeOutcome }

export interface HealthStatus {
  readonly accessor: AccessorState
  readonly tooManyConsecutiveFailures: boolean
  readonly unauthorizedErrorOccurred: boolean
}

/** The table has no desired-state column of its own beyond "Connected". */
export type HealthDesired = Readonly<Record<string, never>>

export type HealthInput = TransitionInput<AccessorState, HealthDesired, HealthTrigger>
export type HealthResult = TransitionResult<HealthAction, HealthStatus>

const r = (n: number): RowId => rowId(HEALTH, n)
const ROW = {
  notConnected: r(1),
  probe: r(2),
  success: r(3),
  failure: r(4),
  unauthorized: r(5),
  threshold: r(6),
  notDue: r(7),
}

const SKIP_NOT_CONNECTED: ReadonlyArray<HealthAction> = [
  { _tag: "Log", message: "Skipping health check, not connected" },
]
const SUCCESS_METRICS: ReadonlyArray<HealthAction> = [
  { _tag: "SetHealthCheck", value: 1 },
  { _tag: "IncHealthChecksTotal", status: "success" },
]
const ERROR_METRICS: ReadonlyArray<HealthAction> = [
  { _tag: "SetHealthCheck", value: 0 },
  { _tag: "IncHealthChecksTotal", status: "error" },
]
const NONE: ReadonlyArray<HealthAction> = []

const unchanged = (accessor: AccessorState) => ({
  accessor,
  tooManyConsecutiveFailures: false,
  unauthorizedErrorOccurred: false,
})

/** Health Checking as a transition. */
export const healthTransition = (
  input: HealthInput,
  config: ClusterCacheConfig = ClusterCacheDefaults,
): HealthResult => {
  const { observed: a, trigger, now } = input
  const probe = config.healthProbe
  if (!a.connected) return { actions: SKIP_NOT_CONNECTED, status: unchanged(a), row: ROW.notConnected }
  if (trigger._tag === "HealthCheck") {
    if (remaining(now, a.lastProbeTime, probe.interval) > 0) {
      return { actions: NONE, status: unchanged(a), row: ROW.notDue }
    }
    return {
      actions: [{ _tag: "Probe", path: "/", timeout: probe.timeout }],
      status: unchanged({ ...a, lastProbeTime: now }),
      row: ROW.probe,
    }
  }
  if (trigger.outcome === "success") {
    return {
      actions: SUCCESS_METRICS,
      status: unchanged({ ...a, consecutiveFailures: 0, lastProbeSuccessTime: now }),
      row: ROW.success,
    }
  }
  const consecutiveFailures = a.consecutiveFailures + 1
  const tooMany = consecutiveFailures >= probe.failureThreshold
  const accessor = { ...a, consecutiveFailures }
  const unauthorized = trigger.outcome === "unauthorized"
  return {
    actions: ERROR_METRICS,
    status: { accessor, tooManyConsecutiveFailures: tooMany, unauthorizedErrorOccurred: unauthorized },
    row: unauthorized ? ROW.unauthorized : tooMany ? ROW.threshold : ROW.failure,
  }
}
