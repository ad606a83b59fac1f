// whyReconcile: the deciding row of every table view of one reconcile, in the order of the docs,
// and what each waits on, named by object, field and value (krtt why).
import { describe, expect, it } from "vitest"
import { ClusterControllerDefaults } from "./config.ts"
import type { ClusterInput, ClusterSpec, ClusterStatus, Descendants, ObjectMeta } from "./types.ts"
import { whyReconcile } from "./why.ts"

const NOW = Date.UTC(2026, 0, 1)
const infraRef = { apiGroup: "infrastructure.cluster.x-k8s.io", kind: "DockerCluster", name: "c1" }
const cpRef = { apiGroup: "controlplane.cluster.x-k8s.io", kind: "KubeadmControlPlane", name: "c1-cp" }
const EMPTY: Descendants = {
  _tag: "Listed",
  machineDeployments: [],
  machineSets: [],
  machinePools: [],
  machines: [],
}
const NOT_PAUSED: ClusterStatus = {
  conditions: [{ type: "Paused", status: "False", reason: "NotPaused", observedGeneration: 1 }],
}
const DELETING: ClusterStatus = {
  conditions: [...(NOT_PAUSED.conditions ?? []), { type: "Deleting", status: "True", reason: "Deleting" }],
}
const DELETED_AT = "2026-01-01T00:00:00Z"

const input = (
  o: {
    spec?: ClusterSpec
    meta?: Partial<ObjectMeta>
    status?: ClusterStatus
    observed?: Partial<ClusterInput["observed"]>
  } = {},
): ClusterInput => ({
  observed: {
    cluster: {
      _tag: "Found",
      object: {
        metadata: {
          name: "c1",
          namespace: "default",
          generation: 1,
          finalizers: ["cluster.cluster.x-k8s.io"],
          ...o.meta,
        },
        status: o.status ?? NOT_PAUSED,
      },
    },
    clusterClass: { _tag: "NotFound" },
    infrastructure: { _tag: "NotFound" },
    controlPlane: { _tag: "NotFound" },
    descendants: EMPTY,
    kubeconfigSecret: { _tag: "Found" },
    featureGates: { runtimeSDK: false, clusterTopology: false, machinePool: true },
    remoteConnection: {},
    ...o.observed,
  },
  desired: o.spec ?? {},
  trigger: { _tag: "Reconcile" },
  now: NOW,
})

const why = (i: ClusterInput) => whyReconcile(i, ClusterControllerDefaults, "default")
const infra = (status: object) => ({
  _tag: "Found" as const,
  object: { metadata: { name: "c1", namespace: "default" }, status },
})

