/**
 * Error Handling (seed 000), transcribed row by row.
 *
 * @module
 */
import type { ClusterCacheConfig, ErrorsInput, ErrorsResult } from "../../core/clustercache/index.ts"
import type { TableSpec } from "../../core/krtt/index.ts"
import { has, rowsFor } from "../builder.ts"

const { doc } = rowsFor<ErrorsInput, ErrorsResult, ClusterCacheConfig>([
  "Error Type",
  "Behavior",
  "Requeue Strategy",
])

const kind = (i: ErrorsInput) => i.trigger._tag
const unauthorized = (i: ErrorsInput) => i.trigger._tag === "HealthProbeFailed" && i.trigger.unauthorized
const requeuesAfter = (r: ErrorsResult, ms: number) =>
  r.status.requeue._tag === "After" &&
  r.status.requeue.after === ms &&
  has(r.actions, "Requeue", (a) => a._tag === "Requeue" && a.after === ms)
const disconnects = (r: ErrorsResult) => r.status.disconnect && has(r.actions, "Disconnect")

export const errors: TableSpec<ErrorsInput, ErrorsResult, ClusterCacheConfig> = {
  id: "clustercache.errors",
  source: "000_4ff6953847f6de6f.txt",
  title: "Error Handling",
  columns: ["Error Type", "Behavior", "Requeue Strategy"],
  rows: [
    doc(
      1,
      [
        "`ClusterNotConnectedError`",
        "Returned when cluster has no active connection (accessor=nil or connection=nil)",
        "Caller should handle gracefully",
      ],
      {
        applies: (i) => kind(i) === "ClusterNotConnectedError",
        holds: (_, r) =>
          r.status.requeue._tag === "CallerHandles" &&
          has(r.actions, "ReturnError") &&
          !has(r.actions, "Requeue"),
      },
    ),
    doc(
      2,
      [
        "Connection creation failed",
        "Set `lastConnectionCreationErrorTime`, increment `consecutiveFailures`, set `lastProbeTime`",
        "Requeue after `ConnectionCreationRetryInterval` (30s)",
      ],
      {
        applies: (i) => kind(i) === "ConnectionCreationFailed",
        holds: (_, r, c) => requeuesAfter(r, c.connectionCreationRetryInterval) && !r.status.disconnect,
      },
    ),
    doc(
      3,
      [
        "Health probe failed (non-auth)",
        "Increment `consecutiveFailures`, update metrics",
        "Requeue after `HealthProbe.Interval` (10s)",
      ],
      {
        applies: (i) => kind(i) === "HealthProbeFailed" && !unauthorized(i),
        holds: (_, r, c) => requeuesAfter(r, c.healthProbe.interval) && !r.status.disconnect,
      },
    ),
    doc(
      4,
      [
        "Health probe unauthorized (401)",
        "`unauthorizedErrorOccurred=true`, immediate disconnect",
        "Immediate requeue (1ms)",
      ],
      {
        applies: unauthorized,
        holds: (_, r, c) => requeuesAfter(r, c.unauthorizedRequeueAfter) && disconnects(r),
        reason:
          "Wins over row 5 when the 401 is also the threshold failure: the kubeconfig may have been rotated, so the reconnect is tried at once.",
      },
    ),
    doc(
      5,
      [
        "`consecutiveFailures >= FailureThreshold`",
        "`tooManyConsecutiveFailures=true`, disconnect",
        "Requeue after `ConnectionCreationRetryInterval` (30s)",
      ],
      {
        applies: (i, c) =>
          kind(i) === "HealthProbeFailed" && i.observed.consecutiveFailures >= c.healthProbe.failureThreshold,
        holds: (_, r, c) => requeuesAfter(r, c.connectionCreationRetryInterval) && disconnects(r),
        reason:
          "Wins over row 3: the failure that reaches the threshold disconnects. `consecutiveFailures` counts the failure at hand.",
      },
    ),
    doc(
      6,
      [
        "Cluster not found (GET)",
        "`Disconnect()`, delete accessor, cleanup sources",
        "No requeue (return nil)",
      ],
      {
        applies: (i) => kind(i) === "ClusterNotFound",
        holds: (_, r) =>
          r.status.requeue._tag === "None" &&
          has(r.actions, "Disconnect") &&
          has(r.actions, "DeleteAccessor") &&
          has(r.actions, "CleanupSources") &&
          !has(r.actions, "Requeue"),
      },
    ),
    doc(
      7,
      [
        "Error getting Cluster object",
        "Log error, return with requeue",
        "Requeue after `defaultRequeueAfter` (10s)",
      ],
      {
        applies: (i) => kind(i) === "ClusterGetFailed",
        holds: (_, r, c) =>
          requeuesAfter(r, c.defaultRequeueAfter) && has(r.actions, "Log") && !r.status.disconnect,
      },
    ),
  ],
  priority: [4, 5],
  resolutions: [
    "Row 4 over row 5 over row 3 for health probe failures: a 401 first, then the threshold, then a plain failure.",
  ],
}
