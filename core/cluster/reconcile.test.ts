import { describe, expect, it } from "vitest"
import type { ClusterAction } from "./actions.ts"
import { ClusterControllerDefaults, clusterControllerConfig } from "./config.ts"
import { decide } from "./decide.ts"
import { actionFailure } from "./failure.ts"
import { reconcile } from "./reconcile.ts"
import { requeue } from "./scope.ts"
import { transitions } from "./transitions.ts"
import type { ClusterInput, ClusterSpec, ClusterStatus, Descendants, ObjectMeta } from "./types.ts"

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

/** A Cluster with its finalizer and Paused=False: past the top-level checks. */
const input = (
  o: {
    spec?: ClusterSpec
    meta?: Partial<ObjectMeta>
    status?: ClusterStatus
    observed?: Partial<ClusterInput["observed"]>
    trigger?: ClusterInput["trigger"]
    now?: number
  } = {},
): ClusterInput => ({
  observed: {
    cluster: {
      _tag: "Found",
      object: {
        metadata: {
          name: "c1",
          namespace: "default",
          uid: "u1",
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
  trigger: o.trigger ?? { _tag: "Reconcile" },
  now: o.now ?? NOW,
})

/** One reconcile of the Cluster `input(o)` describes, with the documented defaults. */
const run = (o?: Parameters<typeof input>[0]) => decide(input(o), ClusterControllerDefaults)
const last = (actions: ReadonlyArray<ClusterAction>) => actions[actions.length - 1]
/** A Normal Event about the Cluster c1 of the default namespace, as the reconcile records it. */
const normalEvent = (reason: string, message: string): ClusterAction => ({
  _tag: "Event",
  cluster: { namespace: "default", name: "c1" },
  type: "Normal",
  reason,
  message,
})
const condition = (s: ClusterStatus | undefined, type: string) => s?.conditions?.find((c) => c.type === type)

describe("reconcile", () => {
  it("requeues after 30 s while the InfraCluster does not exist yet (Normal Reconciliation, row 7)", () => {
    const r = transitions["cluster.normal"](input({ spec: { infrastructureRef: infraRef } }))
    expect(r.row).toBe("cluster.normal#7")
    expect(last(r.actions)).toEqual({ _tag: "Requeue", after: 30_000 })
    expect(ClusterControllerDefaults.missingReferenceRequeueAfter).toBe(30_000)
  })

  it("requeues after 30 s while the control plane does not exist yet (Normal Reconciliation, row 9)", () => {
    const r = transitions["cluster.normal"](input({ spec: { controlPlaneRef: cpRef } }))
    expect(r.row).toBe("cluster.normal#9")
    expect(last(r.actions)).toEqual({ _tag: "Requeue", after: 30_000 })
  })

  it("requeues after 5 s while descendants are deleted (Deletion Reconciliation, row 5)", () => {
    const md = {
      metadata: { name: "md-0", namespace: "default", deletionTimestamp: "2026-01-01T00:00:00Z" },
    }
    const r = transitions["cluster.deletion"](
      input({
        meta: { deletionTimestamp: "2026-01-01T00:00:00Z" },
        status: {
          conditions: [
            ...(NOT_PAUSED.conditions ?? []),
            { type: "Deleting", status: "True", reason: "WaitingForWorkersDeletion" },
          ],
        },
        observed: { descendants: { ...EMPTY, machineDeployments: [md] } },
      }),
    )
    expect(r.row).toBe("cluster.deletion#5")
    expect(last(r.actions)).toEqual({ _tag: "Requeue", after: 5_000 })
    expect(ClusterControllerDefaults.deleteRequeueAfter).toBe(5_000)
    expect(condition(r.status, "Deleting")?.message).toBe("* MachineDeployments: md-0")
  })

  it("follows a configured requeue instead of the documented one", () => {
    const config = clusterControllerConfig({ missingReferenceRequeueAfter: 1_234 })
    const r = transitions["cluster.normal"](input({ spec: { infrastructureRef: infraRef } }), config)
    expect(last(r.actions)).toEqual({ _tag: "Requeue", after: 1_234 })
  })

  it("adds the finalizer first and does nothing else (Normal Reconciliation, row 2)", () => {
    const r = transitions["cluster.normal"](
      input({ meta: { finalizers: [] }, spec: { infrastructureRef: infraRef } }),
    )
    expect(r.row).toBe("cluster.normal#2")
    expect(r.actions).toEqual([
      {
        _tag: "AddFinalizer",
        cluster: { namespace: "default", name: "c1" },
        finalizer: "cluster.cluster.x-k8s.io",
      },
    ])
  })

  it("never adds the finalizer to a Cluster being deleted", () => {
    const r = run({ meta: { finalizers: [], deletionTimestamp: "2026-01-01T00:00:00Z" } })
    expect(r.actions.some((a) => a._tag === "AddFinalizer")).toBe(false)
    expect(r.status?.phase).toBe("Deleting")
  })

  it("leaves a paused Cluster alone but for its Paused condition (Normal Reconciliation, row 3)", () => {
    const r = transitions["cluster.normal"](input({ spec: { paused: true, infrastructureRef: infraRef } }))
    expect(r.row).toBe("cluster.normal#3")
    expect(r.actions.map((a) => a._tag)).toEqual(["PatchStatus"])
    expect(condition(r.status, "Paused")).toMatchObject({ status: "True", reason: "Paused" })
    const again = transitions["cluster.normal"]({
      ...input({ spec: { paused: true }, status: r.status ?? {} }),
    })
    expect(again.actions).toEqual([])
    expect(again.row).toBe("cluster.normal#3")
    const fresh = transitions["cluster.normal"](input({ spec: { paused: true }, status: {} }))
    expect(fresh.status?.conditions?.map((c) => c.type)).toEqual(["Paused"])
    // the Paused condition is rewritten when its generation or its message is stale
    const stale = transitions["cluster.normal"]({
      ...input({ spec: { paused: true }, status: r.status ?? {}, meta: { generation: 2 } }),
    })
    expect(stale.actions.map((a) => a._tag)).toEqual(["PatchStatus"])
    expect(condition(stale.status, "Paused")).toMatchObject({ status: "True", observedGeneration: 2 })
    const byAnnotation = transitions["cluster.normal"]({
      ...input({ status: r.status ?? {}, meta: { annotations: { "cluster.x-k8s.io/paused": "" } } }),
    })
    expect(byAnnotation.actions.map((a) => a._tag)).toEqual(["PatchStatus"])
    expect(condition(byAnnotation.status, "Paused")).toMatchObject({
      status: "True",
      message: "Cluster has the cluster.x-k8s.io/paused annotation",
    })
  })

  it("generates the kubeconfig only without a controlPlaneRef (Normal Reconciliation, row 11)", () => {
    const endpoint = { host: "10.0.0.1", port: 6443 }
    const without = run({
      spec: { controlPlaneEndpoint: endpoint },
      observed: { kubeconfigSecret: { _tag: "NotFound" } },
    })
    expect(without.actions.find((a) => a._tag === "CreateKubeconfigSecret")).toMatchObject({
      secret: { namespace: "default", name: "c1-kubeconfig" },
      caSecret: { name: "c1-ca" },
      type: "cluster.x-k8s.io/secret",
      key: "value",
      endpoint,
    })
    const withRef = run({
      spec: { controlPlaneEndpoint: endpoint, controlPlaneRef: cpRef },
      observed: { kubeconfigSecret: { _tag: "NotFound" } },
    })
    expect(withRef.actions.some((a) => a._tag === "CreateKubeconfigSecret")).toBe(false)
  })

  it("keeps RemoteConnectionProbe True for 50 s after the last successful probe", () => {
    const at = (ago: number) =>
      condition(
        run({ observed: { remoteConnection: { lastProbeSuccessTime: NOW - ago } } }).status,
        "RemoteConnectionProbe",
      )
    expect(at(50_000)?.status).toBe("True")
    expect(at(50_001)?.status).toBe("False")
    expect(at(50_001)?.message).toBe(
      "Remote connection probe failed, probe last succeeded at 2025-12-31T23:59:09Z",
    )
  })

  it("keeps a condition's lastTransitionTime while its status does not change", () => {
    const first = run()
    const second = run({ status: first.status ?? {}, now: NOW + 60_000 })
    expect(condition(second.status, "Deleting")?.lastTransitionTime).toBe("2026-01-01T00:00:00Z")
  })

  it("never derives Failed from a leftover failureReason (upstream's setPhase)", () => {
    const r = run({
      spec: { infrastructureRef: infraRef },
      status: { ...NOT_PAUSED, deprecated: { v1beta1: { failureReason: "InvalidConfiguration" } } },
    })
    expect(r.status?.phase).toBe("Provisioning")
    expect(r.status?.deprecated?.v1beta1?.failureReason).toBe("InvalidConfiguration")
  })

  it("is Provisioned once the infrastructure is provisioned and the endpoint valid, before the control plane is initialized", () => {
    const infra = {
      metadata: { name: "c1", labels: { "cluster.x-k8s.io/cluster-name": "c1" } },
      spec: { controlPlaneEndpoint: { host: "10.0.0.1", port: 6443 } },
      status: { initialization: { provisioned: true } },
    }
    const r = run({
      spec: { infrastructureRef: infraRef, controlPlaneRef: cpRef },
      observed: {
        infrastructure: { _tag: "Found", object: infra },
        controlPlane: { _tag: "Found", object: { metadata: { name: "c1-cp" } } },
      },
    })
    expect(r.status?.phase).toBe("Provisioned")
    // upstream only ever sets the flags to true
    expect(r.status?.initialization).toEqual({ infrastructureProvisioned: true })
    expect(r.actions.filter((a) => a._tag === "Event").map((a) => a._tag === "Event" && a.reason)).toEqual([
      "InfrastructureReady",
      "Provisioned",
    ])
  })

  it("copies a v1beta1 provider's failureReason and failureMessage onto the Cluster", () => {
    const infra = {
      apiVersion: "infrastructure.cluster.x-k8s.io/v1beta1",
      metadata: { name: "c1" },
      status: { ready: false, failureReason: "CreateError", failureMessage: "quota exceeded" },
    }
    const r = run({
      spec: { infrastructureRef: infraRef },
      observed: { infrastructure: { _tag: "Found", object: infra } },
    })
    expect(r.status?.deprecated?.v1beta1).toMatchObject({
      failureReason: "CreateError",
      failureMessage:
        'Failure detected from referenced resource infrastructure.cluster.x-k8s.io/v1beta1, Kind=DockerCluster with name "c1": quota exceeded',
    })
    expect(r.status?.phase).toBe("Provisioning")
    // upstream's CRD holds a v1beta1 failureMessage to 10240 characters: cut with "..."
    const long = run({
      spec: { infrastructureRef: infraRef },
      observed: {
        infrastructure: {
          _tag: "Found",
          object: { ...infra, status: { ready: false, failureMessage: "x".repeat(20_000) } },
        },
      },
    }).status?.deprecated?.v1beta1?.failureMessage
    expect(long).toHaveLength(10_240)
    expect(long?.endsWith("x...")).toBe(true)
    expect(long?.startsWith("Failure detected from referenced resource ")).toBe(true)
    // a message exactly at the limit is kept whole
    const prefix =
      'Failure detected from referenced resource infrastructure.cluster.x-k8s.io/v1beta1, Kind=DockerCluster with name "c1": '
    const fits = "z".repeat(10_240 - prefix.length)
    expect(
      run({
        spec: { infrastructureRef: infraRef },
        observed: {
          infrastructure: {
            _tag: "Found",
            object: { ...infra, status: { ready: false, failureMessage: fits } },
          },
        },
      }).status?.deprecated?.v1beta1?.failureMessage,
    ).toBe(prefix + fits)
    // empty ones are not copied
    const empty = run({
      spec: { infrastructureRef: infraRef },
      observed: {
        infrastructure: {
          _tag: "Found",
          object: { ...infra, status: { ready: false, failureReason: "", failureMessage: "" } },
        },
      },
    }).status?.deprecated?.v1beta1
    expect(empty?.failureReason).toBeUndefined()
    expect(empty?.failureMessage).toBeUndefined()
  })

  it("records upstream's events: a flag first set from its provider object, a new phase", () => {
    const events = (r: { actions: ReadonlyArray<ClusterAction> }) =>
      r.actions.filter((a) => a._tag === "Event")
    const infra = {
      apiVersion: "infrastructure.cluster.x-k8s.io/v1beta2",
      metadata: { name: "c1" },
      status: { initialization: { provisioned: true } },
    }
    const first = run({
      spec: { infrastructureRef: infraRef },
      observed: { infrastructure: { _tag: "Found", object: infra } },
    })
    expect(events(first)).toEqual([
      normalEvent("InfrastructureReady", "Cluster c1 InfrastructureProvisioned is now True"),
      normalEvent("Provisioning", "Cluster c1 is Provisioning"),
    ])
    const again = run({
      spec: { infrastructureRef: infraRef },
      status: first.status ?? {},
      observed: { infrastructure: { _tag: "Found", object: infra } },
    })
    expect(events(again)).toEqual([])
    const cp = {
      apiVersion: "controlplane.cluster.x-k8s.io/v1beta2",
      metadata: { name: "c1-cp" },
      status: { initialization: { controlPlaneInitialized: true } },
    }
    const cpFirst = run({
      spec: { controlPlaneRef: cpRef },
      status: { ...NOT_PAUSED, phase: "Provisioning" },
      observed: { controlPlane: { _tag: "Found", object: cp } },
    })
    expect(events(cpFirst)).toEqual([
      normalEvent("ControlPlaneInitialized", "Cluster c1 ControlPlaneInitialized is now True"),
    ])
    // a control plane not yet initialized, or an infrastructure not yet provisioned: no event
    const waiting = run({
      spec: { controlPlaneRef: cpRef, infrastructureRef: infraRef },
      status: { ...NOT_PAUSED, phase: "Provisioning" },
      observed: {
        controlPlane: { _tag: "Found", object: { ...cp, status: {} } },
        infrastructure: { _tag: "Found", object: { ...infra, status: {} } },
      },
    })
    expect(events(waiting)).toEqual([])
  })

  it("counts the control plane initialized without a controlPlaneRef once an active control-plane Machine has a node (row 12)", () => {
    const cpMachine = (name: string, o: { node?: boolean; deleting?: boolean; status?: boolean } = {}) => ({
      metadata: {
        name,
        labels: { "cluster.x-k8s.io/control-plane": "", "cluster.x-k8s.io/cluster-name": "c1" },
        ...(o.deleting === true ? { deletionTimestamp: "2026-01-01T00:00:00Z" } : {}),
      },
      ...(o.status === false ? {} : { status: o.node === true ? { nodeRef: { name: `${name}-node` } } : {} }),
    })
    const withMachines = (machines: ReadonlyArray<object>) =>
      transitions["cluster.normal"](
        input({ observed: { descendants: { ...EMPTY, machines } as Descendants } }),
      )
    const v1 = (r: { status?: ClusterStatus | undefined }) =>
      r.status?.deprecated?.v1beta1?.conditions?.find((c) => c.type === "ControlPlaneInitialized")
    const yes = withMachines([cpMachine("m0", { status: false }), cpMachine("m1", { node: true })])
    // the v1beta1 condition; upstream sets the flag from a control-plane object alone
    expect(v1(yes)).toMatchObject({ status: "True" })
    expect(v1(yes)?.reason).toBeUndefined()
    expect(yes.status?.initialization?.controlPlaneInitialized).toBeUndefined()
    for (const none of [
      [cpMachine("m0", { status: false })],
      [cpMachine("m1", { node: true, deleting: true })],
    ])
      expect(v1(withMachines(none))).toMatchObject({
        status: "False",
        reason: "MissingNodeRef",
        message: "Waiting for the first control plane machine to have its status.nodeRef set",
      })
    expect(
      withMachines([cpMachine("m1", { node: true })]).actions.filter(
        (a) => a._tag === "Event" && a.reason === "ControlPlaneInitialized",
      ),
    ).toEqual([])
  })

  it("writes statuses upstream's CRD accepts: v1beta2 messages present, no empty failureDomains, no unknown counters", () => {
    const r = run({
      spec: { controlPlaneRef: cpRef },
      status: { ...NOT_PAUSED, failureDomains: [] },
    })
    for (const c of r.status?.conditions ?? []) expect(typeof c.message, c.type).toBe("string")
    for (const c of r.status?.deprecated?.v1beta1?.conditions ?? []) expect(c.message).not.toBe("")
    expect(r.status).not.toHaveProperty("failureDomains")
    expect(r.status).not.toHaveProperty("controlPlane")
    expect(r.status).not.toHaveProperty("workers")
  })

  it("keeps RemoteConnectionProbe until the ClusterCache has probed enough after a restart", () => {
    const rcp = {
      type: "RemoteConnectionProbe",
      status: "True" as const,
      reason: "ProbeSucceeded",
      message: "",
      lastTransitionTime: "2025-12-31T00:00:00Z",
    }
    const status = { conditions: [...(NOT_PAUSED.conditions ?? []), rcp] }
    const at = (remoteConnection: ClusterInput["observed"]["remoteConnection"]) =>
      condition(run({ status, observed: { remoteConnection } }).status, "RemoteConnectionProbe")
    expect(at({})).toMatchObject({ status: "True", lastTransitionTime: rcp.lastTransitionTime })
    expect(at({ consecutiveFailures: 4 })?.status).toBe("True")
    expect(ClusterControllerDefaults.remoteConnectionFailureThreshold).toBe(5)
    expect(at({ consecutiveFailures: 5 })).toMatchObject({ status: "False", reason: "ProbeFailed" })
    expect(condition(run().status, "RemoteConnectionProbe")).toMatchObject({
      status: "False",
      message: "Remote connection not established yet",
    })
  })

  it("deletes a topology Cluster whose refs were never generated instead of waiting for them", () => {
    const r = transitions["cluster.deletion"](
      input({
        spec: { topology: { classRef: { name: "cc" } } },
        meta: { deletionTimestamp: "2026-01-01T00:00:00Z" },
        observed: { clusterClass: { _tag: "Found", object: { metadata: { name: "cc" } } } },
      }),
    )
    expect(r.actions.map((a) => a._tag)).toContain("RemoveFinalizer")
  })

  it("writes the status while waiting for the topology controller, having read nothing (Normal Reconciliation, row 4)", () => {
    const r = transitions["cluster.normal"](
      input({
        spec: { topology: { classRef: { name: "cc" } } },
        status: { ...NOT_PAUSED, workers: { replicas: 2 }, controlPlane: { replicas: 3 } },
        observed: {
          clusterClass: { _tag: "Found", object: { metadata: { name: "cc" } } },
          infrastructure: { _tag: "Found", object: { metadata: { name: "c1" }, status: { ready: true } } },
        },
      }),
    )
    expect(r.row).toBe("cluster.normal#4")
    expect(r.actions).toEqual([
      { _tag: "PatchStatus", cluster: { namespace: "default", name: "c1" }, status: r.status },
      normalEvent("Pending", "Cluster c1 is Pending"),
    ])
    const st = r.status
    expect(st?.phase).toBe("Pending")
    expect(st?.initialization).toBeUndefined()
    const says = (type: string) => {
      const c = condition(st, type)
      return [c?.status, c?.reason, c?.message]
    }
    const topology = "Waiting for cluster topology to be reconciled"
    expect(says("InfrastructureReady")).toEqual(["False", "ObjectDoesNotExist", topology])
    expect(says("ControlPlaneAvailable")).toEqual(["False", "ObjectDoesNotExist", topology])
    expect(says("ControlPlaneInitialized")).toEqual(["Unknown", "ObjectDoesNotExist", topology])
    expect(says("WorkersAvailable")).toEqual([
      "Unknown",
      "InternalError",
      "Please check controller logs for errors",
    ])
    expect(says("Available")?.[0]).toBe("False")
    // the workers' counters are kept (nothing listed), the control plane's cleared (nothing read)
    expect(st?.workers).toEqual({ replicas: 2 })
    expect(st?.controlPlane).toBeUndefined()
    expect(st?.deprecated).toBeUndefined()
    expect(st?.observedGeneration).toBe(1)
  })

  it("stops at a provider object being deleted, and goes on once provisioned whatever the object reports", () => {
    const infra = (o: { deleting?: boolean; provisioned?: boolean }) => ({
      _tag: "Found" as const,
      object: {
        metadata: {
          name: "c1",
          ...(o.deleting === true ? { deletionTimestamp: "2026-01-01T00:00:00Z" } : {}),
        },
        spec: { controlPlaneEndpoint: { host: "10.0.0.1", port: 6443 } },
        status: {
          initialization: { provisioned: o.provisioned === true },
          failureDomains: [{ name: "fd-1" }],
        },
      },
    })
    const copies = (r: ReturnType<typeof run>) =>
      r.actions.filter((a) => a._tag === "SetControlPlaneEndpoint")
    const deleting = run({
      spec: { infrastructureRef: infraRef },
      observed: { infrastructure: infra({ deleting: true, provisioned: true }) },
    })
    expect(copies(deleting)).toEqual([])
    expect(deleting.status?.initialization).toBeUndefined()
    expect(deleting.status?.failureDomains).toBeUndefined()
    const before: ClusterStatus = { ...NOT_PAUSED, initialization: { infrastructureProvisioned: true } }
    const notNow = run({
      spec: { infrastructureRef: infraRef },
      status: before,
      observed: { infrastructure: infra({}) },
    })
    expect(copies(notNow)).toHaveLength(1)
    expect(notNow.status?.failureDomains).toEqual([{ name: "fd-1" }])
  })

  it("patches the status and requeues after 30 s when the cluster CA Secret is missing", () => {
    const action: ClusterAction = {
      _tag: "CreateKubeconfigSecret",
      cluster: { namespace: "default", name: "c1" },
      secret: { namespace: "default", name: "c1-kubeconfig" },
      caSecret: { namespace: "default", name: "c1-ca" },
      endpoint: { host: "10.0.0.1", port: 6443 },
      type: "cluster.x-k8s.io/secret",
      key: "value",
      labels: {},
      ownerReference: { apiVersion: "cluster.x-k8s.io/v1beta2", kind: "Cluster", name: "c1" },
    }
    const r = transitions["cluster.normal"](
      input({
        spec: { controlPlaneEndpoint: { host: "10.0.0.1", port: 6443 } },
        observed: { kubeconfigSecret: { _tag: "NotFound" } },
        trigger: { _tag: "ActionFailed", action, failure: { _tag: "NotFound", message: "not found" } },
      }),
    )
    expect(r.row).toBe("cluster.normal#18")
    // the reconcile's events are recorded too, as upstream records them before its patch
    expect(r.actions.map((a) => a._tag)).toEqual(["PatchStatus", "Event", "Requeue"])
    expect(r.actions[1]).toEqual(normalEvent("Provisioned", "Cluster c1 is Provisioned"))
    expect(last(r.actions)).toEqual({ _tag: "Requeue", after: 30_000 })
    expect(r.status?.phase).toBe("Provisioned")
    expect(ClusterControllerDefaults.missingCaRequeueAfter).toBe(30_000)
    // with other errors besides, the missing CA is no requeue but those errors, one after another
    const both = run({
      spec: {
        controlPlaneEndpoint: { host: "10.0.0.1", port: 6443 },
        infrastructureRef: infraRef,
        controlPlaneRef: cpRef,
      },
      observed: {
        kubeconfigSecret: { _tag: "NotFound" },
        infrastructure: { _tag: "GetFailed", error: "boom-infra" },
        controlPlane: { _tag: "GetFailed", error: "boom-cp" },
      },
      trigger: { _tag: "ActionFailed", action, failure: { _tag: "NotFound", message: "not found" } },
    })
    const ending = last(both.actions)
    expect(ending?._tag).toBe("ReturnError")
    const parts = ending?._tag === "ReturnError" ? ending.error.split("; ") : []
    expect(parts).toEqual([
      "failed to get DockerCluster c1: boom-infra",
      "failed to get KubeadmControlPlane c1-cp: boom-cp",
    ])
    expect(both.trace.error).toBe(true)
  })

  it("answers a failed Cluster get with the error, and a topology Cluster's missing ClusterClass (Normal Reconciliation, row 15)", () => {
    const got = transitions["cluster.normal"]({
      ...input(),
      observed: { ...input().observed, cluster: { _tag: "GetFailed", error: "etcd timeout" } },
    })
    expect(got.row).toBe("cluster.normal#15")
    expect(got.actions).toEqual([{ _tag: "ReturnError", error: "failed to get Cluster: etcd timeout" }])
    expect(
      decide(
        { ...input(), observed: { ...input().observed, cluster: { _tag: "GetFailed", error: "x" } } },
        ClusterControllerDefaults,
      ).trace.error,
    ).toBe(true)
    const topology = { topology: { classRef: { name: "quick" }, version: "v1.34.0" } }
    const missing = run({ spec: topology, observed: { clusterClass: { _tag: "NotFound" } } })
    expect(missing.actions).toEqual([{ _tag: "ReturnError", error: "ClusterClass quick not found" }])
    expect(missing.trace.error).toBe(true)
    const failing = run({
      spec: topology,
      observed: { clusterClass: { _tag: "GetFailed", error: "forbidden" } },
    })
    expect(failing.actions).toEqual([
      { _tag: "ReturnError", error: "failed to get ClusterClass quick: forbidden" },
    ])
  })

  it("patches the status before the error when another action failed", () => {
    const action: ClusterAction = {
      _tag: "SetControlPlaneEndpoint",
      cluster: { namespace: "default", name: "c1" },
      endpoint: { host: "10.0.0.1", port: 6443 },
      from: "infrastructure",
    }
    const r = run({
      trigger: { _tag: "ActionFailed", action, failure: { _tag: "Other", message: "conflict" } },
    })
    expect(r.actions.map((a) => a._tag)).toEqual(["PatchStatus", "Event", "ReturnError"])
    expect(r.actions[1]).toEqual(normalEvent("Provisioning", "Cluster c1 is Provisioning"))
    const again = run({
      trigger: {
        _tag: "ActionFailed",
        action: { _tag: "PatchStatus", cluster: action.cluster, status: {} },
        failure: { _tag: "Other", message: "x" },
      },
    })
    expect(again.actions.map((a) => a._tag)).toEqual(["ReturnError"])
  })

  it("gates Available as upstream: the Cluster's own gates, else the ClusterClass's, and TopologyReconciled for a topology", () => {
    const cc = {
      _tag: "Found" as const,
      object: { metadata: { name: "cc" }, spec: { availabilityGates: [{ conditionType: "FromClass" }] } },
    }
    const available = (spec: ClusterSpec) =>
      condition(
        run({
          spec: {
            ...spec,
            topology: { classRef: { name: "cc" } },
            infrastructureRef: infraRef,
            controlPlaneRef: cpRef,
          },
          observed: { clusterClass: cc },
          status: {
            conditions: [
              ...(NOT_PAUSED.conditions ?? []),
              ...["FromClass", "Own", "TopologyReconciled"].map((type) => ({
                type,
                status: "False" as const,
                // a False TopologyReconciled counts only when reconciling failed
                reason: type === "TopologyReconciled" ? "ReconcileFailed" : "NotYet",
                message: `${type} not yet`,
              })),
            ],
          },
        }).status,
        "Available",
      )
    const fromClass = available({})
    expect(fromClass?.message).toContain("FromClass")
    expect(fromClass?.message).toContain("TopologyReconciled")
    const own = available({ availabilityGates: [{ conditionType: "Own" }] })
    expect(own?.message).toContain("Own")
    expect(own?.message).not.toContain("FromClass")
  })

  describe("words each v1beta2 condition as it stands (the spec holds type, status and reason; these hold the text a user reads)", () => {
    /** type → [status, reason, message] of the conditions named. */
    const says = (i: ClusterInput, types: ReadonlyArray<string>) => {
      const r = decide(i, ClusterControllerDefaults)
      return Object.fromEntries(
        types.map((t) => {
          const c = condition(r.status, t)
          return [t, [c?.status, c?.reason, c?.message]]
        }),
      )
    }
    const machine = (name: string, cp: boolean, conditions: ReadonlyArray<object> = []) => ({
      metadata: {
        name,
        labels: {
          "cluster.x-k8s.io/cluster-name": "c1",
          ...(cp ? { "cluster.x-k8s.io/control-plane": "" } : {}),
        },
      },
      status: { conditions },
    })
    const md = (name: string) => ({ metadata: { name, labels: { "cluster.x-k8s.io/cluster-name": "c1" } } })
    const probe = "* RemoteConnectionProbe: Remote connection not established yet"

    it("without refs or Machines", () => {
      expect(
        says(input(), [
          "InfrastructureReady",
          "ControlPlaneAvailable",
          "ControlPlaneInitialized",
          "WorkersAvailable",
          "Available",
        ]),
      ).toEqual({
        // upstream: without a ref (and without a topology) there is no object, and none was
        // "not found": its internal-error answer
        InfrastructureReady: ["Unknown", "InternalError", "Please check controller logs for errors"],
        ControlPlaneAvailable: ["Unknown", "InternalError", "Please check controller logs for errors"],
        ControlPlaneInitialized: [
          "False",
          "NotInitialized",
          "Waiting for the first control plane machine to have status.nodeRef set",
        ],
        WorkersAvailable: ["True", "NoWorkers", ""],
        Available: [
          "False",
          "NotAvailable",
          `${probe}\n* InfrastructureReady: Please check controller logs for errors\n* ControlPlaneAvailable: Please check controller logs for errors`,
        ],
      })
    })

    it("providers that have not reported, that report in the v1beta1 form, that are gone", () => {
      const refs = { infrastructureRef: infraRef, controlPlaneRef: cpRef }
      const types = ["InfrastructureReady", "ControlPlaneAvailable", "ControlPlaneInitialized", "Available"]
      const waiting = says(
        input({
          spec: refs,
          observed: {
            infrastructure: { _tag: "Found", object: { metadata: { name: "c1" } } },
            controlPlane: { _tag: "Found", object: { metadata: { name: "c1-cp" } } },
          },
        }),
        types,
      )
      expect(waiting).toEqual({
        InfrastructureReady: [
          "False",
          "NotReady",
          "DockerCluster status.initialization.provisioned is false",
        ],
        ControlPlaneAvailable: [
          "False",
          "NotAvailable",
          "KubeadmControlPlane status.initialization.controlPlaneInitialized is false",
        ],
        ControlPlaneInitialized: ["False", "NotInitialized", "Control plane not yet initialized"],
        Available: [
          "False",
          "NotAvailable",
          `${probe}\n* InfrastructureReady: DockerCluster status.initialization.provisioned is false\n* ControlPlaneAvailable: KubeadmControlPlane status.initialization.controlPlaneInitialized is false`,
        ],
      })
      const v1beta1 = says(
        input({
          spec: refs,
          observed: {
            infrastructure: { _tag: "Found", object: { metadata: { name: "c1" }, status: { ready: true } } },
            controlPlane: {
              _tag: "Found",
              object: { metadata: { name: "c1-cp" }, status: { initialized: true } },
            },
          },
        }),
        types,
      )
      expect(v1beta1).toEqual({
        InfrastructureReady: ["True", "Ready", ""],
        ControlPlaneAvailable: ["True", "Available", ""],
        ControlPlaneInitialized: ["True", "Initialized", ""],
        Available: ["False", "NotAvailable", probe],
      })
      const gone = says(
        input({
          spec: refs,
          status: {
            ...NOT_PAUSED,
            initialization: { infrastructureProvisioned: true, controlPlaneInitialized: true },
          },
        }),
        types,
      )
      expect(gone.InfrastructureReady).toEqual([
        "False",
        "ObjectDeleted",
        "DockerCluster has been deleted while the cluster still exists",
      ])
      expect(gone.ControlPlaneAvailable).toEqual([
        "False",
        "ObjectDeleted",
        "KubeadmControlPlane has been deleted while the cluster still exists",
      ])
    })

    it("Machines and MachineDeployments, one and several, named as many as are listed", () => {
      const types = [
        "ControlPlaneAvailable",
        "ControlPlaneMachinesReady",
        "ControlPlaneMachinesUpToDate",
        "WorkersAvailable",
        "WorkerMachinesReady",
        "WorkerMachinesUpToDate",
      ]
      const one = says(
        input({
          observed: {
            descendants: {
              ...EMPTY,
              machines: [
                machine("cp1", true),
                machine("w1", false),
                machine("w2", false, [{ type: "Ready", status: "False", reason: "X", message: "boom" }]),
              ],
              machineDeployments: [md("md1")],
            } as Descendants,
          },
        }),
        types,
      )
      const internal = ["Unknown", "InternalError", "Please check controller logs for errors"]
      expect(one).toEqual({
        ControlPlaneAvailable: internal,
        ControlPlaneMachinesReady: [
          "Unknown",
          "ReadyUnknown",
          "* Machine cp1: Condition Ready not yet reported",
        ],
        ControlPlaneMachinesUpToDate: [
          "Unknown",
          "UpToDateUnknown",
          "* Machine cp1: Condition UpToDate not yet reported",
        ],
        WorkersAvailable: [
          "Unknown",
          "AvailableUnknown",
          "* MachineDeployment md1: Condition Available not yet reported",
        ],
        // the issue first, then the unknown
        WorkerMachinesReady: [
          "False",
          "NotReady",
          "* Machine w2: boom\n* Machine w1: Condition Ready not yet reported",
        ],
        WorkerMachinesUpToDate: [
          "Unknown",
          "UpToDateUnknown",
          "* Machines w1, w2: Condition UpToDate not yet reported",
        ],
      })
      const several = says(
        input({
          observed: {
            descendants: {
              ...EMPTY,
              machines: [machine("cp1", true), machine("cp2", true), machine("w1", false)],
              machineDeployments: [md("md1"), md("md2")],
            } as Descendants,
          },
        }),
        types,
      )
      expect(several).toEqual({
        ControlPlaneAvailable: internal,
        ControlPlaneMachinesReady: [
          "Unknown",
          "ReadyUnknown",
          "* Machines cp1, cp2: Condition Ready not yet reported",
        ],
        ControlPlaneMachinesUpToDate: [
          "Unknown",
          "UpToDateUnknown",
          "* Machines cp1, cp2: Condition UpToDate not yet reported",
        ],
        WorkersAvailable: [
          "Unknown",
          "AvailableUnknown",
          "* MachineDeployments md1, md2: Condition Available not yet reported",
        ],
        WorkerMachinesReady: ["Unknown", "ReadyUnknown", "* Machine w1: Condition Ready not yet reported"],
        WorkerMachinesUpToDate: [
          "Unknown",
          "UpToDateUnknown",
          "* Machine w1: Condition UpToDate not yet reported",
        ],
      })
    })

    /** type → [status, reason, severity, message] of every v1beta1 condition. */
    const saysV1 = (i: ClusterInput) =>
      Object.fromEntries(
        (decide(i, ClusterControllerDefaults).status?.deprecated?.v1beta1?.conditions ?? []).map((c) => [
          c.type,
          [c.status, c.reason, c.severity, c.message],
        ]),
      )
    const refs = { infrastructureRef: infraRef, controlPlaneRef: cpRef }
    const found = (name: string, status?: object) => ({
      _tag: "Found" as const,
      object: { metadata: { name }, ...(status === undefined ? {} : { status }) },
    })
    const cpInit = [
      "False",
      "WaitingForControlPlaneProviderInitialized",
      "Info",
      "Waiting for control plane provider to indicate the control plane has been initialized",
    ]

    it("the v1beta1 conditions of providers absent, waiting, unreadable, mirrored and being deleted", () => {
      // True conditions carry no reason (upstream's MarkTrue); fallbacks no message
      expect(saysV1(input())).toEqual({
        Ready: ["True", undefined, undefined, undefined],
        InfrastructureReady: ["True", undefined, undefined, undefined],
        ControlPlaneInitialized: [
          "False",
          "MissingNodeRef",
          "Info",
          "Waiting for the first control plane machine to have its status.nodeRef set",
        ],
      })
      const waitingCp = ["False", "WaitingForControlPlane", "Info", undefined]
      expect(
        saysV1(
          input({ spec: refs, observed: { infrastructure: found("c1"), controlPlane: found("c1-cp") } }),
        ),
      ).toEqual({
        Ready: waitingCp,
        ControlPlaneReady: waitingCp,
        InfrastructureReady: ["False", "WaitingForInfrastructure", "Info", undefined],
        ControlPlaneInitialized: cpInit,
      })
      // an object not there, or not read, sets nothing: the conditions keep their values
      expect(saysV1(input({ spec: refs }))).toEqual({})
      const kept = {
        ...NOT_PAUSED,
        deprecated: {
          v1beta1: {
            conditions: [
              {
                type: "InfrastructureReady",
                status: "True" as const,
                lastTransitionTime: "2025-01-01T00:00:00Z",
              },
            ],
          },
        },
      }
      expect(
        saysV1(
          input({
            spec: refs,
            status: kept,
            observed: {
              infrastructure: { _tag: "GetFailed", error: "x" },
              controlPlane: { _tag: "GetFailed", error: "y" },
            },
          }),
        ),
      ).toEqual({
        Ready: ["True", undefined, undefined, undefined],
        InfrastructureReady: ["True", undefined, undefined, undefined],
      })
      // a provider's Ready mirrored as it is, a reason too long for the CRD replaced
      const mirrored = saysV1(
        input({
          spec: refs,
          observed: {
            infrastructure: found("c1", {
              conditions: [
                {
                  type: "Ready",
                  status: "False",
                  reason: "Booting",
                  severity: "Warning",
                  message: "vm booting",
                },
              ],
            }),
            controlPlane: found("c1-cp", {
              conditions: [{ type: "Ready", status: "False", reason: "x".repeat(257), severity: "Bogus" }],
            }),
          },
        }),
      )
      expect(mirrored.InfrastructureReady).toEqual(["False", "Booting", "Warning", "vm booting"])
      expect(mirrored.ControlPlaneReady).toEqual(["False", "WaitingForControlPlane", undefined, undefined])
      // Ready: the most severe, a Warning before a False without severity
      expect(mirrored.Ready).toEqual(["False", "Booting", "Warning", "vm booting"])
      const atLimit = saysV1(
        input({
          spec: refs,
          observed: {
            infrastructure: found("c1", { conditions: [{ type: "Ready", status: "True", reason: "" }] }),
            controlPlane: found("c1-cp", {
              conditions: [{ type: "Ready", status: "False", reason: "y".repeat(256), severity: "Error" }],
            }),
          },
        }),
      )
      expect(atLimit.InfrastructureReady).toEqual(["True", undefined, undefined, undefined])
      expect(atLimit.ControlPlaneReady).toEqual(["False", "y".repeat(256), "Error", undefined])
      expect(atLimit.Ready).toEqual(["False", "y".repeat(256), "Error", undefined])
      expect(
        saysV1(
          input({
            meta: { deletionTimestamp: "2026-01-01T00:00:00Z" },
            spec: refs,
            observed: { infrastructure: found("c1") },
          }),
        ),
      ).toEqual({
        Ready: ["False", "Deleted", "Info", undefined],
        ControlPlaneReady: ["False", "Deleted", "Info", undefined],
        InfrastructureReady: ["False", "Deleting", "Info", undefined],
      })
      const gone = saysV1(
        input({
          spec: refs,
          status: {
            ...NOT_PAUSED,
            initialization: { infrastructureProvisioned: true, controlPlaneInitialized: true },
          },
        }),
      )
      expect(gone.InfrastructureReady).toBeUndefined()
    })

    it("Remediating and ScalingUp name their Machines and owned MachineSets, never a MachinePool (v1.14.2)", () => {
      const unhealthy = { type: "HealthCheckSucceeded", status: "False", reason: "U" }
      const remediated = (name: string, cp: boolean, health: ReadonlyArray<object> = [unhealthy]) => ({
        ...machine(name, cp, [
          ...health,
          { type: "OwnerRemediated", status: "False", reason: "W", message: "Waiting for remediation" },
        ]),
      })
      const remediating = (machines: ReadonlyArray<object>) =>
        says(input({ observed: { descendants: { ...EMPTY, machines } as Descendants } }), ["Remediating"])
      expect(remediating([remediated("w1", false)])).toEqual({
        Remediating: ["True", "Remediating", "* Machine w1: Waiting for remediation"],
      })
      expect(remediating([remediated("w1", false), remediated("cp1", true)])).toEqual({
        Remediating: ["True", "Remediating", "* Machines cp1, w1: Waiting for remediation"],
      })
      // a Machine whose health check passes is not remediated; an unhealthy one not to be
      // remediated is named
      expect(
        remediating([
          remediated("w1", false, []),
          machine("w2", false, [unhealthy]),
          machine("w3", false, [unhealthy]),
        ]),
      ).toEqual({
        Remediating: ["False", "NotRemediating", "Machines w2, w3 are not healthy (not to be remediated)"],
      })
      const owner = {
        ownerReferences: [{ apiVersion: "cluster.x-k8s.io/v1beta2", kind: "Cluster", name: "c1", uid: "u1" }],
        labels: { "cluster.x-k8s.io/cluster-name": "c1" },
      }
      const scaling = says(
        input({
          observed: {
            descendants: {
              ...EMPTY,
              machinePools: [
                { metadata: { name: "mp1", ...owner } },
                {
                  metadata: { name: "mp2", ...owner },
                  status: {
                    conditions: [{ type: "ScalingUp", status: "True", reason: "S", message: "1 of 3" }],
                  },
                },
              ],
              machineSets: [
                {
                  metadata: { name: "ms1", ...owner },
                  status: {
                    conditions: [
                      { type: "ScalingUp", status: "True", reason: "S" },
                      { type: "RollingOut", status: "True", reason: "R" },
                    ],
                  },
                },
              ],
            } as Descendants,
          },
        }),
        ["ScalingUp", "RollingOut"],
      )
      expect(scaling).toEqual({
        // upstream's aggregate writes a message it was not given as nothing after "ms1: "
        ScalingUp: ["True", "ScalingUp", "* MachineSet ms1: "],
        RollingOut: ["False", "NotRollingOut", ""],
      })
    })

    it("Available lists each unmet availability gate by its message, reason or status", () => {
      const available = says(
        input({
          spec: {
            availabilityGates: [
              { conditionType: "G1" },
              { conditionType: "G2", polarity: "Negative" },
              { conditionType: "G3" },
            ],
          },
          status: {
            conditions: [
              ...(NOT_PAUSED.conditions ?? []),
              { type: "G1", status: "False", reason: "R1", message: "m1" },
              { type: "G2", status: "True", reason: "R2" },
              { type: "G3", status: "False", reason: "R3" },
            ],
          },
        }),
        ["Available"],
      )
      expect(available).toEqual({
        Available: [
          "False",
          "NotAvailable",
          `${probe}\n* InfrastructureReady: Please check controller logs for errors\n* ControlPlaneAvailable: Please check controller logs for errors\n* G1: m1\n* G2: R2\n* G3: R3`,
        ],
      })
    })

    describe("Available of a Cluster whose four summarized conditions are all True", () => {
      const owner = [{ apiVersion: "cluster.x-k8s.io/v1beta2", kind: "Cluster", name: "c1", uid: "u1" }]
      const endpoint = { host: "10.0.0.1", port: 6443 }
      /** Provisioned, initialized, available, no workers, probed a second ago. */
      const healthy = (
        o: { spec?: ClusterSpec; conditions?: ReadonlyArray<object>; cp?: ReadonlyArray<object> } = {},
      ) =>
        input({
          spec: {
            infrastructureRef: infraRef,
            controlPlaneRef: cpRef,
            controlPlaneEndpoint: endpoint,
            ...o.spec,
          },
          status: {
            conditions: [...(NOT_PAUSED.conditions ?? []), ...(o.conditions ?? [])],
          } as ClusterStatus,
          observed: {
            infrastructure: {
              _tag: "Found",
              object: {
                apiVersion: "infrastructure.cluster.x-k8s.io/v1beta2",
                kind: "DockerCluster",
                metadata: { name: "c1", namespace: "default", ownerReferences: owner },
                spec: { controlPlaneEndpoint: endpoint },
                status: { initialization: { provisioned: true } },
              },
            },
            controlPlane: {
              _tag: "Found",
              object: {
                apiVersion: "controlplane.cluster.x-k8s.io/v1beta2",
                kind: "KubeadmControlPlane",
                metadata: { name: "c1-cp", namespace: "default", ownerReferences: owner },
                status: {
                  initialization: { controlPlaneInitialized: true },
                  conditions: o.cp ?? [{ type: "Available", status: "True", reason: "Available" }],
                },
              },
            },
            remoteConnection: { lastProbeSuccessTime: NOW - 1_000 },
          } as Partial<ClusterInput["observed"]>,
        })
      const available = (i: ClusterInput) => says(i, ["Available"]).Available

      it("is True with no gates", () => {
        expect(available(healthy())).toEqual(["True", "Available", ""])
      })

      it("is Unknown, naming each gate not reported yet (upstream's summary: Condition <type> not yet reported) or reported Unknown by its message, reason or status", () => {
        const gates = {
          availabilityGates: [
            { conditionType: "G1" },
            { conditionType: "G2" },
            { conditionType: "G3" },
            { conditionType: "G4" },
            { conditionType: "G5" },
          ],
        }
        expect(
          available(
            healthy({
              spec: gates,
              conditions: [
                { type: "G2", status: "Unknown", reason: "R2", message: "m2" },
                { type: "G3", status: "Unknown", reason: "R3" },
                { type: "G4", status: "True", reason: "R4" },
                // neither reason nor message: nothing stands in
                { type: "G5", status: "Unknown" },
              ],
            }),
          ),
        ).toEqual([
          "Unknown",
          "AvailableUnknown",
          "* G1: Condition not yet reported\n* G2: m2\n* G3: R3\n* G5: ",
        ])
      })

      it("is Unknown when a summarized condition is Unknown", () => {
        const cp = [
          { type: "Available", status: "Unknown", reason: "Probing", message: "etcd not probed yet" },
        ]
        expect(available(healthy({ cp }))).toEqual([
          "Unknown",
          "AvailableUnknown",
          "* ControlPlaneAvailable: etcd not probed yet",
        ])
      })

      it("is False, listing the issues and the unknowns, when there are both", () => {
        const spec = {
          availabilityGates: [
            { conditionType: "G1" },
            { conditionType: "G2", polarity: "Negative" as const },
          ],
        }
        expect(
          available(
            healthy({
              spec,
              conditions: [{ type: "G2", status: "True", reason: "Broken", message: "disk full" }],
            }),
          ),
        ).toEqual(["False", "NotAvailable", "* G1: Condition not yet reported\n* G2: disk full"])
      })

      it("takes a negative-polarity gate reported False as met", () => {
        const spec = { availabilityGates: [{ conditionType: "G2", polarity: "Negative" as const }] }
        expect(
          available(healthy({ spec, conditions: [{ type: "G2", status: "False", reason: "Fine" }] })),
        ).toEqual(["True", "Available", ""])
      })

      it("is False with the workers' message alone when the workers are the only issue; MachineDeployments are named by kind in the in-progress conditions; a MachineSet without status has not reported", () => {
        const md = {
          metadata: { name: "md1", namespace: "default", labels: { "cluster.x-k8s.io/cluster-name": "c1" } },
          status: {
            conditions: [
              { type: "Available", status: "False", reason: "NotAvailable", message: "0 of 2 replicas" },
              { type: "RollingOut", status: "True", reason: "RollingOut" },
            ],
          },
        }
        const ms = { metadata: { name: "ms1", namespace: "default", ownerReferences: owner } }
        const i = healthy()
        const r = says(
          {
            ...i,
            observed: {
              ...i.observed,
              descendants: { ...EMPTY, machineDeployments: [md], machineSets: [ms] } as Descendants,
            },
          },
          ["WorkersAvailable", "Available", "RollingOut", "ScalingDown"],
        )
        expect(r.WorkersAvailable?.[0]).toBe("False")
        expect(r.Available).toEqual([
          "False",
          "NotAvailable",
          "* WorkersAvailable:\n  * MachineDeployment md1: 0 of 2 replicas",
        ])
        expect(r.RollingOut).toEqual(["True", "RollingOut", "* MachineDeployment md1: "])
        expect(r.ScalingDown).toEqual([
          "Unknown",
          "ScalingDownUnknown",
          "* MachineDeployment md1: Condition ScalingDown not yet reported\n* MachineSet ms1: Condition ScalingDown not yet reported",
        ])
      })

      it("of a topology Cluster: the ClusterClass's gates when the Cluster has none, with TopologyReconciled, once", () => {
        const withClass = (classGates: ReadonlyArray<object> | undefined, spec: ClusterSpec = {}) =>
          decide(
            {
              ...healthy({ spec: { topology: { classRef: { name: "cc" } }, ...spec } }),
              observed: {
                ...healthy().observed,
                clusterClass: {
                  _tag: "Found",
                  object: {
                    metadata: { name: "cc" },
                    ...(classGates === undefined ? {} : { spec: { availabilityGates: classGates } }),
                  },
                },
                featureGates: { runtimeSDK: false, clusterTopology: true, machinePool: true },
              } as ClusterInput["observed"],
            },
            ClusterControllerDefaults,
          )
        const message = (r: ReturnType<typeof decide>) => condition(r.status, "Available")?.message
        const both =
          "* TopologyReconciled: Condition not yet reported\n* FromClass: Condition not yet reported"
        expect(message(withClass([{ conditionType: "FromClass" }]))).toBe(both)
        expect(
          message(withClass([{ conditionType: "TopologyReconciled" }, { conditionType: "FromClass" }])),
        ).toBe(both)
        expect(message(withClass([{ conditionType: "FromClass" }], { availabilityGates: [] }))).toBe(
          "* TopologyReconciled: Condition not yet reported",
        )
        // a ClusterClass without a spec or without gates gates nothing but TopologyReconciled
        for (const none of [undefined, []])
          expect(message(withClass(none))).toBe("* TopologyReconciled: Condition not yet reported")
      })
    })

    it("Paused, by spec or by annotation", () => {
      expect(says(input({ spec: { paused: true } }), ["Paused"])).toEqual({
        Paused: ["True", "Paused", "Cluster spec.paused is set to true"],
      })
      expect(
        says(input({ spec: { paused: true }, meta: { annotations: { "cluster.x-k8s.io/paused": "" } } }), [
          "Paused",
        ]),
      ).toEqual({
        Paused: [
          "True",
          "Paused",
          "Cluster spec.paused is set to true, Cluster has the cluster.x-k8s.io/paused annotation",
        ],
      })
      expect(
        says(input({ spec: { paused: false }, meta: { annotations: { "cluster.x-k8s.io/paused": "" } } }), [
          "Paused",
        ]),
      ).toEqual({
        Paused: ["True", "Paused", "Cluster has the cluster.x-k8s.io/paused annotation"],
      })
    })
  })

  it("publishes each replica counter a control-plane object reports, alone or with others", () => {
    const counted = (spec: object | undefined, status: object) =>
      run({
        spec: { controlPlaneRef: cpRef },
        observed: {
          controlPlane: {
            _tag: "Found",
            object: { metadata: { name: "c1-cp" }, ...(spec === undefined ? {} : { spec }), status },
          },
        },
      }).status?.controlPlane
    expect(counted({ replicas: 3 }, {})).toStrictEqual({ desiredReplicas: 3 })
    expect(counted(undefined, { replicas: 2 })).toStrictEqual({ replicas: 2 })
    expect(counted(undefined, { readyReplicas: 1 })).toStrictEqual({ readyReplicas: 1 })
    expect(counted(undefined, { availableReplicas: 1 })).toStrictEqual({ availableReplicas: 1 })
    expect(counted(undefined, { upToDateReplicas: 1 })).toStrictEqual({ upToDateReplicas: 1 })
    expect(counted(undefined, { updatedReplicas: 2 })).toStrictEqual({ upToDateReplicas: 2 })
    expect(counted({ replicas: 3 }, { unavailableReplicas: 1 })).toStrictEqual({
      desiredReplicas: 3,
      availableReplicas: 2,
    })
    expect(counted({ replicas: 3 }, { unavailableReplicas: 5 })).toStrictEqual({
      desiredReplicas: 3,
      availableReplicas: 0,
    })
    expect(counted(undefined, {})).toBeUndefined()
    expect(counted(undefined, { unavailableReplicas: 1 })).toBeUndefined()
  })

  it("keeps a control-plane counter the object does not publish, and clears them all while it is gone", () => {
    const before: ClusterStatus = {
      ...NOT_PAUSED,
      controlPlane: {
        desiredReplicas: 3,
        replicas: 3,
        readyReplicas: 3,
        availableReplicas: 3,
        upToDateReplicas: 3,
      },
    }
    const counted = (controlPlane: ClusterInput["observed"]["controlPlane"]) =>
      run({ spec: { controlPlaneRef: cpRef }, status: before, observed: { controlPlane } }).status
        ?.controlPlane
    expect(
      counted({ _tag: "Found", object: { metadata: { name: "c1-cp" }, status: { readyReplicas: 2 } } }),
    ).toStrictEqual({
      desiredReplicas: 3,
      replicas: 3,
      readyReplicas: 2,
      availableReplicas: 3,
      upToDateReplicas: 3,
    })
    // the v1beta1 contract's availability from the kept desired count
    expect(
      counted({ _tag: "Found", object: { metadata: { name: "c1-cp" }, status: { unavailableReplicas: 1 } } })
        ?.availableReplicas,
    ).toBe(2)
    expect(counted({ _tag: "NotFound" })).toBeUndefined()
    expect(counted({ _tag: "GetFailed", error: "x" })).toBeUndefined()
  })

  it("writes no observedGeneration below 1 and reads no counters it was not given", () => {
    const r = run({ meta: { generation: 0 } })
    expect(r.status !== undefined && "observedGeneration" in r.status).toBe(false)
    // a control-plane object with a desired count but neither available nor unavailable replicas
    const cp = {
      apiVersion: "controlplane.cluster.x-k8s.io/v1beta1",
      metadata: { name: "c1-cp" },
      spec: { replicas: 3 },
      status: { replicas: 3, readyReplicas: 2 },
    }
    const counted = run({
      spec: { controlPlaneRef: cpRef },
      observed: { controlPlane: { _tag: "Found", object: cp } },
    })
    expect(counted.status?.controlPlane).toStrictEqual({ desiredReplicas: 3, replicas: 3, readyReplicas: 2 })
  })

  it("keeps the previous counters of a Cluster without status when its descendants cannot be listed", () => {
    const action: ClusterAction = {
      _tag: "SetControlPlaneEndpoint",
      cluster: { namespace: "default", name: "c1" },
      endpoint: { host: "10.0.0.1", port: 6443 },
      from: "infrastructure",
    }
    const base = input({
      observed: { descendants: { _tag: "ListFailed", error: "forbidden" } },
      trigger: { _tag: "ActionFailed", action, failure: { _tag: "Other", message: "conflict" } },
    })
    const found = base.observed.cluster
    if (found._tag !== "Found") throw new Error("a Found Cluster")
    const { status: _s, ...noStatus } = found.object
    const r = decide(
      { ...base, observed: { ...base.observed, cluster: { _tag: "Found", object: noStatus } } },
      ClusterControllerDefaults,
    )
    expect(r.status).not.toHaveProperty("controlPlane")
    expect(r.status).not.toHaveProperty("workers")
  })

  it("keeps a RemoteConnectionProbe condition's valid reason, and replaces one the CRD would refuse", () => {
    const kept = (status: "True" | "False", reason: string) =>
      condition(
        run({
          status: {
            conditions: [
              ...(NOT_PAUSED.conditions ?? []),
              {
                type: "RemoteConnectionProbe",
                status,
                reason,
                message: "m",
                lastTransitionTime: "2026-01-01T00:00:00Z",
              },
            ],
          },
        }).status,
        "RemoteConnectionProbe",
      )
    expect(kept("True", "Custom")?.reason).toBe("Custom")
    expect(kept("True", "not valid!")?.reason).toBe("ProbeSucceeded")
    expect(kept("False", "not valid!")?.reason).toBe("ProbeFailed")
  })

  it("answers a failed child delete with Deleting=InternalError and the error (Error Handling, row 8)", () => {
    const action: ClusterAction = {
      _tag: "DeleteObject",
      role: "descendant",
      ref: { apiGroup: "cluster.x-k8s.io", kind: "MachineSet", namespace: "default", name: "ms-1" },
    }
    const r = transitions["cluster.errors"](
      input({
        meta: { deletionTimestamp: "2026-01-01T00:00:00Z" },
        trigger: { _tag: "ActionFailed", action, failure: { _tag: "Other", message: "denied" } },
      }),
    )
    expect(r.row).toBe("cluster.errors#8")
    expect(r.actions.map((a) => a._tag)).toEqual(["PatchStatus", "Event", "ReturnError"])
    expect(r.actions[1]).toEqual(normalEvent("Deleting", "Cluster c1 is Deleting"))
    expect(condition(r.status, "Deleting")).toMatchObject({
      status: "True",
      reason: "InternalError",
      message: "Please check controller logs for errors",
    })
    expect(last(r.actions)).toEqual({
      _tag: "ReturnError",
      error: "failed to delete MachineSet ms-1: denied",
    })
    expect(r.actions[0]).toMatchObject({ _tag: "PatchStatus", cluster: { namespace: "default", name: "c1" } })
  })

  describe("a failed action (Error Handling)", () => {
    const endpoint = { host: "10.0.0.1", port: 6443 }
    const other: ClusterAction = {
      _tag: "SetControlPlaneEndpoint",
      cluster: { namespace: "default", name: "c1" },
      endpoint,
      from: "infrastructure",
    }
    const secret: ClusterAction = {
      _tag: "CreateKubeconfigSecret",
      cluster: { namespace: "default", name: "c1" },
      secret: { namespace: "default", name: "c1-kubeconfig" },
      caSecret: { namespace: "default", name: "c1-ca" },
      endpoint,
      type: "cluster.x-k8s.io/secret",
      key: "value",
      labels: {},
      ownerReference: { apiVersion: "cluster.x-k8s.io/v1beta2", kind: "Cluster", name: "c1" },
    }

    it("names the action and the error; a Cluster that is gone gets no status", () => {
      const r = run({
        trigger: { _tag: "ActionFailed", action: other, failure: { _tag: "Other", message: "conflict" } },
      })
      expect(last(r.actions)).toEqual({
        _tag: "ReturnError",
        error: "SetControlPlaneEndpoint failed: conflict",
      })
      expect(r.trace.error).toBe(true)
      const base = input({
        trigger: { _tag: "ActionFailed", action: other, failure: { _tag: "Other", message: "conflict" } },
      })
      const gone = decide(
        { ...base, observed: { ...base.observed, cluster: { _tag: "NotFound" } } },
        ClusterControllerDefaults,
      )
      expect(gone).toMatchObject({
        actions: [{ _tag: "ReturnError", error: "SetControlPlaneEndpoint failed: conflict" }],
        status: undefined,
      })
      expect(gone.trace.error).toBe(true)
      expect(gone.trace.deleting).toBe(false)
      // a not-found answer counts as a missing CA only for the kubeconfig Secret
      const other404 = transitions["cluster.normal"](
        input({
          trigger: {
            _tag: "ActionFailed",
            action: other,
            failure: { _tag: "NotFound", message: "not found" },
          },
        }),
      )
      expect(other404.row).toBe("cluster.normal#15")
      expect(last(other404.actions)).toEqual({
        _tag: "ReturnError",
        error: "SetControlPlaneEndpoint failed: not found",
      })
    })

    it("a kubeconfig Secret that fails to be created for another reason than a missing CA is an error (row 15, not 18)", () => {
      const r = transitions["cluster.normal"](
        input({
          spec: { controlPlaneEndpoint: endpoint },
          observed: { kubeconfigSecret: { _tag: "NotFound" } },
          trigger: { _tag: "ActionFailed", action: secret, failure: { _tag: "Other", message: "forbidden" } },
        }),
      )
      expect(r.row).toBe("cluster.normal#15")
      expect(last(r.actions)).toEqual({
        _tag: "ReturnError",
        error: "CreateKubeconfigSecret failed: forbidden",
      })
      const missingCa = run({
        spec: { controlPlaneEndpoint: endpoint },
        observed: { kubeconfigSecret: { _tag: "NotFound" } },
        trigger: {
          _tag: "ActionFailed",
          action: secret,
          failure: { _tag: "NotFound", message: "not found" },
        },
      })
      expect(missingCa.trace.error).toBe(false)
      // the missing CA with a kubeconfig Secret that cannot be read: that error
      const unreadable = run({
        spec: { controlPlaneEndpoint: endpoint },
        observed: { kubeconfigSecret: { _tag: "GetFailed", error: "timeout" } },
        trigger: {
          _tag: "ActionFailed",
          action: secret,
          failure: { _tag: "NotFound", message: "not found" },
        },
      })
      expect(last(unreadable.actions)).toEqual({
        _tag: "ReturnError",
        error: "failed to get Secret default/c1-kubeconfig: timeout",
      })
    })

    it("while deleting, only a failed delete sets Deleting=InternalError", () => {
      const r = run({
        meta: { deletionTimestamp: "2026-01-01T00:00:00Z" },
        trigger: { _tag: "ActionFailed", action: other, failure: { _tag: "Other", message: "conflict" } },
      })
      expect(condition(r.status, "Deleting")?.reason).not.toBe("InternalError")
    })
  })

  it("keeps one Paused condition and gives owned conditions written without a message an empty one", () => {
    const r = run({
      spec: { paused: true },
      status: {
        conditions: [
          { type: "Paused", status: "False", reason: "NotPaused", message: "" },
          { type: "Available", status: "False", reason: "NotAvailable" },
          { type: "Deleting", status: "False", reason: "NotDeleting", message: "kept" },
          { type: "Foreign", status: "True", reason: "Mine" },
        ],
      },
    })
    expect(r.status?.conditions?.map((c) => [c.type, c.message])).toEqual([
      ["Paused", "Cluster spec.paused is set to true"],
      ["Available", ""],
      ["Deleting", "kept"],
      ["Foreign", undefined],
    ])
  })

  it("announces the deletion when the finalizer goes, and joins several errors with '; '", () => {
    const done = run({ meta: { deletionTimestamp: "2026-01-01T00:00:00Z" } })
    expect(
      done.actions.filter(
        (a) => a._tag === "RemoveFinalizer" || (a._tag === "Event" && a.reason === "Deleted"),
      ),
    ).toEqual([
      {
        _tag: "RemoveFinalizer",
        cluster: { namespace: "default", name: "c1" },
        finalizer: "cluster.cluster.x-k8s.io",
      },
      normalEvent("Deleted", "Cluster c1 has been deleted"),
    ])
    const failing = run({
      spec: { infrastructureRef: infraRef, controlPlaneRef: cpRef },
      observed: {
        infrastructure: { _tag: "GetFailed", error: "a" },
        controlPlane: { _tag: "GetFailed", error: "b" },
      },
    })
    expect(last(failing.actions)).toEqual({
      _tag: "ReturnError",
      error: "failed to get DockerCluster c1: a; failed to get KubeadmControlPlane c1-cp: b",
    })
    const unlisted = run({ observed: { descendants: { _tag: "ListFailed", error: "forbidden" } } })
    expect(last(unlisted.actions)).toEqual({
      _tag: "ReturnError",
      error: "failed to list descendants of Cluster default/c1: forbidden",
    })
    // a referenced object that does not exist yet is named by its kind
    expect(
      condition(
        run({ spec: { infrastructureRef: infraRef, controlPlaneRef: cpRef } }).status,
        "InfrastructureReady",
      )?.message,
    ).toBe("DockerCluster does not exist")
    expect(
      condition(
        run({ spec: { infrastructureRef: infraRef, controlPlaneRef: cpRef } }).status,
        "ControlPlaneAvailable",
      )?.message,
    ).toBe("KubeadmControlPlane does not exist")
  })
})

describe("requeue", () => {
  it("keeps the smallest non-zero duration asked for", () => {
    const scope = { requeueAfter: 0 } as Parameters<typeof requeue>[0]
    requeue(scope, 0)
    expect(scope.requeueAfter).toBe(0)
    requeue(scope, 30_000)
    expect(scope.requeueAfter).toBe(30_000)
    requeue(scope, 5_000)
    expect(scope.requeueAfter).toBe(5_000)
    requeue(scope, 5_001)
    requeue(scope, -1)
    requeue(scope, 0)
    expect(scope.requeueAfter).toBe(5_000)
    requeue(scope, 4_999)
    expect(scope.requeueAfter).toBe(4_999)
  })
})

describe("reconcile: the governing row", () => {
  const secret: ClusterAction = {
    _tag: "CreateKubeconfigSecret",
    cluster: { namespace: "default", name: "c1" },
    secret: { namespace: "default", name: "c1-kubeconfig" },
    caSecret: { namespace: "default", name: "c1-ca" },
    endpoint: { host: "10.0.0.1", port: 6443 },
    type: "cluster.x-k8s.io/secret",
    key: "value",
    labels: {},
    ownerReference: { apiVersion: "cluster.x-k8s.io/v1beta2", kind: "Cluster", name: "c1" },
  }
  const gone = {
    _tag: "DeleteObject",
    role: "descendant",
    ref: { ...infraRef, namespace: "default" },
  } as const

  it("is Normal Reconciliation's row while the Cluster is not deleting, with the traced actions and status", () => {
    const i = input({ meta: { finalizers: [] } })
    const r = reconcile(i)
    expect(r.row).toBe("cluster.normal#2")
    expect(r.actions).toEqual(decide(i, ClusterControllerDefaults).actions)
    expect(reconcile(input()).row).toBe(transitions["cluster.normal"](input()).row)
  })

  it("reads a status without v1beta1 conditions: the control plane counts as not yet initialized", () => {
    const i = input({ status: { ...NOT_PAUSED, deprecated: {} } })
    expect(decide(i, ClusterControllerDefaults).trace.initializedFallback).toBe(true)
  })

  it("is Deletion Reconciliation's row while the Cluster is deleting", () => {
    const i = input({ meta: { deletionTimestamp: "2026-01-01T00:00:00Z" } })
    const r = reconcile(i, ClusterControllerDefaults)
    expect(r.row).toBe(transitions["cluster.deletion"](i).row)
    expect(r.row.startsWith("cluster.deletion#")).toBe(true)
    expect(r.status).toEqual(decide(i, ClusterControllerDefaults).status)
  })

  it("is Error Handling's row when the trigger reports a failed action: derived row 11 for a missing CA", () => {
    const failed = (action: ClusterAction, reason: "NotFound" | "Conflict", meta = {}) =>
      reconcile(
        input({
          meta,
          spec: { controlPlaneEndpoint: { host: "10.0.0.1", port: 6443 } },
          observed: { kubeconfigSecret: { _tag: "NotFound" } },
          trigger: { _tag: "ActionFailed", action, failure: actionFailure(reason, "refused") },
        }),
      )
    const missingCa = failed(secret, "NotFound")
    expect(actionFailure("NotFound", "refused")).toEqual({ _tag: "NotFound", message: "refused" })
    expect(missingCa.row).toBe("cluster.errors#11")
    expect(last(missingCa.actions)).toEqual({ _tag: "Requeue", after: 30_000 })
    expect(failed(secret, "Conflict").row).toBe("cluster.errors#6")
    expect(failed(gone, "Conflict", { deletionTimestamp: "2026-01-01T00:00:00Z" }).row).toBe(
      "cluster.errors#8",
    )
  })
})