describe("whyReconcile", () => {
  it("a Cluster waiting for its InfraCluster names it and the field, in the Normal and infrastructure views", () => {
    const r = why(input({ spec: { infrastructureRef: infraRef }, observed: { infrastructure: infra({}) } }))
    const wait = "DockerCluster default/c1 status.initialization.provisioned is not true"
    expect(r.rows).toEqual([
      { table: "cluster.normal", row: "cluster.normal#12", waitingOn: wait },
      { table: "cluster.infrastructure", row: "cluster.infrastructure#2", waitingOn: wait },
      { table: "cluster.controlplane", row: "cluster.controlplane#1" },
    ])
    // a row that waits on nothing carries no waitingOn at all
    expect(r.rows[2]).toStrictEqual({ table: "cluster.controlplane", row: "cluster.controlplane#1" })
    expect(r.status?.phase).toBe("Provisioning")
  })

  it("a provider object that does not exist yet, or cannot be read, is named with why", () => {
    const missing = why(input({ spec: { controlPlaneRef: cpRef } }))
    expect(missing.rows[0]).toEqual({
      table: "cluster.normal",
      row: "cluster.normal#9",
      waitingOn: "KubeadmControlPlane default/c1-cp cannot be read: NotFound",
    })
    const failed = why(
      input({
        spec: { infrastructureRef: infraRef },
        observed: { infrastructure: { _tag: "GetFailed", error: "boom" } },
      }),
    )
    expect(failed.rows.map((r) => r.row)).toEqual([
      "cluster.normal#15",
      "cluster.infrastructure#7",
      "cluster.controlplane#1",
      "cluster.errors#5",
    ])
    expect(failed.rows[1]?.waitingOn).toBe("DockerCluster default/c1 cannot be read: boom")
    expect(failed.rows[3]?.waitingOn).toBeUndefined()
  })

  it("names the control plane and its field, or why it cannot be read", () => {
    const waiting = why(input({ spec: { controlPlaneRef: cpRef }, observed: { controlPlane: infra({}) } }))
    expect(waiting.rows[2]).toStrictEqual({
      table: "cluster.controlplane",
      row: "cluster.controlplane#2",
      waitingOn:
        "KubeadmControlPlane default/c1-cp status.initialization.controlPlaneInitialized is not true",
    })
    const failed = why(
      input({
        spec: { controlPlaneRef: cpRef },
        observed: { controlPlane: { _tag: "GetFailed", error: "boom-cp" } },
      }),
    )
    expect(failed.rows[2]?.waitingOn).toBe("KubeadmControlPlane default/c1-cp cannot be read: boom-cp")
  })

  it("names the gate a Cluster waits at before the phases", () => {
    const finalizer = why(input({ meta: { finalizers: [] } }))
    expect(finalizer.rows).toEqual([
      {
        table: "cluster.normal",
        row: "cluster.normal#2",
        waitingOn: "Cluster metadata.finalizers lacks cluster.cluster.x-k8s.io (added now)",
      },
    ])
    expect(why(input({ spec: { paused: true } })).rows[0]?.waitingOn).toBe(
      "Cluster spec.paused is true or it has the cluster.x-k8s.io/paused annotation",
    )
    const topology = why(
      input({
        spec: { topology: { classRef: { name: "cc" } } },
        observed: { clusterClass: { _tag: "Found", object: { metadata: { name: "cc" } } } },
      }),
    )
    expect(topology.rows).toEqual([
      {
        table: "cluster.normal",
        row: "cluster.normal#4",
        waitingOn:
          "Cluster spec.infrastructureRef and spec.controlPlaneRef are not both set by the topology controller",
      },
    ])
  })

  it("a failed get of the Cluster or its ClusterClass adds the Error Handling row", () => {
    const gone = why({
      ...input(),
      observed: { ...input().observed, cluster: { _tag: "GetFailed", error: "x" } },
    })
    expect(gone.rows.map((r) => r.row)).toEqual(["cluster.normal#15", "cluster.errors#6"])
    expect(gone.status).toBeUndefined()
    const cc = why(input({ spec: { topology: { classRef: { name: "cc" } } } }))
    expect(cc.rows.map((r) => r.row)).toEqual(["cluster.normal#15", "cluster.errors#2"])
  })

  it("a deleting Cluster names what its deletion waits on, in the Deletion and delete-flow views", () => {
    const deleting = (o: Parameters<typeof input>[0]) =>
      why(input({ ...o, meta: { deletionTimestamp: DELETED_AT }, status: DELETING }))
    const hook = deleting({
      spec: { topology: { classRef: { name: "cc" } } },
      observed: {
        clusterClass: { _tag: "Found", object: { metadata: { name: "cc" } } },
        featureGates: { runtimeSDK: true, clusterTopology: true, machinePool: true },
      },
    })
    const hookWait = "the BeforeClusterDelete lifecycle hook has not answered yet"
    expect(hook.rows[0]).toEqual({
      table: "cluster.deletion",
      row: "cluster.deletion#2",
      waitingOn: hookWait,
    })
    expect(hook.rows.at(-1)).toEqual({
      table: "cluster.delete-flow",
      row: "cluster.delete-flow#1",
      waitingOn: hookWait,
    })

    const machine = {
      metadata: { name: "m1", namespace: "default", labels: { "cluster.x-k8s.io/cluster-name": "c1" } },
    }
    const children = deleting({
      observed: {
        descendants: { ...EMPTY, machines: [machine, { metadata: { ...machine.metadata, name: "m2" } }] },
      },
    })
    expect(children.rows[0]?.waitingOn).toBe(
      "2 descendants (MachineDeployments, MachineSets, MachinePools, Machines) still exist",
    )
    const cp = deleting({ spec: { controlPlaneRef: cpRef }, observed: { controlPlane: infra({}) } })
    expect(cp.rows[0]).toEqual({
      table: "cluster.deletion",
      row: "cluster.deletion#6",
      waitingOn: "KubeadmControlPlane default/c1-cp still exists",
    })
    const inf = deleting({ spec: { infrastructureRef: infraRef }, observed: { infrastructure: infra({}) } })
    expect(inf.rows[0]).toEqual({
      table: "cluster.deletion",
      row: "cluster.deletion#7",
      waitingOn: "DockerCluster default/c1 still exists",
    })
    const owner = { apiVersion: "cluster.x-k8s.io/v1beta2", kind: "Cluster", name: "c1", controller: true }
    const group = (name: string) => ({ metadata: { name, namespace: "default", ownerReferences: [owner] } })
    const many = deleting({
      observed: {
        descendants: {
          _tag: "Listed",
          machineDeployments: [group("md")],
          machineSets: [group("ms1"), group("ms2")],
          machinePools: [group("mp1"), group("mp2"), group("mp3")],
          machines: ["m1", "m2", "m3", "m4"].map((n) => ({ metadata: { ...machine.metadata, name: n } })),
        },
      },
    })
    expect(many.rows.at(-1)).toEqual({
      table: "cluster.delete-flow",
      row: "cluster.delete-flow#4",
      waitingOn: "10 descendants (MachineDeployments, MachineSets, MachinePools, Machines) still exist",
    })
    const gone = { deletionTimestamp: DELETED_AT }
    const going = (o: object) => ({
      _tag: "Found" as const,
      object: { metadata: { name: "x", ...gone }, ...o },
    })
    const cpGoing = deleting({ spec: { controlPlaneRef: cpRef }, observed: { controlPlane: going({}) } })
    expect(cpGoing.rows[0]?.waitingOn).toBe("KubeadmControlPlane default/c1-cp still exists")
    const infraGoing = deleting({
      spec: { infrastructureRef: infraRef },
      observed: { infrastructure: going({}) },
    })
    expect(infraGoing.rows[0]?.waitingOn).toBe("DockerCluster default/c1 still exists")
    const done = deleting({})
    expect(done.rows[0]).toStrictEqual({ table: "cluster.deletion", row: "cluster.deletion#8" })
  })
})
