/**
 * Health Checking (seed 000), transcribed row by row.
 *
 * @module
 */

import type { ClusterCacheConfig, HealthInput, HealthResult } from "../../core/clustercache/index.ts"
import type { TableSpec } from "../../core/krtt/index.ts"
import { count, has, KRTT_COLUMNS, rowsFor } from "../builder.ts"
import { logsDocumented, sameState } from "./equal.ts"

const { doc, derived } = rowsFor<HealthInput, HealthResult, ClusterCacheConfig>(KRTT_COLUMNS)

const probeResult = (i: HealthInput) => (i.trigger._tag === "ProbeResult" ? i.trigger.outcome : undefined)
const due = (i: HealthInput, c: ClusterCacheConfig) =>
  i.observed.lastProbeTime === undefined || i.now - i.observed.lastProbeTime >= c.healthProbe.interval
const nothingChanged = (i: HealthInput, r: HealthResult) =>
  sameState(r.status.accessor, i.observed) &&
  !r.status.tooManyConsecutiveFailures &&
  !r.status.unauthorizedErrorOccurred &&
  !has(r.actions, "Probe")
const sameExcept = (i: HealthInput, r: HealthResult, fields: Record<string, unknown>) =>
  sameState(r.status.accessor, { ...i.observed, ...fields })
const errorMetrics = (r: HealthResult) =>
  has(r.actions, "SetHealthCheck", (a) => a._tag === "SetHealthCheck" && a.value === 0) &&
  has(r.actions, "IncHealthChecksTotal", (a) => a._tag === "IncHealthChecksTotal" && a.status === "error") &&
  count(r.actions, "IncHealthChecksTotal") === 1
const failed = (i: HealthInput, r: HealthResult) =>
  sameExcept(i, r, { consecutiveFailures: i.observed.consecutiveFailures + 1 }) && errorMetrics(r)

