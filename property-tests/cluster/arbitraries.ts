/**
 * fast-check generators for the Cluster controller's input (seed 001), biased so that every
 * documented row of its six tables decides a good share of the generated inputs (the coverage
 * report asks for 50 of 2,000).
 *
 * An input is built from a few "knobs" (is the Cluster deleting, paused, does the InfraCluster
 * exist and is it provisioned, which descendants are left, ...). A scenario fixes the knobs a
 * row needs and leaves the others random; each table's generator picks among the scenarios of
 * its rows, so that every row gets its share while everything else still varies.
 *
 * @module
 */
import fc from "fast-check"
import type {
  ClusterAction,
  ClusterInput,
  ClusterStatus,
  Condition,
  ConditionStatus,
  ControlPlane,
  InfrastructureCluster,
  Machine,
  MachineGroup,
  ObjectMeta,
  OwnerReference,
} from "../../core/cluster/index.ts"

const NOW = { min: 1_700_000_000_000, max: 1_800_000_000_000 }
const FINALIZER = "cluster.cluster.x-k8s.io"
const CLUSTER_API = "cluster.x-k8s.io/v1beta2"

export type Fetch = "Found" | "NotFound" | "GetFailed"
export type Shape = "empty" | "ownedLive" | "ownedDeleting" | "indirect" | "cpMachines" | "random" | "failed"
export type Failed =
  | "none"
  | "AddFinalizer"
  | "DeleteDescendant"
  | "DeleteControlPlane"
  | "DeleteInfrastructure"
  | "Other"
  /** CreateKubeconfigSecret refused for want of the `<cluster>-ca` Secret (NotFound). */
  | "MissingCA"

/** The knobs an input is built from. */
export interface Knobs {
  readonly failed: Failed
  readonly cluster: Fetch
  readonly finalizer: boolean
  /**
   * Another controller's finalizer on the Cluster, beside ours or alone: "add ours only
   * when absent" (Normal Reconciliation row 2) is then distinguished from "add when there are none".
   */
  readonly foreignFinalizer: boolean
  /** `metadata.generation`: 0 and 1 are the edges of upstream's `observedGeneration >= 1`. */
  readonly generation: 0 | 1 | 3
  /**
   * The Cluster carries conditions a previous reconcile wrote that no longer hold:
   * Paused=True on a Cluster no longer paused is `pausedCondition: "True"`; this adds the other
   * owned v1beta2 and v1beta1 conditions with the status a row must overwrite.
   */
  readonly staleConditions: boolean
  readonly deleting: boolean
  readonly paused: "no" | "spec" | "annotation"
  readonly pausedCondition: "False" | "FalseStale" | "True" | "absent"
  /** The Deleting condition is already True (a reconcile after the first one of a deletion). */
  readonly deletingConditionTrue: boolean
  readonly topology: boolean
  readonly clusterClass: Fetch
  readonly okToDelete: boolean
  readonly runtimeSDK: boolean
  readonly clusterTopology: boolean
  readonly machinePool: boolean
  readonly infraRef: boolean
  readonly infra: Fetch
  /** What the InfraCluster says: v1beta2 or v1beta1 contract, provisioned or not. */
  readonly infraProvisioned: "v1beta2" | "v1beta1" | "no" | "v1beta2No"
  readonly infraDeleting: boolean
  /** The InfraCluster's owner reference to the Cluster and cluster-name label, each present or not. */
  readonly infraOwned: Ownership
  readonly infraReadyCondition: ConditionStatus | "absent"
  /**
   * The reason on the providers' mirrored conditions (and a kept RemoteConnectionProbe): one the
   * CRDs accept, one metav1.Condition's pattern refuses (a v1beta1 reason still), none, or one
   * longer than both limits (the mirrors' fallbacks).
   */
  readonly providerReason: "valid" | "pattern" | "absent" | "long"
  /** The control-plane object's own `Available` condition, and its v1beta1 `Ready`. */
  readonly cpAvailableCondition: boolean
  /**
   * The control plane's replica counters: the v1beta2 contract's, the v1beta1 one's with 2, 3 or 4
   * of its 3 replicas unavailable (`available = max(0, 3 - unavailable)` at 1, 0 and -1), none.
   */
  readonly cpCounters: "v1beta2" | "v1beta1-2" | "v1beta1-3" | "v1beta1-4" | "none"
  /** The control-plane object's `status.versions` (v1.14). */
  readonly cpVersions: "absent" | "valid" | "empty" | "descending" | "notList" | "badVersion"
  /** The InfraCluster publishes no failure domains (the Cluster leaves the field out). */
  readonly noFailureDomains: boolean
  /** Which provider reports a v1beta1 `status.failureReason`/`failureMessage`. */
  readonly providerFailure: "none" | "infra" | "cp" | "both"
  readonly cpReadyCondition: ConditionStatus | "absent"
  /**
   * The Cluster's availability gate: unreported, none at all, met, unmet, or a Negative one met
   * (its condition False) or unmet (True).
   */
  readonly gates: "unreported" | "none" | "met" | "unmet" | "negativeMet" | "negativeUnmet"
  readonly infraEndpoint: boolean
  readonly infraFlag: boolean
  readonly cpRef: boolean
  readonly cp: Fetch
  readonly cpInitialized: "v1beta2" | "v1beta1" | "no"
  readonly cpDeleting: boolean
  readonly cpOwned: Ownership
  readonly cpEndpoint: boolean
  readonly cpFlag: boolean
  readonly clusterEndpoint: boolean
  readonly descendants: Shape
  readonly malformed: boolean
  /**
   * An owner reference of another kind that bears the Cluster's name and an apiVersion that does
   * not parse: not the Cluster's, so it must not make filterOwnedDescendants undecidable.
   */
  readonly otherOwnerMalformed: boolean
  /** A control-plane Machine with a nodeRef: none, an active one, or one being deleted. */
  readonly cpNode: "none" | "active" | "deleting"
  readonly kubeconfig: Fetch
  readonly phase: "unset" | "Pending" | "Provisioning" | "Provisioned"
  readonly deprecatedFailure: boolean
  /**
   * When the last health probe succeeded: never, well within the grace period (50 s), long past
   * it, or at its edge (exactly at, 1 ms before, 1 ms after `now - 50 s`).
   */
  readonly probe: "never" | "recent" | "stale" | "edgeBefore" | "edgeAt" | "edgeAfter"
  /** The ClusterCache's failed probes in a row; 4, 5 and 6 are the edge of the threshold (5). */
  readonly probeFailures: number
}

/**
 * Owner reference and cluster-name label of a provider object: "both", as a Cluster without a
 * topology leaves them; "controlled", both with the controller reference a topology Cluster
 * sets; "stale", both with an owner reference of the older API version.
 */
export type Ownership = "both" | "controlled" | "stale" | "owned" | "labelled" | "neither"
/** The documented edges the generators aim at. */
export const GRACE_PERIOD_EDGE = 50_000
export const FAILURE_THRESHOLD_EDGE = 5

