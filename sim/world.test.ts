import { describe, expect, it } from "vitest"
import { observeCluster } from "./observeCluster.ts"
import { CLUSTER_VIEWS, deepEqual, Slot, slotName } from "./world.ts"

describe("deepEqual", () => {
  it("compares JSON-like values structurally", () => {
    expect(deepEqual({ a: [1, { b: "x" }], c: true }, { c: true, a: [1, { b: "x" }] })).toBe(true)
    expect(deepEqual({ a: 1 }, { a: 1, b: undefined })).toBe(false)
    expect(deepEqual({ a: [1, 2] }, { a: [1, 2, 3] })).toBe(false)
    expect(deepEqual([], {})).toBe(false)
    expect(deepEqual(null, {})).toBe(false)
  })
})

describe("Slot", () => {
  it("names generations and shows the ClusterCache the Cluster's view", () => {
    const s = new Slot(42, 1)
    expect(s.clusterView()).toBe(4)
    expect(CLUSTER_VIEWS[s.clusterView()]).toEqual({ _tag: "NotFound" })
    s.newCluster(0, 1_000)
    expect(s.name).toBe(slotName(42))
    expect(s.name).toBe("cluster-00042")
    expect(CLUSTER_VIEWS[s.clusterView()]).toEqual({
      _tag: "Found",
      infrastructureProvisioned: false,
      deleting: false,
    })
    s.status = { initialization: { infrastructureProvisioned: true } }
    s.deletionTimestamp = "2025-01-01T00:00:00Z"
    expect(CLUSTER_VIEWS[s.clusterView()]).toEqual({
      _tag: "Found",
      infrastructureProvisioned: true,
      deleting: true,
    })
    s.newCluster(1, 2_000)
    expect(s.name).toBe("cluster-00042-1")
  })

  it("builds what the Cluster controller reads: provider objects, descendants, the remote connection", () => {
    const s = new Slot(3, 1)
    s.newCluster(0, 0)
    s.workers.push({ name: "cluster-00003-md-0", machines: 2, deleting: false, gone: false })
    s.infraProvisioned = true
    const o = observeCluster(
      s,
      {
        connected: true,
        consecutiveFailures: 0,
        watches: [],
        lastEventSent: {},
        privateKeyGenerated: false,
        lastProbeSuccessTime: 9,
      },
      0,
      10,
    )
    expect(o.cluster._tag).toBe("Found")
    expect(
      o.infrastructure._tag === "Found" && o.infrastructure.object.status?.initialization?.provisioned,
    ).toBe(true)
    expect(
      o.controlPlane._tag === "Found" &&
        o.controlPlane.object.status?.initialization?.controlPlaneInitialized,
    ).toBe(false)
    expect(o.descendants._tag === "Listed" && o.descendants.machines.length).toBe(2)
    expect(o.kubeconfigSecret._tag).toBe("NotFound")
    expect(o.remoteConnection).toEqual({ lastProbeSuccessTime: 9 })
  })
})
