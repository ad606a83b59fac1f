// Error Handling (seed 000, "Error Handling"), each row's whole result: the spec holds the
// requeue and the flags; this holds the actions too, in order, with the documented and with
// other durations.
import { describe, expect, it } from "vitest"
import { type ClusterCacheConfig, ClusterCacheDefaults, clusterCacheConfig } from "./config.ts"
import { type ClusterCacheErrorKind, errorsTransition } from "./errors.ts"

const run = (trigger: ClusterCacheErrorKind, consecutiveFailures = 1, config?: ClusterCacheConfig) =>
  errorsTransition({ observed: { consecutiveFailures }, desired: {}, trigger, now: 0 }, config)

describe("Error Handling, whole results", () => {
  it("ClusterNotConnectedError: returned to the caller, nothing else (row 1)", () => {
    expect(run({ _tag: "ClusterNotConnectedError" })).toEqual({
      actions: [{ _tag: "ReturnError", error: "ClusterNotConnectedError" }],
      status: { requeue: { _tag: "CallerHandles" }, disconnect: false, removeAccessor: false },
      row: "clustercache.errors#1",
    })
  })

  it("connection creation failed: requeue after the retry interval, 30 s (row 2)", () => {
    expect(run({ _tag: "ConnectionCreationFailed" })).toEqual({
      actions: [{ _tag: "Requeue", after: 30_000 }],
      status: { requeue: { _tag: "After", after: 30_000 }, disconnect: false, removeAccessor: false },
      row: "clustercache.errors#2",
    })
  })

  it("a failed probe below the threshold: requeue after the probe interval, 10 s (row 3)", () => {
    expect(run({ _tag: "HealthProbeFailed", unauthorized: false }, 4)).toEqual({
      actions: [{ _tag: "Requeue", after: 10_000 }],
      status: { requeue: { _tag: "After", after: 10_000 }, disconnect: false, removeAccessor: false },
      row: "clustercache.errors#3",
    })
  })

  it("a 401: disconnect, requeue after 1 ms, even at the threshold (row 4)", () => {
    for (const failures of [1, 5]) {
      expect(run({ _tag: "HealthProbeFailed", unauthorized: true }, failures)).toEqual({
        actions: [{ _tag: "Disconnect" }, { _tag: "Requeue", after: 1 }],
        status: { requeue: { _tag: "After", after: 1 }, disconnect: true, removeAccessor: false },
        row: "clustercache.errors#4",
      })
    }
  })

  it("the failure threshold met: disconnect, requeue after the retry interval (row 5)", () => {
    expect(run({ _tag: "HealthProbeFailed", unauthorized: false }, 5)).toEqual({
      actions: [{ _tag: "Disconnect" }, { _tag: "Requeue", after: 30_000 }],
      status: { requeue: { _tag: "After", after: 30_000 }, disconnect: true, removeAccessor: false },
      row: "clustercache.errors#5",
    })
  })

  it("the Cluster not found: disconnect, delete the accessor, clean up the sources, no requeue (row 6)", () => {
    expect(run({ _tag: "ClusterNotFound" })).toEqual({
      actions: [{ _tag: "Disconnect" }, { _tag: "DeleteAccessor" }, { _tag: "CleanupSources" }],
      status: { requeue: { _tag: "None" }, disconnect: true, removeAccessor: true },
      row: "clustercache.errors#6",
    })
  })

  it("an error getting the Cluster: log it as upstream does, requeue after 10 s (row 7)", () => {
    expect(run({ _tag: "ClusterGetFailed" })).toEqual({
      actions: [
        { _tag: "Log", message: "Requeuing after 10s (error getting Cluster object)" },
        { _tag: "Requeue", after: 10_000 },
      ],
      status: { requeue: { _tag: "After", after: 10_000 }, disconnect: false, removeAccessor: false },
      row: "clustercache.errors#7",
    })
  })

  it("follows a configured duration in every row", () => {
    const config = clusterCacheConfig({
      connectionCreationRetryInterval: 45_000,
      defaultRequeueAfter: 90_000,
      unauthorizedRequeueAfter: 7,
      healthProbe: { ...ClusterCacheDefaults.healthProbe, interval: 15_000, failureThreshold: 2 },
    })
    const actionsOf = (trigger: ClusterCacheErrorKind, failures = 1) => run(trigger, failures, config).actions
    expect(actionsOf({ _tag: "ConnectionCreationFailed" })).toEqual([{ _tag: "Requeue", after: 45_000 }])
    expect(actionsOf({ _tag: "HealthProbeFailed", unauthorized: false })).toEqual([
      { _tag: "Requeue", after: 15_000 },
    ])
    expect(actionsOf({ _tag: "HealthProbeFailed", unauthorized: false }, 2)).toEqual([
      { _tag: "Disconnect" },
      { _tag: "Requeue", after: 45_000 },
    ])
    expect(actionsOf({ _tag: "HealthProbeFailed", unauthorized: true })).toEqual([
      { _tag: "Disconnect" },
      { _tag: "Requeue", after: 7 },
    ])
    expect(actionsOf({ _tag: "ClusterGetFailed" })).toEqual([
      { _tag: "Log", message: "Requeuing after 1m30s (error getting Cluster object)" },
      { _tag: "Requeue", after: 90_000 },
    ])
  })
})