type Overrides = { readonly [K in keyof Knobs]?: Knobs[K] | fc.Arbitrary<Knobs[K]> }

const weighted = <T>(...entries: ReadonlyArray<readonly [number, T]>): fc.Arbitrary<T> =>
  fc.oneof(...entries.map(([weight, v]) => ({ weight, arbitrary: fc.constant(v) })))
const fetchArb = weighted<Fetch>([6, "Found"], [3, "NotFound"], [1, "GetFailed"])
const often = (p: number) =>
  fc.oneof({ weight: p, arbitrary: fc.constant(true) }, { weight: 10 - p, arbitrary: fc.constant(false) })

const base: { readonly [K in keyof Knobs]: fc.Arbitrary<Knobs[K]> } = {
  failed: weighted<Failed>(
    [20, "none"],
    [1, "AddFinalizer"],
    [1, "DeleteDescendant"],
    [1, "Other"],
    [1, "MissingCA"],
  ),
  cluster: weighted<Fetch>([18, "Found"], [1, "NotFound"], [1, "GetFailed"]),
  finalizer: often(9),
  foreignFinalizer: often(3),
  generation: weighted<0 | 1 | 3>([1, 0], [1, 1], [6, 3]),
  staleConditions: often(3),
  deleting: often(3),
  paused: weighted<Knobs["paused"]>([16, "no"], [1, "spec"], [1, "annotation"]),
  pausedCondition: weighted<Knobs["pausedCondition"]>(
    [14, "False"],
    [3, "FalseStale"],
    [3, "True"],
    [1, "absent"],
  ),
  deletingConditionTrue: often(7),
  topology: often(2),
  clusterClass: weighted<Fetch>([18, "Found"], [1, "NotFound"], [1, "GetFailed"]),
  okToDelete: often(5),
  runtimeSDK: often(5),
  clusterTopology: often(5),
  machinePool: often(7),
  infraRef: often(8),
  infra: fetchArb,
  infraProvisioned: weighted<Knobs["infraProvisioned"]>(
    [3, "v1beta2"],
    [3, "v1beta1"],
    [3, "no"],
    [1, "v1beta2No"],
  ),
  infraDeleting: often(2),
  infraOwned: weighted<Ownership>(
    [6, "both"],
    [3, "controlled"],
    [1, "stale"],
    [1, "owned"],
    [1, "labelled"],
    [2, "neither"],
  ),
  providerReason: weighted<Knobs["providerReason"]>([6, "valid"], [2, "pattern"], [1, "absent"], [1, "long"]),
  cpAvailableCondition: often(8),
  cpCounters: weighted<Knobs["cpCounters"]>(
    [3, "v1beta2"],
    [1, "v1beta1-2"],
    [1, "v1beta1-3"],
    [1, "v1beta1-4"],
    [1, "none"],
  ),
  cpVersions: weighted<Knobs["cpVersions"]>(
    [3, "absent"],
    [3, "valid"],
    [1, "empty"],
    [1, "descending"],
    [1, "notList"],
    [1, "badVersion"],
  ),
  noFailureDomains: often(2),
  providerFailure: weighted<Knobs["providerFailure"]>([7, "none"], [1, "infra"], [1, "cp"], [1, "both"]),
  cpReadyCondition: weighted<Knobs["cpReadyCondition"]>(
    [1, "True"],
    [1, "False"],
    [1, "Unknown"],
    [3, "absent"],
  ),
  gates: weighted<Knobs["gates"]>(
    [3, "unreported"],
    [2, "none"],
    [3, "met"],
    [1, "unmet"],
    [1, "negativeMet"],
    [1, "negativeUnmet"],
  ),
  infraReadyCondition: weighted<Knobs["infraReadyCondition"]>(
    [2, "True"],
    [2, "False"],
    [1, "Unknown"],
    [5, "absent"],
  ),
  infraEndpoint: often(7),
  infraFlag: often(5),
  cpRef: often(7),
  cp: fetchArb,
  cpInitialized: weighted<Knobs["cpInitialized"]>([3, "v1beta2"], [3, "v1beta1"], [4, "no"]),
  cpDeleting: often(2),
  cpOwned: weighted<Ownership>(
    [6, "both"],
    [3, "controlled"],
    [1, "stale"],
    [1, "owned"],
    [1, "labelled"],
    [2, "neither"],
  ),
  cpEndpoint: often(5),
  cpFlag: often(4),
  clusterEndpoint: often(3),
  descendants: weighted<Shape>(
    [3, "empty"],
    [2, "ownedLive"],
    [1, "ownedDeleting"],
    [1, "indirect"],
    [1, "cpMachines"],
    [3, "random"],
    [1, "failed"],
  ),
  malformed: often(1),
  otherOwnerMalformed: often(2),
  cpNode: weighted<Knobs["cpNode"]>([5, "none"], [4, "active"], [1, "deleting"]),
  kubeconfig: weighted<Fetch>([5, "Found"], [4, "NotFound"], [1, "GetFailed"]),
  phase: weighted<Knobs["phase"]>([2, "unset"], [2, "Pending"], [3, "Provisioning"], [3, "Provisioned"]),
  deprecatedFailure: weighted([30, false], [1, true]),
  probe: weighted<Knobs["probe"]>(
    [2, "never"],
    [5, "recent"],
    [2, "stale"],
    [1, "edgeBefore"],
    [1, "edgeAt"],
    [1, "edgeAfter"],
  ),
  probeFailures: weighted([3, 0], [1, 1], [2, 4], [2, 5], [2, 6]),
}

/** Knobs with some of them fixed or drawn from another arbitrary. */
export const knobs = (overrides: Overrides = {}): fc.Arbitrary<Knobs> => {
  const fields: Record<string, fc.Arbitrary<unknown>> = { ...base }
  for (const [k, v] of Object.entries(overrides)) fields[k] = v instanceof fc.Arbitrary ? v : fc.constant(v)
  return fc.record(fields) as unknown as fc.Arbitrary<Knobs>
}

// ---------------------------------------------------------------------------------------------
// Building an input from knobs

const condition = (type: string, status: ConditionStatus, message?: string): Condition => ({
  type,
  status,
  reason: status === "True" ? type : `Not${type}`,
  ...(message === undefined ? {} : { message }),
  lastTransitionTime: "2024-01-01T00:00:00Z",
})

const randomStatus = fc.constantFrom<ConditionStatus | undefined>(
  "True",
  "True",
  "False",
  "Unknown",
  undefined,
)

const machineArb = (opts: {
  readonly cp: boolean
  readonly owner: fc.Arbitrary<"cluster" | "machineset" | "controlplane" | "none">
  readonly deleting: fc.Arbitrary<boolean>
}) =>
  fc.record({
    owner: opts.owner,
    deleting: opts.deleting,
    nodeRef: fc.boolean(),
    ready: randomStatus,
    available: randomStatus,
    upToDate: randomStatus,
    remediating: fc.boolean(),
    pool: fc.boolean(),
    version: VERSION,
    kubelet: fc.option(VERSION, { nil: undefined }),
    created: fc.integer({ min: 0, max: 3 }),
  })

