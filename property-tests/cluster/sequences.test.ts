/**
 * Sequences over virtual time: a small world (the Cluster, its InfraCluster and control plane,
 * descendants, the kubeconfig Secret) in which providers flip their status, objects vanish and
 * reappear, actions fail, deletion is requested at any point, and the controller reconciles in
 * between. After every reconcile the temporal promises of seed 001 are checked; at the end, with
 * the world left alone, the Cluster must reach Provisioned, or be gone if it was deleted.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  type ClusterAction,
  ClusterControllerDefaults,
  type ClusterInput,
  type ClusterSpec,
  type ClusterStatus,
  type Condition,
  type ControlPlane,
  type InfrastructureCluster,
  type Machine,
  type MachineGroup,
  type ObjectMeta,
  type ObservedCluster,
  reconcile,
} from "../../core/cluster/index.ts"

const NS = "default"
const NAME = "c1"
const UID = "uid-1"
const TS = "2024-05-01T10:00:00Z"
const clusterOwner = { apiVersion: "cluster.x-k8s.io/v1beta2", kind: "Cluster", name: NAME, uid: UID }

interface World {
  cluster: { metadata: ObservedCluster["metadata"]; spec: ClusterSpec; status?: ClusterStatus } | undefined
  infra: InfrastructureCluster | undefined
  cp: ControlPlane | undefined
  mds: Array<MachineGroup>
  mss: Array<MachineGroup>
  machines: Array<Machine>
  kubeconfig: boolean
  now: number
  /** Set once the user asked for the deletion. */
  deletionRequested: boolean
  everProvisioned: boolean
  /** For unique names. */
  serial: number
}

type Event =
  | { readonly _tag: "Reconcile"; readonly failAt: number }
  | { readonly _tag: "Advance"; readonly ms: number }
  | { readonly _tag: "InfraProvisioned"; readonly value: boolean }
  | { readonly _tag: "ControlPlaneInitialized"; readonly value: boolean }
  | { readonly _tag: "InfraVanishes" }
  | { readonly _tag: "InfraReappears" }
  | { readonly _tag: "ControlPlaneVanishes" }
  | { readonly _tag: "ControlPlaneReappears" }
  | { readonly _tag: "AddWorkers" }
  | { readonly _tag: "NodeJoins" }
  | { readonly _tag: "Pause"; readonly value: boolean }
  | { readonly _tag: "DeleteCluster" }
  | { readonly _tag: "Finish" }

const eventArb: fc.Arbitrary<Event> = fc.oneof(
  {
    weight: 10,
    arbitrary: fc.record({
      _tag: fc.constant("Reconcile" as const),
      failAt: fc.integer({ min: -8, max: 6 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ _tag: fc.constant("Advance" as const), ms: fc.integer({ min: 1, max: 120_000 }) }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ _tag: fc.constant("InfraProvisioned" as const), value: fc.boolean() }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ _tag: fc.constant("ControlPlaneInitialized" as const), value: fc.boolean() }),
  },
  { weight: 1, arbitrary: fc.constant({ _tag: "InfraVanishes" as const }) },
  { weight: 1, arbitrary: fc.constant({ _tag: "InfraReappears" as const }) },
  { weight: 1, arbitrary: fc.constant({ _tag: "ControlPlaneVanishes" as const }) },
  { weight: 1, arbitrary: fc.constant({ _tag: "ControlPlaneReappears" as const }) },
  { weight: 2, arbitrary: fc.constant({ _tag: "AddWorkers" as const }) },
  { weight: 1, arbitrary: fc.constant({ _tag: "NodeJoins" as const }) },
  { weight: 1, arbitrary: fc.record({ _tag: fc.constant("Pause" as const), value: fc.boolean() }) },
  { weight: 1, arbitrary: fc.constant({ _tag: "DeleteCluster" as const }) },
  { weight: 3, arbitrary: fc.constant({ _tag: "Finish" as const }) },
)

