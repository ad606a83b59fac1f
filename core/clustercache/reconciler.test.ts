// Whole results of ClusterCache Reconciler rows: the stale results (row 16, ours: upstream runs
// Connect and the probe inside one reconcile, so no result can outlive its accessor there), the
// events at the end of a reconcile (row 12) and the created accessor (row 1).
import { describe, expect, it } from "vitest"
import { ClusterCacheDefaults } from "./config.ts"
import { type ReconcilerInput, reconcilerTransition } from "./reconciler.ts"
import { newAccessor } from "./state.ts"

const input = (o: Partial<ReconcilerInput>): ReconcilerInput => ({
  observed: {},
  desired: { cluster: { _tag: "Found", infrastructureProvisioned: true, deleting: false }, sources: [] },
  trigger: { _tag: "Reconcile" },
  now: 1_000,
  ...o,
})

describe("ClusterCache Reconciler, stale results (row 16)", () => {
  it("drops a result for an accessor that is gone, and ends the reconcile", () => {
    expect(reconcilerTransition(input({ trigger: { _tag: "ProbeFinished", outcome: "success" } }))).toEqual({
      actions: [{ _tag: "Log", message: "Dropping a result for a removed accessor" }],
      status: { accessor: undefined, done: true },
      row: "clustercache.reconciler#16",
    })
  })

  it("drops a successful connect for an accessor no longer connecting, and requeues after the default", () => {
    const r = reconcilerTransition(
      input({ observed: { accessor: newAccessor }, trigger: { _tag: "ConnectFinished", ok: true } }),
    )
    expect(r).toEqual({
      actions: [
        { _tag: "Log", message: "Dropping a stale result" },
        { _tag: "Requeue", after: ClusterCacheDefaults.defaultRequeueAfter },
      ],
      status: { accessor: newAccessor, done: true, requeueAfter: 10_000 },
      row: "clustercache.reconciler#16",
    })
  })
})

describe("ClusterCache Reconciler, events at the end of a reconcile (row 12)", () => {
  it("records the new event's time for its source and keeps the other sources' times", () => {
    const accessor = { ...newAccessor, connected: true, lastProbeSuccessTime: 0, lastEventSent: { a: 500 } }
    const r = reconcilerTransition(
      input({
        observed: { accessor },
        desired: {
          cluster: { _tag: "Found", infrastructureProvisioned: true, deleting: false },
          sources: [
            { name: "a", probeFailureDurations: [] },
            { name: "b", probeFailureDurations: [100] },
          ],
        },
        trigger: { _tag: "PhasesComplete", didConnect: false, didDisconnect: false, requeueAfter: [10_000] },
      }),
    )
    expect(r.actions).toEqual([
      { _tag: "SendEvent", source: "b", reasons: ["health probe didn't succeed since more than 100ms"] },
      { _tag: "Requeue", after: 10_000 },
    ])
    expect(r.status.accessor?.lastEventSent).toEqual({ a: 500, b: 1_000 })
    // a pure function: the accessor it was given is as it was
    expect(accessor.lastEventSent).toEqual({ a: 500 })
  })
})

describe("ClusterCache Reconciler, a Cluster without an accessor (row 1)", () => {
  it("creates the accessor, not connected, and goes on with the same reconcile", () => {
    expect(reconcilerTransition(input({}))).toEqual({
      actions: [{ _tag: "CreateAccessor" }, { _tag: "Continue", trigger: { _tag: "Reconcile" } }],
      status: { accessor: newAccessor, done: false },
      row: "clustercache.reconciler#1",
    })
  })
})