/** Kubernetes versions as Machines and groups report them, including ones that do not parse. */
const VERSION = fc.constantFrom(
  "",
  "v1.33.4",
  "v1.34.1",
  "1.34.1",
  "v1.34.1+build.2",
  "v1.34.0-rc.1",
  "v1.9.0",
  "latest",
)

interface MachineSketch {
  readonly owner: "cluster" | "machineset" | "controlplane" | "none"
  readonly deleting: boolean
  readonly nodeRef: boolean
  readonly ready: ConditionStatus | undefined
  readonly available: ConditionStatus | undefined
  readonly upToDate: ConditionStatus | undefined
  readonly remediating: boolean
  readonly pool: boolean
  /** `spec.version`, the kubelet's version, the creation second (v1.14's versions). */
  readonly version?: string
  readonly kubelet?: string | undefined
  readonly created?: number
}

const groupArb = (
  owner: fc.Arbitrary<"cluster" | "machinedeployment" | "none">,
  deleting: fc.Arbitrary<boolean>,
) =>
  fc.record({
    owner,
    deleting,
    replicas: fc.integer({ min: 0, max: 5 }),
    ready: fc.integer({ min: 0, max: 5 }),
    available: randomStatus,
    rollingOut: randomStatus,
    scalingUp: randomStatus,
    scalingDown: randomStatus,
    versions: fc.option(
      fc.array(fc.record({ version: VERSION, replicas: fc.integer({ min: 0, max: 3 }) }), { maxLength: 3 }),
      { nil: undefined },
    ),
  })

type GroupSketch = {
  /** `status.versions` (v1.14). */
  readonly versions?: ReadonlyArray<{ readonly version: string; readonly replicas: number }> | undefined
  readonly owner: "cluster" | "machinedeployment" | "none"
  readonly deleting: boolean
  readonly replicas: number
  readonly ready: number
  readonly available: ConditionStatus | undefined
  readonly rollingOut: ConditionStatus | undefined
  readonly scalingUp: ConditionStatus | undefined
  readonly scalingDown: ConditionStatus | undefined
}

interface Sketch {
  readonly mds: ReadonlyArray<GroupSketch>
  readonly mss: ReadonlyArray<GroupSketch>
  readonly mps: ReadonlyArray<GroupSketch>
  readonly workers: ReadonlyArray<MachineSketch>
  readonly cps: ReadonlyArray<MachineSketch>
}

const anyOwner = fc.constantFrom<"cluster" | "machinedeployment" | "none">(
  "cluster",
  "machinedeployment",
  "none",
)
const anyMachineOwner = fc.constantFrom<"cluster" | "machineset" | "controlplane" | "none">(
  "cluster",
  "machineset",
  "none",
)

/** The descendants of a shape, as sketches. */
const sketchArb = (shape: Shape): fc.Arbitrary<Sketch> => {
  const none = fc.constant([] as ReadonlyArray<never>)
  switch (shape) {
    case "empty":
    case "failed":
      return fc.record({ mds: none, mss: none, mps: none, workers: none, cps: none })
    case "ownedLive":
      return fc
        .record({
          mds: fc.array(groupArb(fc.constant("cluster"), fc.boolean()), { minLength: 1, maxLength: 3 }),
          mss: fc.array(groupArb(anyOwner, fc.boolean()), { maxLength: 2 }),
          mps: fc.array(groupArb(anyOwner, fc.boolean()), { maxLength: 1 }),
          workers: fc.array(machineArb({ cp: false, owner: anyMachineOwner, deleting: fc.boolean() }), {
            maxLength: 3,
          }),
          cps: none,
        })
        .map((s) => ({ ...s, mds: [{ ...(s.mds[0] as GroupSketch), deleting: false }, ...s.mds.slice(1)] }))
    case "ownedDeleting":
      return fc.record({
        mds: fc.array(groupArb(fc.constant("cluster"), fc.constant(true)), { minLength: 1, maxLength: 2 }),
        mss: fc.array(groupArb(fc.constant("machinedeployment"), fc.boolean()), { maxLength: 2 }),
        mps: none,
        workers: fc.array(
          machineArb({ cp: false, owner: fc.constant("machineset"), deleting: fc.boolean() }),
          {
            maxLength: 3,
          },
        ),
        cps: none,
      })
    case "indirect":
      return fc.record({
        mds: none,
        mss: fc.array(groupArb(fc.constantFrom("machinedeployment", "none"), fc.boolean()), {
          minLength: 1,
          maxLength: 2,
        }),
        mps: none,
        workers: fc.array(
          machineArb({ cp: false, owner: fc.constant("machineset"), deleting: fc.boolean() }),
          {
            maxLength: 3,
          },
        ),
        cps: none,
      })
    case "cpMachines":
      return fc.record({
        mds: none,
        mss: none,
        mps: none,
        workers: none,
        cps: fc.array(
          machineArb({ cp: true, owner: fc.constantFrom("cluster", "controlplane"), deleting: fc.boolean() }),
          { minLength: 1, maxLength: 3 },
        ),
      })
    case "random":
      return fc.record({
        mds: fc.array(groupArb(anyOwner, fc.boolean()), { maxLength: 2 }),
        mss: fc.array(groupArb(anyOwner, fc.boolean()), { maxLength: 2 }),
        mps: fc.array(groupArb(anyOwner, fc.boolean()), { maxLength: 1 }),
        workers: fc.array(machineArb({ cp: false, owner: anyMachineOwner, deleting: fc.boolean() }), {
          maxLength: 3,
        }),
        cps: fc.array(
          machineArb({
            cp: true,
            owner: fc.constantFrom("cluster", "controlplane", "none"),
            deleting: fc.boolean(),
          }),
          { maxLength: 2 },
        ),
      })
  }
}

interface Names {
  readonly cluster: string
  readonly namespace: string
  readonly uid: string
}

const ts = "2024-05-01T10:00:00Z"

const meta = (
  name: string,
  n: Names,
  owner: OwnerReference | undefined,
  deleting: boolean,
  labels: Record<string, string> = {},
): ObjectMeta => ({
  name,
  namespace: n.namespace,
  labels: { "cluster.x-k8s.io/cluster-name": n.cluster, ...labels },
  ...(owner === undefined ? {} : { ownerReferences: [owner] }),
  ...(deleting ? { deletionTimestamp: ts } : {}),
})

const clusterOwner = (n: Names): OwnerReference => ({
  apiVersion: CLUSTER_API,
  kind: "Cluster",
  name: n.cluster,
  uid: n.uid,
})
const ownerOf = (kind: string, name: string): OwnerReference => ({
  apiVersion: CLUSTER_API,
  kind,
  name,
  controller: true,
})