const setupArb = fc.record({
  infraRef: fc.boolean(),
  cpRef: fc.boolean(),
  infraExists: fc.boolean(),
  cpExists: fc.boolean(),
})

const infraRef = { apiGroup: "infrastructure.cluster.x-k8s.io", kind: "DockerCluster", name: "c1-infra" }
const cpRef = { apiGroup: "controlplane.cluster.x-k8s.io", kind: "KubeadmControlPlane", name: "c1-cp" }

const newInfra = (): InfrastructureCluster => ({
  metadata: { name: infraRef.name, namespace: NS },
  spec: { controlPlaneEndpoint: { host: "10.0.0.1", port: 6443 } },
  status: { initialization: { provisioned: false }, failureDomains: [{ name: "fd-1", controlPlane: true }] },
})
const newControlPlane = (): ControlPlane => ({
  metadata: { name: cpRef.name, namespace: NS },
  spec: { replicas: 1 },
  status: { initialization: { controlPlaneInitialized: false } },
})

const newWorld = (s: {
  infraRef: boolean
  cpRef: boolean
  infraExists: boolean
  cpExists: boolean
}): World => ({
  cluster: {
    metadata: { name: NAME, namespace: NS, uid: UID, generation: 1 },
    spec: {
      ...(s.infraRef ? { infrastructureRef: infraRef } : {}),
      ...(s.cpRef ? { controlPlaneRef: cpRef } : {}),
    },
  },
  infra: s.infraRef && s.infraExists ? newInfra() : undefined,
  cp: s.cpRef && s.cpExists ? newControlPlane() : undefined,
  mds: [],
  mss: [],
  machines: [],
  kubeconfig: false,
  now: 1_700_000_000_000,
  deletionRequested: false,
  everProvisioned: false,
  serial: 0,
})

const deleting = (m: ObjectMeta) => m.deletionTimestamp !== undefined
const markDeleting = <T extends { metadata: ObjectMeta }>(o: T): T =>
  deleting(o.metadata) ? o : { ...o, metadata: { ...o.metadata, deletionTimestamp: TS } }
const isCp = (m: Machine) => m.metadata.labels?.["cluster.x-k8s.io/control-plane"] !== undefined

/** What the controller observes of the world. */
const observe = (w: World, trigger: ClusterInput["trigger"]): ClusterInput => {
  const c = w.cluster
  return {
    observed: {
      cluster:
        c === undefined
          ? { _tag: "NotFound" }
          : {
              _tag: "Found",
              object: { metadata: c.metadata, ...(c.status === undefined ? {} : { status: c.status }) },
            },
      clusterClass: { _tag: "NotFound" },
      infrastructure: w.infra === undefined ? { _tag: "NotFound" } : { _tag: "Found", object: w.infra },
      controlPlane: w.cp === undefined ? { _tag: "NotFound" } : { _tag: "Found", object: w.cp },
      descendants: {
        _tag: "Listed",
        machineDeployments: w.mds,
        machineSets: w.mss,
        machinePools: [],
        machines: w.machines,
      },
      kubeconfigSecret: { _tag: w.kubeconfig ? "Found" : "NotFound" },
      featureGates: { runtimeSDK: false, clusterTopology: false, machinePool: true },
      remoteConnection: {},
    },
    desired: c?.spec ?? {},
    trigger,
    now: w.now,
  }
}

/** The descendants whose deletion the Cluster waits for, in the world. */
const pendingDescendants = (w: World): number =>
  w.mds.length +
  w.mss.length +
  w.machines.filter((m) => !isCp(m)).length +
  (w.cluster?.spec.controlPlaneRef === undefined ? w.machines.filter(isCp).length : 0)

const condition = (s: ClusterStatus | undefined, type: string): Condition | undefined =>
  s?.conditions?.find((c) => c.type === type)