export const health: TableSpec<HealthInput, HealthResult, ClusterCacheConfig> = {
  id: "clustercache.health",
  source: "000_4ff6953847f6de6f.txt",
  title: "Health Checking",
  columns: KRTT_COLUMNS,
  rows: [
    doc(
      1,
      [
        "Not connected",
        "N/A",
        "`HealthCheck()` called",
        'Skip with log "Skipping health check, not connected", return `(false, false)`',
        "No change",
      ],
      {
        applies: (i) => !i.observed.connected,
        holds: (i, r) =>
          nothingChanged(i, r) && logsDocumented(r.actions, "Skipping health check, not connected"),
        reason: "Also governs a probe result that arrives after the connection went away: it is dropped.",
      },
    ),
    doc(
      2,
      [
        "`lastProbeTime` > interval ago",
        "Connected",
        "`HealthCheck()` called",
        'Execute `GET /` against apiserver via `restClient.Get().AbsPath("/").Timeout(5s).DoRaw(ctx)`',
        "`lastProbeTime=now`",
      ],
      {
        applies: (i, c) => i.observed.connected && i.trigger._tag === "HealthCheck" && due(i, c),
        holds: (i, r, c) =>
          count(r.actions, "Probe") === 1 &&
          has(
            r.actions,
            "Probe",
            (a) => a._tag === "Probe" && a.path === "/" && a.timeout === c.healthProbe.timeout,
          ) &&
          sameExcept(i, r, { lastProbeTime: i.now }),
        reason:
          "A probe is due once the interval has fully elapsed (`>=`), as `shouldRequeue()` requeues only while less time has passed.",
      },
    ),
    doc(
      3,
      [
        "Probe succeeded",
        "Connected",
        "200 OK response",
        "Reset failures, update success time, update metrics",
        "`consecutiveFailures=0`, `lastProbeSuccessTime=now`, `healthCheck=1`, `healthChecksTotal{status=success}++`",
      ],
      {
        applies: (i) => i.observed.connected && probeResult(i) === "success",
        holds: (i, r) =>
          sameExcept(i, r, { consecutiveFailures: 0, lastProbeSuccessTime: i.now }) &&
          has(r.actions, "SetHealthCheck", (a) => a._tag === "SetHealthCheck" && a.value === 1) &&
          has(
            r.actions,
            "IncHealthChecksTotal",
            (a) => a._tag === "IncHealthChecksTotal" && a.status === "success",
          ) &&
          !r.status.tooManyConsecutiveFailures &&
          !r.status.unauthorizedErrorOccurred,
      },
    ),
    doc(
      4,
      [
        "Probe failed (non-auth)",
        "Connected",
        "Non-2xx or timeout",
        "Increment failure counter, log with threshold info, update metrics",
        "`consecutiveFailures++`, `healthCheck=0`, `healthChecksTotal{status=error}++`",
      ],
      {
        applies: (i) => i.observed.connected && probeResult(i) === "failure",
        holds: (i, r) =>
          failed(i, r) && !r.status.tooManyConsecutiveFailures && !r.status.unauthorizedErrorOccurred,
      },
    ),
    doc(
      5,
      [
        "Probe failed (unauthorized)",
        "Connected",
        "401 Unauthorized via `apierrors.IsUnauthorized()`",
        "Signal immediate disconnect, increment failures",
        "`consecutiveFailures++`, returns `(tooManyConsecutiveFailures, unauthorizedErrorOccurred=true)`",
      ],
      {
        applies: (i) => i.observed.connected && probeResult(i) === "unauthorized",
        holds: (i, r, c) =>
          failed(i, r) &&
          r.status.unauthorizedErrorOccurred &&
          r.status.tooManyConsecutiveFailures ===
            i.observed.consecutiveFailures + 1 >= c.healthProbe.failureThreshold,
        reason:
          "Wins over row 6 when the 401 is also the failure that reaches the threshold: both signal a disconnect, and the 401 one asks for the immediate requeue (Error Handling, row 4) so a rotated kubeconfig is picked up at once.",
      },
    ),
    doc(
      6,
      [
        "`consecutiveFailures >= 5`",
        "Connected",
        "Threshold (`HealthProbe.FailureThreshold`) exceeded",
        "Signal disconnect needed",
        "Returns `(tooManyConsecutiveFailures=true, unauthorizedErrorOccurred)`",
      ],
      {
        applies: (i, c) =>
          i.observed.connected &&
          (probeResult(i) === "failure" || probeResult(i) === "unauthorized") &&
          i.observed.consecutiveFailures + 1 >= c.healthProbe.failureThreshold,
        holds: (i, r) =>
          failed(i, r) && r.status.tooManyConsecutiveFailures && !r.status.unauthorizedErrorOccurred,
        reason:
          "Checked on the probe failure that brings the counter to the threshold (the count after the increment), so the disconnect happens exactly at the fifth consecutive failure. Wins over row 4.",
      },
    ),
    derived(
      7,
      ["`lastProbeTime` within interval", "Connected", "`HealthCheck()` called", "No probe", "No change"],
      {
        applies: (i, c) => i.observed.connected && i.trigger._tag === "HealthCheck" && !due(i, c),
        holds: (i, r) => nothingChanged(i, r) && r.actions.length === 0,
        reason:
          "Gap: row 2 covers a due probe only. Upstream's reconciler never calls HealthCheck() before the interval elapsed (ClusterCache Reconciler, derived row 15); a call that comes early changes nothing.",
      },
    ),
  ],
  priority: [1, 5, 6],
  resolutions: [
    "Row 1 first: nothing is probed or counted without a connection.",
    "Row 5 over row 6: a 401 that is also the threshold failure is handled as a 401 (immediate requeue).",
    "Row 6 over row 4: the failure that reaches the threshold signals the disconnect.",
    "lastProbeTime is set when the probe starts (row 2: HealthCheck() called, lastProbeTime=now), as the seed writes it. Upstream Cluster API's newer code sets it when the probe returns. The seed is followed because it is the source of this table and because it measures the interval from start to start: a probe that hangs until its 5 s timeout does not push the next one out to 15 s, so the cadence a user configures is the cadence they get (the simulator's probe-interval check allows interval + timeout either way).",
  ],
}