const conds = (
  pairs: ReadonlyArray<readonly [string, ConditionStatus | undefined]>,
): ReadonlyArray<Condition> =>
  pairs.flatMap(([t, s]) =>
    s === undefined ? [] : [condition(t, s, s === "True" ? undefined : `${t} is ${s}`)],
  )

const group = (g: GroupSketch, name: string, n: Names): MachineGroup => ({
  metadata: meta(
    name,
    n,
    g.owner === "cluster"
      ? clusterOwner(n)
      : g.owner === "machinedeployment"
        ? ownerOf("MachineDeployment", "md-x")
        : undefined,
    g.deleting,
  ),
  spec: { replicas: g.replicas },
  status: {
    replicas: g.replicas,
    readyReplicas: Math.min(g.ready, g.replicas),
    availableReplicas: Math.min(g.ready, g.replicas),
    upToDateReplicas: g.replicas,
    ...(g.versions === undefined
      ? {}
      : { versions: g.versions.map((v) => (v.replicas === 0 ? { version: v.version } : v)) }),
    conditions: conds([
      ["Available", g.available],
      ["RollingOut", g.rollingOut],
      ["ScalingUp", g.scalingUp],
      ["ScalingDown", g.scalingDown],
    ]),
  },
})

const machine = (m: MachineSketch, cp: boolean, name: string, n: Names): Machine => ({
  metadata: {
    ...(m.created === undefined ? {} : { creationTimestamp: `2026-01-01T00:00:0${m.created}Z` }),
    ...meta(
      name,
      n,
      m.owner === "cluster"
        ? clusterOwner(n)
        : m.owner === "machineset"
          ? ownerOf("MachineSet", "ms-x")
          : m.owner === "controlplane"
            ? {
                apiVersion: "controlplane.cluster.x-k8s.io/v1beta2",
                kind: "KubeadmControlPlane",
                name: "cp",
                controller: true,
              }
            : undefined,
      m.deleting,
      cp ? { "cluster.x-k8s.io/control-plane": "" } : m.pool ? { "cluster.x-k8s.io/pool-name": "mp-0" } : {},
    ),
  },
  ...(m.version === undefined ? {} : { spec: { version: m.version } }),
  status: {
    ...(m.nodeRef ? { nodeRef: { name: `node-${name}` } } : {}),
    ...(m.kubelet === undefined ? {} : { nodeInfo: { kubeletVersion: m.kubelet } }),
    conditions: conds([
      ["Ready", m.ready],
      ["Available", m.available],
      ["UpToDate", m.upToDate],
      ["OwnerRemediated", m.remediating ? "False" : undefined],
    ]),
  },
})

const endpoint = (host: string) => ({ host, port: 6443 })

const ownerReferenceOf = (o: Ownership, n: Names): OwnerReference | undefined => {
  switch (o) {
    case "both":
    case "owned":
      return clusterOwner(n)
    case "controlled":
      return { ...clusterOwner(n), controller: true, blockOwnerDeletion: true }
    case "stale":
      return { ...clusterOwner(n), apiVersion: "cluster.x-k8s.io/v1beta1" }
    default:
      return undefined
  }
}

const ownership = (o: Ownership, n: Names): Pick<ObjectMeta, "labels" | "ownerReferences"> => {
  const owner = ownerReferenceOf(o, n)
  return {
    ...(o === "owned" || o === "neither" ? {} : { labels: { "cluster.x-k8s.io/cluster-name": n.cluster } }),
    ...(owner === undefined ? {} : { ownerReferences: [owner] }),
  }
}

/** Owned conditions as a previous reconcile may have left them, each one now out of date. */
const staleConditions = (
  k: Knobs,
): { v1beta2: ReadonlyArray<Condition>; v1beta1: ReadonlyArray<Condition> } => ({
  v1beta2: [
    condition("RemoteConnectionProbe", k.probe === "recent" ? "False" : "True"),
    condition("Available", "True"),
    condition("ControlPlaneInitialized", k.cpFlag ? "False" : "True"),
    condition("Remediating", "True", "* Machine m-0: Waiting for remediation"),
    condition("RollingOut", "True", "* KubeadmControlPlane cp: Rolling out 1 not up-to-date replicas"),
    condition(
      "WorkersAvailable",
      "False",
      "* MachineDeployment md-0: 0 available replicas, at least 1 required",
    ),
    condition("ControlPlaneMachinesReady", "Unknown", "stale"),
  ],
  v1beta1: [
    { ...condition("Ready", "True"), reason: "Ready" },
    { ...condition("InfrastructureReady", k.infraFlag ? "False" : "True"), severity: "Warning" },
    condition("ControlPlaneInitialized", k.cpFlag ? "False" : "True"),
    condition("ControlPlaneReady", "Unknown", "stale"),
    // Another controller's v1beta1 condition, to be kept.
    condition("example.com/Audited", "True"),
  ],
})