/** Checks the promises of seed 001 on one decision, against the world it was taken in. */
const checkDecision = (w: World, actions: ReadonlyArray<ClusterAction>): void => {
  const descendants = pendingDescendants(w)
  for (const a of actions) {
    if (a._tag === "DeleteObject" && a.role !== "descendant") {
      expect(descendants, `${a.role} deleted while ${descendants} descendants remain`).toBe(0)
      if (a.role === "infrastructure")
        expect(w.cp, "infrastructure deleted before the control plane").toBeUndefined()
      expect(w.cluster?.metadata.deletionTimestamp, "deletes only while deleting").toBeDefined()
    }
    if (a._tag === "DeleteObject" && a.role === "descendant")
      expect(w.cluster?.metadata.deletionTimestamp, "deletes only while deleting").toBeDefined()
    if (a._tag === "RemoveFinalizer") {
      expect(descendants, "finalizer removed while descendants remain").toBe(0)
      expect(w.cp, "finalizer removed while the control plane remains").toBeUndefined()
      expect(w.infra, "finalizer removed while the infrastructure remains").toBeUndefined()
    }
    if (a._tag === "Requeue")
      expect([
        ClusterControllerDefaults.missingReferenceRequeueAfter,
        ClusterControllerDefaults.deleteRequeueAfter,
      ]).toContain(a.after)
    if (a._tag === "PatchStatus")
      checkStatus(
        w,
        a.status,
        w.cluster?.spec?.controlPlaneEndpoint !== undefined ||
          actions.some((x) => x._tag === "SetControlPlaneEndpoint"),
      )
  }
  expect(actions.filter((a) => a._tag === "Requeue" || a._tag === "ReturnError").length).toBeLessThanOrEqual(
    1,
  )
}

/** Conditions are consistent with the phase; a provisioned Cluster never goes back to Pending. */
const checkStatus = (w: World, s: ClusterStatus, hasEndpoint: boolean): void => {
  const phase = s.phase
  const flags = s.initialization
  if (phase !== undefined) {
    expect(condition(s, "Deleting")?.status === "True", `Deleting condition vs phase ${phase}`).toBe(
      phase === "Deleting",
    )
    // Upstream's setPhase: the infrastructure provisioned and a valid endpoint.
    if (phase === "Provisioned") {
      expect(flags?.infrastructureProvisioned).toBe(true)
      expect(hasEndpoint, "Provisioned without an endpoint").toBe(true)
    }
    if (phase === "Pending") expect(flags?.infrastructureProvisioned).not.toBe(true)
    if (w.everProvisioned) expect(phase, "a provisioned Cluster went back to Pending").not.toBe("Pending")
    expect(condition(s, "Available")?.status === "True" && phase === "Deleting").toBe(false)
    // The v1beta1 Ready summarizes the providers' Ready only (upstream v1.14.2): a provider
    // still Ready keeps it True while the Cluster is deleted.
  }
  // Upstream v1.14.2 sets the flag from a control-plane object alone; the conditions also count
  // a control-plane Machine with a node. An initialized control plane shows in both.
  if (flags?.controlPlaneInitialized === true)
    expect(condition(s, "ControlPlaneInitialized")?.status, "flag set, condition not True").toBe("True")
  const old = w.cluster?.status?.initialization
  if (old?.infrastructureProvisioned === true) expect(flags?.infrastructureProvisioned).toBe(true)
  if (old?.controlPlaneInitialized === true) expect(flags?.controlPlaneInitialized).toBe(true)
}

