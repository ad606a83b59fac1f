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
import { type AccessorState, accessorState, remaining } from "./state.ts"

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
export const SUCCESS_METRICS: ReadonlyArray<HealthAction> = [
  { _tag: "SetHealthCheck", value: 1 },
  { _tag: "IncHealthChecksTotal", status: "success" },
]
const ERROR_METRICS: ReadonlyArray<HealthAction> = [
  { _tag: "SetHealthCheck", value: 0 },
  { _tag: "IncHealthChecksTotal", status: "error" },
]
const NONE: ReadonlyArray<HealthAction> = []
// Stryker disable all
let probeTimeout = Number.NaN
let probeActions: ReadonlyArray<HealthAction> = []
/** `[Probe "/" timeout]`, shared while the timeout stays the same (actions are immutable data). */
export const probeActionsFor = (timeout: number): ReadonlyArray<HealthAction> => {
  if (timeout !== probeTimeout) {
    probeActions = [{ _tag: "Probe", path: "/", timeout }]
    probeTimeout = timeout
  }
  return probeActions
}
// Stryker restore all

/** Row 2 against row 7: whether a connected accessor is due for a probe. */
export const probeDue = (a: AccessorState, now: number, config: ClusterCacheConfig): boolean =>
  remaining(now, a.lastProbeTime, config.healthProbe.interval) <= 0

/** Row 2: the accessor once the probe starts (`lastProbeTime = now`). */
export const probeStarted = (a: AccessorState, now: number): AccessorState =>
  accessorState(
    a.connected,
    a.lastConnectionCreationErrorTime,
    now,
    a.lastProbeSuccessTime,
    a.consecutiveFailures,
    a.watches,
    a.lastEventSent,
    a.privateKeyGenerated,
  )

/** Row 3: the accessor after a successful probe (no failures, `lastProbeSuccessTime = now`). */
export const probeSucceeded = (a: AccessorState, now: number): AccessorState =>
  accessorState(
    a.connected,
    a.lastConnectionCreationErrorTime,
    a.lastProbeTime,
    now,
    0,
    a.watches,
    a.lastEventSent,
    a.privateKeyGenerated,
  )

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
    if (!probeDue(a, now, config)) {
      return { actions: NONE, status: unchanged(a), row: ROW.notDue }
    }
    return {
      actions: probeActionsFor(probe.timeout),
      status: unchanged(probeStarted(a, now)),
      row: ROW.probe,
    }
  }
  if (trigger.outcome === "success") {
    return { actions: SUCCESS_METRICS, status: unchanged(probeSucceeded(a, now)), row: ROW.success }
  }
  const consecutiveFailures = a.consecutiveFailures + 1
  const tooMany = consecutiveFailures >= probe.failureThreshold
  const accessor = accessorState(
    a.connected,
    a.lastConnectionCreationErrorTime,
    a.lastProbeTime,
    a.lastProbeSuccessTime,
    consecutiveFailures,
    a.watches,
    a.lastEventSent,
    a.privateKeyGenerated,
  )
  const unauthorized = trigger.outcome === "unauthorized"
  return {
    actions: ERROR_METRICS,
    status: { accessor, tooManyConsecutiveFailures: tooMany, unauthorizedErrorOccurred: unauthorized },
    row: unauthorized ? ROW.unauthorized : tooMany ? ROW.threshold : ROW.failure,
  }
}