/** Builds an input from knobs, descendants and names. */
export const build = (
  k: Knobs,
  sketch: Sketch,
  n: Names,
  now: number,
  failedAction: number,
): ClusterInput => {
  const infraRef = {
    apiGroup: "infrastructure.cluster.x-k8s.io",
    kind: "DockerCluster",
    name: `${n.cluster}-infra`,
  }
  const cpRef = {
    apiGroup: "controlplane.cluster.x-k8s.io",
    kind: "KubeadmControlPlane",
    name: `${n.cluster}-cp`,
  }

  const infrastructure: InfrastructureCluster = {
    metadata: {
      name: infraRef.name,
      namespace: n.namespace,
      ...ownership(k.infraOwned, n),
      ...(k.infraDeleting ? { deletionTimestamp: ts } : {}),
    },
    ...(k.infraEndpoint ? { spec: { controlPlaneEndpoint: endpoint("10.0.0.1") } } : {}),
    status: {
      ...(k.infraProvisioned === "v1beta2" ? { initialization: { provisioned: true } } : {}),
      ...(k.infraProvisioned === "v1beta2No" ? { initialization: { provisioned: false }, ready: true } : {}),
      ...(k.infraProvisioned === "v1beta1" ? { ready: true } : {}),
      ...(k.providerFailure === "infra" || k.providerFailure === "both"
        ? { failureReason: "CreateError", failureMessage: "VPC quota exceeded" }
        : {}),
      failureDomains: k.noFailureDomains
        ? []
        : k.infraProvisioned === "v1beta1"
          ? { "fd-b": { controlPlane: true }, "fd-a": { controlPlane: false, attributes: { zone: "a" } } }
          : [{ name: "fd-2", controlPlane: true }, { name: "fd-1" }],
      ...(k.infraReadyCondition === "absent"
        ? {}
        : { conditions: [withReason(condition("Ready", k.infraReadyCondition), k)] }),
    },
  }

  const controlPlane: ControlPlane = {
    metadata: {
      name: cpRef.name,
      namespace: n.namespace,
      ...ownership(k.cpOwned, n),
      ...(k.cpDeleting ? { deletionTimestamp: ts } : {}),
    },
    spec: { replicas: 3, ...(k.cpEndpoint ? { controlPlaneEndpoint: endpoint("10.0.0.2") } : {}) },
    status: {
      ...(k.cpInitialized === "v1beta2" ? { initialization: { controlPlaneInitialized: true } } : {}),
      ...(k.cpInitialized === "v1beta1" ? { initialized: true, ready: true } : {}),
      ...cpCounters(k.cpCounters),
      ...cpVersions(k.cpVersions),
      ...(k.providerFailure === "cp" || k.providerFailure === "both"
        ? { failureReason: "UpgradeError", failureMessage: "etcd member lost" }
        : {}),
      conditions: [
        ...(k.cpAvailableCondition
          ? [withReason(condition("Available", k.cpInitialized === "no" ? "False" : "True"), k)]
          : []),
        ...(k.cpReadyCondition === "absent" ? [] : [withReason(condition("Ready", k.cpReadyCondition), k)]),
        condition("RollingOut", k.cpDeleting ? "True" : "False"),
      ],
    },
  }

  // The sketched control-plane Machines have a nodeRef only when an active one is wanted anyway.
  const cpMachines = sketch.cps.map((m, j) => {
    const built = machine(m, true, `cp-${j}`, n)
    return k.cpNode === "active" ? built : stripNodeRef(built)
  })
  if (k.cpNode !== "none")
    cpMachines.push(
      machine(
        {
          owner: k.cpRef ? "controlplane" : "cluster",
          deleting: k.cpNode === "deleting",
          nodeRef: true,
          ready: "True",
          available: "True",
          upToDate: "True",
          remediating: false,
          pool: false,
        },
        true,
        "cp-node",
        n,
      ),
    )
  const mds = sketch.mds.map((g, j) => group(g, `md-${j}`, n))
  if (k.malformed && mds.length === 0 && sketch.mss.length === 0 && sketch.workers.length === 0)
    mds.push(
      group(
        {
          owner: "none",
          deleting: false,
          replicas: 1,
          ready: 1,
          available: "True",
          rollingOut: undefined,
          scalingUp: undefined,
          scalingDown: undefined,
        },
        "md-m",
        n,
      ),
    )
  // An owner reference whose apiVersion does not parse: the Cluster's (malformed) or another
  // kind's bearing the Cluster's name (otherOwnerMalformed), on the first MachineDeployment.
  const extraOwner: OwnerReference | undefined = k.malformed
    ? { apiVersion: "cluster.x-k8s.io/v1beta2/extra", kind: "Cluster", name: n.cluster }
    : k.otherOwnerMalformed
      ? { apiVersion: "example.com/v1/extra", kind: "ClusterGroup", name: n.cluster }
      : undefined
  const first = mds[0]
  if (extraOwner !== undefined && first !== undefined)
    mds[0] = {
      ...first,
      metadata: {
        ...first.metadata,
        ownerReferences: [...(first.metadata.ownerReferences ?? []), extraOwner],
      },
    }
  const descendants: ClusterInput["observed"]["descendants"] =
    k.descendants === "failed"
      ? { _tag: "ListFailed", error: "the server was unable to return a response in the time allotted" }
      : {
          _tag: "Listed",
          machineDeployments: mds,
          machineSets: sketch.mss.map((g, j) => group(g, `ms-${j}`, n)),
          machinePools: sketch.mps.map((g, j) => group(g, `mp-${j}`, n)),
          machines: [...sketch.workers.map((m, j) => machine(m, false, `worker-${j}`, n)), ...cpMachines],
        }

  const clusterConditions: Array<Condition> = []
  const generation = k.generation
  if (k.pausedCondition !== "absent")
    clusterConditions.push({
      ...condition("Paused", k.pausedCondition === "True" ? "True" : "False"),
      observedGeneration: k.pausedCondition === "FalseStale" ? generation - 1 : generation,
    })
  // A stale Deleting=True is left on a Cluster that is not being deleted.
  clusterConditions.push(
    condition(
      "Deleting",
      (k.deletingConditionTrue && k.deleting) || (k.staleConditions && !k.deleting) ? "True" : "False",
    ),
  )
  clusterConditions.push(condition("InfrastructureReady", k.infraFlag ? "True" : "False"))
  if (k.gates !== "none" && k.gates !== "unreported")
    clusterConditions.push(
      condition("ExternalGate", k.gates === "met" || k.gates === "negativeUnmet" ? "True" : "False"),
    )
  const stale = staleConditions(k)
  if (k.staleConditions) clusterConditions.push(...stale.v1beta2)
  const status: ClusterStatus = {
    conditions: clusterConditions,
    initialization: { infrastructureProvisioned: k.infraFlag, controlPlaneInitialized: k.cpFlag },
    // The previous reconcile succeeded for an older generation (observedGeneration >= 1).
    ...(k.generation === 3 ? { observedGeneration: 2 } : {}),
    ...(k.phase === "unset" ? {} : { phase: k.phase }),
    ...(k.deprecatedFailure || k.staleConditions
      ? {
          deprecated: {
            v1beta1: {
              ...(k.deprecatedFailure
                ? { failureReason: "InvalidConfiguration", failureMessage: "legacy failure" }
                : {}),
              ...(k.staleConditions ? { conditions: stale.v1beta1 } : {}),
            },
          },
        }
      : {}),
  }

  const key = { namespace: n.namespace, name: n.cluster }
  const trigger: ClusterInput["trigger"] =
    k.failed === "none"
      ? { _tag: "Reconcile" }
      : {
          _tag: "ActionFailed",
          action: failedActionOf(k.failed, key, infraRef, cpRef, failedAction),
          failure:
            k.failed === "MissingCA"
              ? { _tag: "NotFound", message: `secrets "${n.cluster}-ca" not found` }
              : { _tag: "Unavailable", message: "etcdserver: request timed out" },
        }

  return {
    observed: {
      cluster:
        k.cluster === "Found"
          ? {
              _tag: "Found",
              object: {
                metadata: {
                  name: n.cluster,
                  namespace: n.namespace,
                  uid: n.uid,
                  generation,
                  ...(k.finalizer || k.foreignFinalizer
                    ? {
                        finalizers: [
                          ...(k.foreignFinalizer ? ["example.com/protect"] : []),
                          ...(k.finalizer ? [FINALIZER] : []),
                        ],
                      }
                    : {}),
                  ...(k.deleting ? { deletionTimestamp: ts } : {}),
                  annotations: {
                    ...(k.paused === "annotation" ? { "cluster.x-k8s.io/paused": "" } : {}),
                    ...(k.okToDelete ? { "runtime.cluster.x-k8s.io/ok-to-delete": "" } : {}),
                  },
                },
                status,
              },
            }
          : k.cluster === "NotFound"
            ? { _tag: "NotFound" }
            : { _tag: "GetFailed", error: "connection refused" },
      clusterClass: fetched(k.clusterClass, {
        metadata: { name: "quick-start", namespace: n.namespace },
        spec: { availabilityGates: [{ conditionType: "ClusterClassGate" }] },
      }),
      infrastructure: fetched(k.infra, infrastructure),
      controlPlane: fetched(k.cp, controlPlane),
      descendants,
      kubeconfigSecret:
        k.kubeconfig === "GetFailed" ? { _tag: "GetFailed", error: "forbidden" } : { _tag: k.kubeconfig },
      featureGates: {
        runtimeSDK: k.runtimeSDK,
        clusterTopology: k.clusterTopology,
        machinePool: k.machinePool,
      },
      remoteConnection: {
        ...(k.probe === "never" ? {} : { lastProbeSuccessTime: now - probeAge[k.probe] }),
        ...(k.probeFailures === 0 ? {} : { consecutiveFailures: k.probeFailures }),
      },
    },
    desired: {
      ...(k.paused === "spec" ? { paused: true } : {}),
      ...(k.infraRef ? { infrastructureRef: infraRef } : {}),
      ...(k.cpRef ? { controlPlaneRef: cpRef } : {}),
      ...(k.clusterEndpoint ? { controlPlaneEndpoint: endpoint("192.168.0.10") } : {}),
      ...(k.topology ? { topology: { classRef: { name: "quick-start" }, version: "v1.34.0" } } : {}),
      ...(k.gates === "none"
        ? {}
        : {
            availabilityGates: [
              {
                conditionType: "ExternalGate",
                polarity: k.gates === "negativeMet" || k.gates === "negativeUnmet" ? "Negative" : "Positive",
              },
            ],
          }),
    },
    trigger,
    now,
  }
}