/** Applies one action to the world; returns an error when the API would refuse it. */
const apply = (w: World, a: ClusterAction): string | undefined => {
  const c = w.cluster
  switch (a._tag) {
    case "AddFinalizer":
      if (c === undefined) return "NotFound"
      if (deleting(c.metadata))
        return "Forbidden: no new finalizers can be added if the object is being deleted"
      c.metadata = { ...c.metadata, finalizers: [...(c.metadata.finalizers ?? []), a.finalizer] }
      return undefined
    case "RemoveFinalizer":
      if (c === undefined) return "NotFound"
      c.metadata = {
        ...c.metadata,
        finalizers: (c.metadata.finalizers ?? []).filter((f) => f !== a.finalizer),
      }
      if (deleting(c.metadata) && (c.metadata.finalizers ?? []).length === 0) w.cluster = undefined
      return undefined
    case "PatchStatus":
      if (c === undefined) return "NotFound"
      c.status = a.status
      if (a.status.initialization?.infrastructureProvisioned === true) w.everProvisioned = true
      return undefined
    case "SetControlPlaneEndpoint":
      if (c === undefined) return "NotFound"
      c.spec = { ...c.spec, controlPlaneEndpoint: a.endpoint }
      return undefined
    case "PatchExternal": {
      const target = a.role === "infrastructure" ? w.infra : w.cp
      if (target === undefined) return "NotFound"
      const metadata = {
        ...target.metadata,
        labels: { ...target.metadata.labels, ...a.labels },
        ownerReferences: [...(target.metadata.ownerReferences ?? []), a.ownerReference],
      }
      if (a.role === "infrastructure") w.infra = { ...(target as InfrastructureCluster), metadata }
      else w.cp = { ...(target as ControlPlane), metadata }
      return undefined
    }
    case "CreateKubeconfigSecret":
      w.kubeconfig = true
      return undefined
    case "DeleteObject":
      if (a.role === "infrastructure") w.infra = w.infra === undefined ? undefined : markDeleting(w.infra)
      else if (a.role === "controlPlane") w.cp = w.cp === undefined ? undefined : markDeleting(w.cp)
      else {
        w.mds = w.mds.map((o) =>
          o.metadata.name === a.ref.name && a.ref.kind === "MachineDeployment" ? markDeleting(o) : o,
        )
        w.mss = w.mss.map((o) =>
          o.metadata.name === a.ref.name && a.ref.kind === "MachineSet" ? markDeleting(o) : o,
        )
        w.machines = w.machines.map((o) =>
          o.metadata.name === a.ref.name && a.ref.kind === "Machine" ? markDeleting(o) : o,
        )
      }
      return undefined
    case "Event":
    case "Requeue":
    case "ReturnError":
      return undefined
  }
}

/** One reconcile: decide, check, apply in order; a failure is reported back to the controller. */
const reconcileOnce = (w: World, failAt: number): void => {
  const decided = reconcile(observe(w, { _tag: "Reconcile" }), ClusterControllerDefaults)
  checkDecision(w, decided.actions)
  for (let k = 0; k < decided.actions.length; k++) {
    const a = decided.actions[k] as ClusterAction
    const refused =
      k === failAt && a._tag !== "Requeue" && a._tag !== "ReturnError" ? "injected failure" : apply(w, a)
    if (refused !== undefined) {
      const answer = reconcile(
        observe(w, { _tag: "ActionFailed", action: a, failure: { _tag: "Other", message: refused } }),
        ClusterControllerDefaults,
      )
      checkDecision(w, answer.actions)
      expect(answer.actions.at(-1)?._tag).toBe("ReturnError")
      for (const b of answer.actions) apply(w, b)
      return
    }
  }
}

const step = (w: World, e: Event): void => {
  switch (e._tag) {
    case "Reconcile":
      reconcileOnce(w, e.failAt)
      return
    case "Advance":
      w.now += e.ms
      return
    case "InfraProvisioned":
      if (w.infra !== undefined)
        w.infra = { ...w.infra, status: { ...w.infra.status, initialization: { provisioned: e.value } } }
      return
    case "ControlPlaneInitialized":
      if (w.cp !== undefined)
        w.cp = { ...w.cp, status: { ...w.cp.status, initialization: { controlPlaneInitialized: e.value } } }
      return
    case "InfraVanishes":
      w.infra = undefined
      return
    case "InfraReappears":
      if (w.cluster?.spec.infrastructureRef !== undefined && w.infra === undefined && !w.deletionRequested)
        w.infra = newInfra()
      return
    case "ControlPlaneVanishes":
      w.cp = undefined
      w.machines = w.machines.filter((m) => !(isCp(m) && w.cluster?.spec.controlPlaneRef !== undefined))
      return
    case "ControlPlaneReappears":
      if (w.cluster?.spec.controlPlaneRef !== undefined && w.cp === undefined && !w.deletionRequested)
        w.cp = newControlPlane()
      return
    case "AddWorkers": {
      if (w.cluster === undefined || w.deletionRequested) return
      const n = w.serial++
      w.mds.push({
        metadata: { name: `md-${n}`, namespace: NS, ownerReferences: [clusterOwner] },
        spec: { replicas: 1 },
      })
      w.mss.push({
        metadata: {
          name: `ms-${n}`,
          namespace: NS,
          ownerReferences: [
            { apiVersion: "cluster.x-k8s.io/v1beta2", kind: "MachineDeployment", name: `md-${n}` },
          ],
        },
        spec: { replicas: 1 },
      })
      w.machines.push({
        metadata: {
          name: `m-${n}`,
          namespace: NS,
          ownerReferences: [{ apiVersion: "cluster.x-k8s.io/v1beta2", kind: "MachineSet", name: `ms-${n}` }],
        },
      })
      if (n % 3 === 0)
        w.machines.push({
          metadata: { name: `standalone-${n}`, namespace: NS, ownerReferences: [clusterOwner] },
        })
      return
    }
    case "NodeJoins": {
      if (w.cluster === undefined || w.deletionRequested) return
      const owner =
        w.cluster.spec.controlPlaneRef === undefined
          ? clusterOwner
          : {
              apiVersion: "controlplane.cluster.x-k8s.io/v1beta2",
              kind: "KubeadmControlPlane",
              name: cpRef.name,
            }
      w.machines.push({
        metadata: {
          name: `cp-${w.serial++}`,
          namespace: NS,
          labels: { "cluster.x-k8s.io/control-plane": "" },
          ownerReferences: [owner],
        },
        status: { nodeRef: { name: "node-1" } },
      })
      return
    }
    case "Pause":
      if (w.cluster !== undefined) w.cluster.spec = { ...w.cluster.spec, paused: e.value }
      return
    case "DeleteCluster":
      if (w.cluster === undefined) return
      w.deletionRequested = true
      w.cluster.metadata = { ...w.cluster.metadata, deletionTimestamp: TS }
      if ((w.cluster.metadata.finalizers ?? []).length === 0) w.cluster = undefined
      return
    case "Finish": {
      // The controllers of deleting objects finish: deleted objects go, and so do the objects
      // whose owner went (garbage collection).
      w.mds = w.mds.filter((o) => !deleting(o.metadata))
      const mdNames = new Set(w.mds.map((o) => o.metadata.name))
      w.mss = w.mss.filter(
        (o) =>
          !deleting(o.metadata) &&
          (o.metadata.ownerReferences ?? []).every(
            (r) => r.kind !== "MachineDeployment" || mdNames.has(r.name),
          ),
      )
      const msNames = new Set(w.mss.map((o) => o.metadata.name))
      if (w.cp !== undefined && deleting(w.cp.metadata)) w.cp = undefined
      w.machines = w.machines.filter(
        (m) =>
          !deleting(m.metadata) &&
          (m.metadata.ownerReferences ?? []).every(
            (r) =>
              (r.kind !== "MachineSet" || msNames.has(r.name)) &&
              (r.kind !== "KubeadmControlPlane" || w.cp !== undefined),
          ),
      )
      if (w.infra !== undefined && deleting(w.infra.metadata)) w.infra = undefined
      return
    }
  }
}