const probeAge = {
  recent: 10_000,
  stale: 120_000,
  edgeBefore: GRACE_PERIOD_EDGE - 1,
  edgeAt: GRACE_PERIOD_EDGE,
  edgeAfter: GRACE_PERIOD_EDGE + 1,
} as const

/** A provider condition with the reason of the `providerReason` knob. */
const withReason = (c: Condition, k: Knobs): Condition => {
  switch (k.providerReason) {
    case "valid":
      return c
    case "pattern":
      return { ...c, reason: `${c.status === "True" ? "ok" : "not ready"}: see ${c.type}!` }
    case "absent": {
      const { reason: _, ...rest } = c
      return rest
    }
    case "long":
      return { ...c, reason: `R${"x".repeat(1_100)}` }
  }
}

/** The control plane's counters in the v1beta2 or the v1beta1 contract's fields. */
/** A control-plane object's `status.versions`, valid or not as upstream's contract reads it. */
const cpVersions = (v: Knobs["cpVersions"]): { versions?: unknown } => {
  switch (v) {
    case "absent":
      return {}
    case "valid":
      return {
        versions: [
          { version: "v1.33.4", replicas: 1 },
          { version: "v1.34.1", replicas: 2 },
        ],
      }
    case "empty":
      return { versions: [] }
    case "descending":
      return {
        versions: [
          { version: "v1.34.1", replicas: 2 },
          { version: "v1.33.4", replicas: 1 },
        ],
      }
    case "notList":
      return { versions: "v1.34.1" }
    case "badVersion":
      return { versions: [{ version: "latest", replicas: 3 }] }
  }
}

const cpCounters = (c: Knobs["cpCounters"]) => {
  switch (c) {
    case "v1beta2":
      return { replicas: 3, readyReplicas: 2, availableReplicas: 2, upToDateReplicas: 3 }
    case "none":
      return {}
    default:
      return { replicas: 3, readyReplicas: 2, unavailableReplicas: Number(c.slice(-1)), updatedReplicas: 3 }
  }
}

const stripNodeRef = (m: Machine): Machine => {
  const { nodeRef: _, ...rest } = m.status ?? {}
  return { ...m, status: rest }
}

const fetched = <A>(f: Fetch, object: A) =>
  f === "Found"
    ? ({ _tag: "Found", object } as const)
    : f === "NotFound"
      ? ({ _tag: "NotFound" } as const)
      : ({ _tag: "GetFailed", error: "Internal error occurred" } as const)

const failedActionOf = (
  f: Exclude<Failed, "none">,
  cluster: { readonly namespace: string; readonly name: string },
  infraRef: { readonly apiGroup: string; readonly kind: string; readonly name: string },
  cpRef: { readonly apiGroup: string; readonly kind: string; readonly name: string },
  pick: number,
): ClusterAction => {
  switch (f) {
    case "AddFinalizer":
      return { _tag: "AddFinalizer", cluster, finalizer: FINALIZER }
    case "DeleteDescendant":
      return {
        _tag: "DeleteObject",
        role: "descendant",
        ref: {
          apiGroup: "cluster.x-k8s.io",
          kind: "MachineDeployment",
          namespace: cluster.namespace,
          name: "md-0",
        },
      }
    case "DeleteControlPlane":
      return { _tag: "DeleteObject", role: "controlPlane", ref: { ...cpRef, namespace: cluster.namespace } }
    case "DeleteInfrastructure":
      return {
        _tag: "DeleteObject",
        role: "infrastructure",
        ref: { ...infraRef, namespace: cluster.namespace },
      }
    case "MissingCA":
      return {
        _tag: "CreateKubeconfigSecret",
        cluster,
        secret: { namespace: cluster.namespace, name: `${cluster.name}-kubeconfig` },
        caSecret: { namespace: cluster.namespace, name: `${cluster.name}-ca` },
        endpoint: endpoint("192.168.0.10"),
        type: "cluster.x-k8s.io/secret",
        key: "value",
        labels: { "cluster.x-k8s.io/cluster-name": cluster.name },
        ownerReference: { apiVersion: CLUSTER_API, kind: "Cluster", name: cluster.name },
      }
    case "Other": {
      const others: ReadonlyArray<ClusterAction> = [
        { _tag: "PatchStatus", cluster, status: {} },
        { _tag: "RemoveFinalizer", cluster, finalizer: FINALIZER },
        { _tag: "SetControlPlaneEndpoint", cluster, endpoint: endpoint("10.0.0.1"), from: "infrastructure" },
        {
          _tag: "PatchExternal",
          role: "infrastructure",
          ref: { ...infraRef, namespace: cluster.namespace },
          ownerReference: { apiVersion: CLUSTER_API, kind: "Cluster", name: cluster.name },
          labels: { "cluster.x-k8s.io/cluster-name": cluster.name },
        },
        {
          _tag: "Event",
          cluster,
          type: "Normal",
          reason: "Provisioning",
          message: "Cluster is Provisioning",
        },
      ]
      return others[pick % others.length] as ClusterAction
    }
  }
}

const namesArb: fc.Arbitrary<Names> = fc.record({
  cluster: fc.constantFrom("c1", "prod-eu", "edge-7"),
  namespace: fc.constantFrom("default", "team-a"),
  uid: fc.constantFrom("0b9d6f5c-1", "5e2a-77"),
})

/** Inputs from knobs: descendants of the knobs' shape, names, `now`. */
export const inputArb = (k: fc.Arbitrary<Knobs>): fc.Arbitrary<ClusterInput> =>
  k.chain((knob) =>
    fc
      .tuple(sketchArb(knob.descendants), namesArb, fc.integer(NOW), fc.nat(20))
      .map(([sketch, names, now, pick]) => build(knob, sketch, names, now, pick)),
  )

/** Picks scenarios with equal weight. */
const scenarios = (...list: ReadonlyArray<Overrides>): fc.Arbitrary<ClusterInput> =>
  fc.oneof(...list.map((o) => inputArb(knobs(o))))

// ---------------------------------------------------------------------------------------------
// Scenarios, by the row they aim at

/** A Cluster that gets through the top-level checks and is not being deleted. */
const live: Overrides = {
  failed: "none",
  cluster: "Found",
  finalizer: true,
  deleting: false,
  paused: "no",
  pausedCondition: weighted<Knobs["pausedCondition"]>([3, "False"], [1, "FalseStale"]),
  topology: false,
}
/** No error from any phase. */
const clean: Overrides = {
  ...live,
  infra: weighted<Fetch>([3, "Found"], [1, "NotFound"]),
  cp: weighted<Fetch>([3, "Found"], [1, "NotFound"]),
  infraFlag: false,
  cpFlag: false,
  descendants: weighted<Shape>([2, "empty"], [2, "random"], [1, "cpMachines"], [1, "ownedLive"]),
  kubeconfig: weighted<Fetch>([1, "Found"], [1, "NotFound"]),
  deprecatedFailure: false,
}
/** Infrastructure and control plane done before this reconcile, phase Provisioned. */
const steady: Overrides = {
  ...clean,
  infraRef: true,
  infra: "Found",
  infraProvisioned: fc.constantFrom("v1beta2", "v1beta1"),
  infraFlag: true,
  cpRef: true,
  cp: "Found",
  cpInitialized: fc.constantFrom("v1beta2", "v1beta1"),
  cpFlag: true,
  phase: "Provisioned",
}
/** A deleting Cluster past the top-level checks, after the first reconcile of the deletion. */
const dying: Overrides = {
  failed: "none",
  cluster: "Found",
  finalizer: often(9),
  deleting: true,
  paused: "no",
  pausedCondition: "False",
  deletingConditionTrue: true,
  topology: false,
  descendants: weighted<Shape>([1, "empty"], [1, "ownedLive"], [1, "indirect"], [1, "random"]),
}
/** … and past the hook, the listing and the filter, with no descendant left. */
const cleared: Overrides = {
  ...dying,
  runtimeSDK: false,
  descendants: "empty",
  malformed: false,
  cpNode: "none",
}

const normal = scenarios(
  { cluster: "NotFound", failed: "none" },
  { ...live, finalizer: false },
  { ...live, paused: fc.constantFrom("spec", "annotation"), deleting: often(3), finalizer: true },
  { ...live, pausedCondition: fc.constantFrom("True", "True", "absent") },
  { ...live, topology: true, clusterClass: "Found", infraRef: often(5), cpRef: false, deleting: often(2) },
  { ...live, topology: true, clusterClass: "Found", infraRef: false, cpRef: true },
  // 15: errors
  { ...live, infra: "GetFailed", infraRef: true },
  { ...live, cluster: "GetFailed" },
  { ...live, infraRef: true, infra: "NotFound", infraFlag: true },
  // 16: deleting
  { ...dying },
  // 7
  { ...clean, infraRef: true, infra: "NotFound" },
  // 9
  { ...clean, infraRef: false, cpRef: true, cp: "NotFound" },
  { ...clean, infraRef: true, infra: "Found", cpRef: true, cp: "NotFound" },
  // 13
  {
    ...clean,
    infraRef: often(7),
    infra: "Found",
    infraProvisioned: fc.constantFrom("v1beta2", "v1beta1"),
    infraFlag: fc.boolean(),
    cpRef: true,
    cp: "Found",
    cpInitialized: fc.constantFrom("v1beta2", "v1beta1"),
    cpFlag: fc.boolean(),
    phase: fc.constantFrom("unset", "Pending", "Provisioning"),
  },
  {
    ...clean,
    infraRef: false,
    cpRef: false,
    cpNode: "active",
    cpFlag: false,
    phase: fc.constantFrom("unset", "Provisioning"),
  },
  // 5
  { ...clean, infraRef: false, infraFlag: false, cpRef: true, cp: "Found", cpInitialized: "no" },
  { ...clean, infraRef: false, infraFlag: false, cpRef: false, cpNode: "none", kubeconfig: "Found" },
  // 8 (no endpoint anywhere: with one the phase becomes Provisioned and row 13 decides)
  {
    ...clean,
    infraRef: true,
    infra: "Found",
    infraProvisioned: fc.constantFrom("v1beta2", "v1beta1"),
    infraFlag: false,
    cpRef: true,
    cp: "Found",
    cpInitialized: "no",
    clusterEndpoint: false,
    infraEndpoint: false,
  },
  // 18
  { ...clean, cpRef: false, clusterEndpoint: true, kubeconfig: "NotFound", failed: "MissingCA" },
  // 10
  {
    ...clean,
    infraRef: true,
    infra: "Found",
    infraProvisioned: fc.constantFrom("no", "v1beta2No"),
    cpRef: true,
    cp: "Found",
    cpInitialized: fc.constantFrom("v1beta2", "v1beta1"),
    cpFlag: false,
  },
  { ...steady, cpFlag: false },
  // 11
  {
    ...steady,
    cpRef: false,
    cpFlag: true,
    clusterEndpoint: often(5),
    infraEndpoint: true,
    kubeconfig: "NotFound",
  },
  // 12
  {
    ...steady,
    cpRef: false,
    cpFlag: false,
    cpNode: fc.constantFrom("none", "deleting"),
    kubeconfig: "Found",
  },
  { ...steady, cpRef: false, cpFlag: false, cpNode: "active", kubeconfig: "Found" },
  // 6
  {
    ...clean,
    infraRef: true,
    infra: "Found",
    infraProvisioned: fc.constantFrom("no", "v1beta2No"),
    cpRef: true,
    cp: "Found",
    cpInitialized: "no",
  },
  { ...steady, infraProvisioned: "no", infraFlag: true },
  // 17
  { ...steady },
)