/** Leaves the world alone but for the controller and the providers doing their job. */
const settle = (w: World): void => {
  for (let k = 0; k < 40 && w.cluster !== undefined; k++) {
    if (w.cluster.spec.paused === true) step(w, { _tag: "Pause", value: false })
    if (!w.deletionRequested) {
      if (w.cluster.spec.infrastructureRef !== undefined && w.infra === undefined)
        step(w, { _tag: "InfraReappears" })
      if (w.cluster.spec.controlPlaneRef !== undefined && w.cp === undefined)
        step(w, { _tag: "ControlPlaneReappears" })
      step(w, { _tag: "InfraProvisioned", value: true })
      step(w, { _tag: "ControlPlaneInitialized", value: true })
      if (w.cluster.spec.controlPlaneRef === undefined && !w.machines.some(isCp))
        step(w, { _tag: "NodeJoins" })
    }
    step(w, { _tag: "Reconcile", failAt: -1 })
    step(w, { _tag: "Finish" })
    step(w, { _tag: "Advance", ms: 5_000 })
  }
}

describe("Cluster controller sequences (seed 001)", () => {
  it("keeps the deletion order, never un-provisions, keeps conditions consistent with the phase", () => {
    fc.assert(
      fc.property(setupArb, fc.array(eventArb, { maxLength: 60 }), (setup, events) => {
        const w = newWorld(setup)
        for (const e of events) step(w, e)
        settle(w)
        if (w.deletionRequested) expect(w.cluster, "a deleted Cluster is eventually gone").toBeUndefined()
        else if (w.cluster?.spec?.controlPlaneEndpoint !== undefined)
          expect(w.cluster.status?.phase, "a Cluster left alone becomes Provisioned").toBe("Provisioned")
        // Upstream's setPhase: without an endpoint (no infrastructure publishing one)
        // a Cluster stays Provisioning, whatever its control plane says.
        else expect(w.cluster?.status?.phase, "no endpoint: still Provisioning").toBe("Provisioning")
      }),
      { numRuns: 400 },
    )
  })

  it("deletes descendants, then the control plane, then the infrastructure, then removes the finalizer", () => {
    const w = newWorld({ infraRef: true, cpRef: true, infraExists: true, cpExists: true })
    step(w, { _tag: "AddWorkers" })
    step(w, { _tag: "InfraProvisioned", value: true })
    step(w, { _tag: "ControlPlaneInitialized", value: true })
    for (let k = 0; k < 3; k++) step(w, { _tag: "Reconcile", failAt: -1 })
    expect(w.cluster?.status?.phase).toBe("Provisioned")
    step(w, { _tag: "DeleteCluster" })
    const order: Array<string> = []
    for (let k = 0; k < 12 && w.cluster !== undefined; k++) {
      const d = reconcile(observe(w, { _tag: "Reconcile" }), ClusterControllerDefaults)
      checkDecision(w, d.actions)
      for (const a of d.actions) {
        if (a._tag === "DeleteObject") order.push(a.role)
        if (a._tag === "RemoveFinalizer") order.push("finalizer")
        apply(w, a)
      }
      step(w, { _tag: "Finish" })
    }
    expect(w.cluster).toBeUndefined()
    expect(order).toEqual(["descendant", "descendant", "controlPlane", "infrastructure", "finalizer"])
  })

  it("requeues after 30 s while a referenced object is missing, and after 5 s while descendants are deleted", () => {
    const w = newWorld({ infraRef: true, cpRef: false, infraExists: false, cpExists: false })
    step(w, { _tag: "Reconcile", failAt: -1 }) // finalizer
    step(w, { _tag: "Reconcile", failAt: -1 }) // Paused=False
    const missing = reconcile(observe(w, { _tag: "Reconcile" }), ClusterControllerDefaults)
    expect(missing.actions.at(-1)).toEqual({ _tag: "Requeue", after: 30_000 })
    step(w, { _tag: "InfraReappears" })
    step(w, { _tag: "AddWorkers" })
    step(w, { _tag: "DeleteCluster" })
    const first = reconcile(observe(w, { _tag: "Reconcile" }), ClusterControllerDefaults)
    expect(first.actions.at(-1)).toEqual({ _tag: "Requeue", after: 5_000 })
  })
})