const deletion = scenarios(
  // 1
  { ...dying, deletingConditionTrue: false },
  { ...dying, deletingConditionTrue: false, descendants: "empty", runtimeSDK: false, cpNode: "none" },
  // 2
  {
    ...dying,
    runtimeSDK: true,
    clusterTopology: true,
    topology: true,
    clusterClass: "Found",
    infraRef: true,
    cpRef: true,
    okToDelete: false,
  },
  // 3
  { ...dying, runtimeSDK: false, descendants: "failed" },
  // 4
  { ...dying, runtimeSDK: false, descendants: "ownedLive", malformed: false },
  // 5
  {
    ...dying,
    runtimeSDK: false,
    descendants: fc.constantFrom("ownedDeleting", "indirect"),
    malformed: false,
  },
  { ...cleared, cpRef: false, cpNode: fc.constantFrom("active", "deleting") },
  // 6
  { ...cleared, cpRef: true, cp: "Found" },
  // 7
  { ...cleared, cpRef: often(5), cp: "NotFound", infraRef: true, infra: "Found" },
  // 8
  { ...cleared, cpRef: often(5), cp: "NotFound", infraRef: often(5), infra: "NotFound" },
  // 9
  { ...live },
  { cluster: "Found", deleting: false, failed: fc.constantFrom<Failed>("AddFinalizer", "Other") },
  // 10
  { ...dying, runtimeSDK: false, malformed: true },
  { ...cleared, cpRef: true, cp: "GetFailed" },
  { ...cleared, cpRef: false, infraRef: true, infra: "GetFailed" },
  {
    ...dying,
    failed: fc.constantFrom<Failed>("DeleteDescendant", "DeleteControlPlane", "DeleteInfrastructure"),
  },
)

const errors = scenarios(
  // 1
  { ...live, failed: "AddFinalizer", finalizer: false },
  // 2
  {
    ...live,
    topology: true,
    clusterClass: fc.constantFrom<Fetch>("NotFound", "GetFailed"),
    deleting: often(3),
  },
  // 3
  { ...live, infraRef: true, infra: "NotFound", infraFlag: true },
  // 4
  { ...live, cpRef: true, cp: "NotFound", cpFlag: true, infra: "Found" },
  // 5
  { ...live, infraRef: true, infra: "GetFailed", deleting: often(3) },
  { ...live, cpRef: true, cp: "GetFailed", infra: "Found", deleting: often(3) },
  { ...clean, infraRef: true, infra: "NotFound" },
  { ...clean, cpRef: true, cp: "NotFound", infra: "Found" },
  // 6
  { ...live, failed: "Other" },
  { ...live, cluster: "GetFailed" },
  { ...live, infra: "Found", cp: "Found", descendants: "failed", deleting: often(3) },
  { ...steady, cpRef: false, cpFlag: true, kubeconfig: "GetFailed" },
  // 7
  {
    ...dying,
    infra: "Found",
    cp: "Found",
    runtimeSDK: false,
    malformed: true,
    descendants: fc.constantFrom<Shape>("empty", "random", "ownedLive"),
  },
  // 8
  { ...dying, failed: "DeleteDescendant" },
  { ...live, failed: "DeleteDescendant" },
  // 9
  { ...dying, failed: fc.constantFrom<Failed>("DeleteControlPlane", "DeleteInfrastructure") },
  // 10
  { ...steady },
  { ...cleared },
  // 11
  { ...clean, cpRef: false, clusterEndpoint: true, kubeconfig: "NotFound", failed: "MissingCA" },
)

const flowchart = (role: "infra" | "cp") => {
  const ref = role === "infra" ? "infraRef" : "cpRef"
  const fetch = role === "infra" ? "infra" : "cp"
  const flag = role === "infra" ? "infraFlag" : "cpFlag"
  const ready = role === "infra" ? "infraProvisioned" : "cpInitialized"
  const yes = role === "infra" ? fc.constantFrom("v1beta2", "v1beta1") : fc.constantFrom("v1beta2", "v1beta1")
  const no = role === "infra" ? fc.constantFrom("no", "v1beta2No") : fc.constant("no")
  const anyStage: Overrides = { ...live, deleting: often(4), pausedCondition: "False" }
  return scenarios(
    // 1
    { ...anyStage, [ref]: false },
    // 2
    { ...anyStage, [ref]: true, [fetch]: "Found", [ready]: no },
    // 3
    { ...anyStage, [ref]: true, [fetch]: "Found", [ready]: yes },
    // 4
    { ...anyStage, deleting: true, [ref]: true, [fetch]: "NotFound" },
    // 5
    { ...live, [ref]: true, [fetch]: "NotFound", [flag]: true },
    // 6
    { ...live, [ref]: true, [fetch]: "NotFound", [flag]: false },
    // 7
    { ...anyStage, [ref]: true, [fetch]: "GetFailed" },
    // 8
    { ...live, paused: fc.constantFrom("spec", "annotation") },
    { ...live, finalizer: false },
  )
}

const deleteFlow = scenarios(
  // 1
  {
    ...dying,
    runtimeSDK: true,
    clusterTopology: true,
    topology: true,
    clusterClass: "Found",
    infraRef: true,
    cpRef: true,
    okToDelete: false,
  },
  // 2
  { ...dying, runtimeSDK: false, descendants: "failed" },
  // 3
  { ...dying, failed: "DeleteDescendant" },
  // 4
  {
    ...dying,
    runtimeSDK: false,
    descendants: fc.constantFrom<Shape>("ownedLive", "ownedDeleting"),
    malformed: false,
  },
  // 5, 6, 7
  { ...cleared, cpRef: true, cp: "Found", cpDeleting: false },
  { ...cleared, cpRef: true, cp: "Found", cpDeleting: true },
  { ...cleared, cpRef: true, cp: "GetFailed" },
  // 8, 9, 10, 11, 12
  { ...cleared, cpRef: often(5), cp: "NotFound", infraRef: true, infra: "Found", infraDeleting: false },
  { ...cleared, cpRef: often(5), cp: "NotFound", infraRef: true, infra: "Found", infraDeleting: true },
  { ...cleared, cpRef: often(5), cp: "NotFound", infraRef: true, infra: "GetFailed" },
  { ...cleared, cpRef: often(5), cp: "NotFound", infraRef: true, infra: "NotFound" },
  { ...cleared, cpRef: often(5), cp: "NotFound", infraRef: false },
  // 13, 14, 15, 16
  { ...dying, runtimeSDK: false, descendants: "indirect", malformed: false },
  { ...dying, runtimeSDK: false, malformed: true },
  { ...dying, failed: fc.constantFrom<Failed>("DeleteControlPlane", "DeleteInfrastructure") },
  { ...live },
)

/** The input generator of each Cluster controller table, by table id. */
export const arbitraries: Readonly<Record<string, fc.Arbitrary<ClusterInput>>> = {
  "cluster.normal": normal,
  "cluster.deletion": deletion,
  "cluster.errors": errors,
  "cluster.infrastructure": flowchart("infra"),
  "cluster.controlplane": flowchart("cp"),
  "cluster.delete-flow": deleteFlow,
}

/** The same, under the name the project's registry of generators uses. */
export const inputs = arbitraries

/** Any input at all, from the unbiased knobs: for properties over every table. */
export const anyInput: fc.Arbitrary<ClusterInput> = inputArb(knobs())
