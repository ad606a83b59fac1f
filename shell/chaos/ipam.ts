/**
 * The IPAM suite: `krtt ipam`'s controller (shell/ipam, seed 004 "The Cluster Controller") in the
 * situations of e2e/ipam/scenario.test.ts, on the same perturbations and oracles as the operator.
 *
 * Safety on every committed write of the management server (seed 004: "We can only release the
 * CIDRs after the `Cluster` has been fully deleted"; never a CIDR allocated twice):
 * - no two ClusterConfigs hold overlapping CIDRs (a ClusterConfig holds its CIDRs while it
 *   carries the CIDR finalizer: removing it is the release, seed 004);
 * - a ClusterConfig loses its CIDR finalizer (its CIDRs are released) only once the Cluster that
 *   owns it (by uid) is gone;
 * - another writer's condition and finalizer on a Cluster are never lost, nor another
 *   controller's finalizer on a ClusterConfig (`foreignFinalizer.ts`);
 * - an Event about a Cluster names its uid, and an Event about a live object names its uid or
 *   none (`eventUid.ts`).
 *
 * Which Cluster gets which CIDR depends on the order the workers decide in, which a perturbation
 * legitimately changes: CIDR values are masked in the compared state (the first invariant is what
 * holds them to account), their prefix lengths kept.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import {
  APPLIED_RULES_ANNOTATION,
  CIDR_FINALIZER,
  cidrOf,
  clusterConfigName,
  OPERATION_ANNOTATION,
  OPERATION_IGNORE,
  OPERATION_RECONCILE,
  overlaps,
} from "../../core/ipam/index.ts"
import type { FakeApiServer } from "../apiserver/server.ts"
import { makeIpamController } from "../ipam/controller.ts"
import { ClusterConfigResource, IpamConfigResource, OpenmcpClusterResource } from "../ipam/resources.ts"
import { mergePatch } from "../kube/patch.ts"
import { type KubeObject, type ResourceRef, Resources } from "../kube/resource.ts"
import { eventUidWrong } from "./eventUid.ts"
import {
  addForeignFinalizer,
  FOREIGN_FINALIZER,
  releaseForeignFinalizer,
  rewriteFinalizers,
  watchForeignFinalizers,
} from "./foreignFinalizer.ts"
import { heldFinalizerLost } from "./hold.ts"
import { foreignConditionLost } from "./invariants.ts"
import { ChaosDefaults } from "./perturbations.ts"
import { patchStep, type Scenario, type Step } from "./scenarios.ts"
import type { Suite } from "./suite.ts"
import { thirdPartyOn } from "./thirdParty.ts"

const NS = "ipam-chaos"
const CONFIG = "ipam"
/** A finalizer another actor holds the Cluster with (the e2e's "terminating" Clusters). */
const HOLD = "chaos.krtt.dev/hold"

const ipamConfig = (extraRule: boolean): KubeObject => ({
  apiVersion: "gardener.clusters.openmcp.cloud/v1alpha1",
  kind: "IPAMConfig",
  metadata: { name: CONFIG },
  spec: {
    parentCIDRs: { nodes: ["10.0.0.0/20"], pods: ["10.128.0.0/16"] },
    injectionRules: [
      {
        id: "nodes",
        matchPurposes: [{ operator: "ContainsAll", values: ["mcp"] }],
        injections: [{ path: "/spec/networking/nodes", parents: ["nodes"], subnetSize: 24 }],
      },
      ...(extraRule
        ? [
            {
              id: "pods",
              matchPurposes: [{ operator: "ContainsAll", values: ["workload"] }],
              injections: [{ path: "/spec/networking/pods", parents: ["pods"], subnetSize: 20 }],
            },
          ]
        : []),
    ],
  },
})

const openmcpCluster = (name: string, purposes: ReadonlyArray<string>, hold: boolean): KubeObject => ({
  apiVersion: "clusters.openmcp.cloud/v1alpha1",
  kind: "Cluster",
  metadata: { namespace: NS, name, ...(hold ? { finalizers: [HOLD] } : {}) },
  spec: { profile: "p", tenancy: "Exclusive", purposes },
})

const createConfig = (extraRule: boolean): Step => ({
  name: `create the IPAMConfig${extraRule ? " with the pods rule" : ""}`,
  settleMillis: 5_000,
  run: ({ mgmt }) => Effect.asVoid(mgmt.client().create(IpamConfigResource, ipamConfig(extraRule))),
})

const createClusters = (
  names: ReadonlyArray<string>,
  options: { readonly purposes?: ReadonlyArray<string>; readonly hold?: boolean } = {},
): Step => ({
  name: `create Clusters ${names.join(", ")} at once`,
  settleMillis: 20_000,
  run: ({ mgmt }) =>
    Effect.forEach(
      names,
      (n) =>
        mgmt
          .client()
          .create(
            OpenmcpClusterResource,
            openmcpCluster(n, options.purposes ?? ["mcp"], options.hold === true),
          ),
      { discard: true },
    ),
})

const deleteCluster = (name: string): Step => ({
  name: `delete Cluster ${name}`,
  settleMillis: 15_000,
  run: ({ mgmt }) => Effect.asVoid(mgmt.client().delete(OpenmcpClusterResource, { namespace: NS, name })),
})

const releaseCluster = (name: string): Step => ({
  name: `the holder of Cluster ${name} lets it go`,
  settleMillis: 20_000,
  run: ({ mgmt }) =>
    Effect.asVoid(
      mgmt
        .client()
        .patch(
          OpenmcpClusterResource,
          { namespace: NS, name },
          mergePatch({ metadata: { finalizers: null } }),
        ),
    ),
})

const changeConfig = (spec: unknown, what: string): Step => ({
  name: what,
  settleMillis: 20_000,
  run: ({ mgmt }) =>
    Effect.gen(function* () {
      const c = mgmt.client()
      const current = yield* c.get(IpamConfigResource, { name: CONFIG })
      yield* c.update(IpamConfigResource, { ...current, spec })
    }),
})

/** An IPAMConfig whose parent has room for two /24s: the third Cluster waits for CIDRs. */
const createSmallConfig: Step = {
  name: "create the IPAMConfig with room for two Clusters",
  settleMillis: 5_000,
  run: ({ mgmt }) =>
    Effect.asVoid(
      mgmt.client().create(IpamConfigResource, {
        ...ipamConfig(false),
        spec: { ...(ipamConfig(false).spec as object), parentCIDRs: { nodes: ["10.0.0.0/23"] } },
      }),
    ),
}

/** Marks the commit of `stripFinalizer`: a CIDR finalizer taken off by hand, not by the controller. */
const STRIPPED_ANNOTATION = "chaos.krtt.dev/stripped"

/** The commit that strips the CIDR finalizer by hand (`stripFinalizer`), which the invariants let pass. */
const strippedByHand = (old: KubeObject | undefined, object: KubeObject) =>
  old?.metadata.annotations?.[STRIPPED_ANNOTATION] !== "true" &&
  object.metadata.annotations?.[STRIPPED_ANNOTATION] === "true"

/**
 * Someone edits a ClusterConfig's finalizers by hand: the CIDR finalizer goes, the backup
 * controller's comes. The controller must put its finalizer back (its CIDRs stay held) and keep
 * the foreign one.
 */
const stripFinalizer = (cluster: string): Step => ({
  name: `${cluster}'s ClusterConfig stripped of its CIDR finalizer, given the backup controller's`,
  settleMillis: 20_000,
  run: ({ mgmt }) =>
    rewriteFinalizers(
      mgmt,
      ClusterConfigResource,
      { namespace: NS, name: clusterConfigName(cluster, "nodes") },
      (current) => [
        ...current.filter((f) => f !== CIDR_FINALIZER && f !== FOREIGN_FINALIZER),
        FOREIGN_FINALIZER,
      ],
      { [STRIPPED_ANNOTATION]: "true" },
    ),
})

/** The backup controller protects (or lets go) the nodes ClusterConfig of `cluster`. */
const protectConfig = (cluster: string, on: boolean): Step =>
  (on ? addForeignFinalizer : releaseForeignFinalizer)(
    on
      ? `the backup controller protects ${cluster}'s ClusterConfig`
      : `the backup controller lets ${cluster}'s ClusterConfig go`,
    20_000,
    ClusterConfigResource,
    { namespace: NS, name: clusterConfigName(cluster, "nodes") },
  )

/**
 * A Cluster created asking for a reconcile, whose applied-rules patch conflicts: another writer
 * changes it between the controller's two patches of its first reconcile (the annotation's removal
 * goes through, after it the applied rules are refused). The CIDRs that reconcile acquired are
 * not recorded on the Cluster, so they must be freed, and acquired again by the retry.
 */
const createContested = (name: string): Step => ({
  name: `create Cluster ${name} asking for a reconcile; its applied rules conflict once`,
  settleMillis: 20_000,
  run: ({ mgmt }) =>
    Effect.gen(function* () {
      const at = { resource: OpenmcpClusterResource.resource, name, verb: "patch" } as const
      mgmt.inject({ ...at, delay: 0, times: 1 })
      mgmt.inject({ ...at, error: "Conflict", times: 1 })
      const cluster = openmcpCluster(name, ["mcp"], false)
      yield* mgmt.client().create(OpenmcpClusterResource, {
        ...cluster,
        metadata: { ...cluster.metadata, annotations: { [OPERATION_ANNOTATION]: OPERATION_RECONCILE } },
      })
    }),
})

/** Annotations of an object set (or, `null`, removed) by someone else than the controller. */
const annotate = (ref: ResourceRef, name: string, annotations: Record<string, string | null>, what: string) =>
  patchStep(what, 20_000, ref, { namespace: NS, name }, { metadata: { annotations } })

const IpamScenarios: ReadonlyArray<Scenario> = [
  {
    name: "ipam-concurrent",
    description: "six Clusters, four created at once and two more while the first are allocated",
    source:
      "e2e/ipam/scenario.test.ts: allocates for 50 Clusters across rules and purposes, survives a SIGKILL mid-way and restores its state",
    steps: [createConfig(false), createClusters(["c1", "c2", "c3", "c4"]), createClusters(["c5", "c6"])],
  },
  {
    name: "ipam-delete",
    description:
      "a deleted Cluster held by another finalizer keeps its CIDRs while a new Cluster is allocated; once gone, its CIDRs are released",
    source:
      "e2e/ipam/scenario.test.ts: holds the CIDRs of deleted Clusters until they are fully gone, never hands them out meanwhile, then releases them",
    steps: [
      createConfig(false),
      createClusters(["h1", "h2"], { hold: true }),
      protectConfig("h1", true),
      deleteCluster("h1"),
      createClusters(["n1"]),
      releaseCluster("h1"),
      createClusters(["n2"]),
      protectConfig("h1", false),
    ],
  },
  {
    name: "ipam-config",
    description:
      "a rule added to the IPAMConfig re-reconciles the Clusters it matches; an invalid change is refused",
    source:
      "e2e/ipam/scenario.test.ts: a rule change re-reconciles exactly the Clusters the new rule matches; refuses an invalid IPAMConfig",
    steps: [
      createConfig(false),
      createClusters(["w1", "w2"], { purposes: ["mcp", "workload"] }),
      changeConfig(ipamConfig(true).spec, "add the pods rule to the IPAMConfig"),
      changeConfig(
        { ...(ipamConfig(true).spec as object), parentCIDRs: { nodes: ["10.0.300.0/20"] } },
        "an invalid IPAMConfig (a parent CIDR out of range)",
      ),
    ],
  },
  {
    name: "ipam-exhausted",
    description:
      "a Cluster waits for CIDRs while the parent is full, and gets the CIDRs another Cluster releases",
    source:
      "e2e/ipam/upstream.test.ts: retries an exhausted Cluster and allocates it within seconds of another Cluster's release",
    steps: [createSmallConfig, createClusters(["e1", "e2"]), createClusters(["e3"]), deleteCluster("e1")],
  },
  {
    name: "ipam-operations",
    description:
      "the operation annotation (reconcile, used up; ignore, then removed), a ClusterConfig's patches removed by hand, a garbled applied-rules annotation",
    source:
      "openmcp platform-service-gardener-ipam: openmcp.cloud/operation reconcile and ignore; core/ipam table ipam.reconcile rows 5 (annotation to ClusterConfigs) and the invalid annotation",
    steps: [
      createConfig(false),
      createClusters(["o1", "o2"], { purposes: ["mcp", "workload"] }),
      annotate(
        OpenmcpClusterResource,
        "o1",
        { [OPERATION_ANNOTATION]: OPERATION_RECONCILE },
        "Cluster o1 asks for a reconcile",
      ),
      stripFinalizer("o1"),
      patchStep(
        "o1's ClusterConfig loses its patches and asks for a reconcile",
        20_000,
        ClusterConfigResource,
        { namespace: NS, name: clusterConfigName("o1", "nodes") },
        { metadata: { annotations: { [OPERATION_ANNOTATION]: OPERATION_RECONCILE } }, spec: { patches: [] } },
      ),
      annotate(
        OpenmcpClusterResource,
        "o2",
        { [OPERATION_ANNOTATION]: OPERATION_IGNORE },
        "Cluster o2 ignored",
      ),
      changeConfig(ipamConfig(true).spec, "add the pods rule to the IPAMConfig"),
      annotate(
        OpenmcpClusterResource,
        "o2",
        { [OPERATION_ANNOTATION]: null },
        "Cluster o2 no longer ignored",
      ),
      annotate(
        OpenmcpClusterResource,
        "o1",
        { [APPLIED_RULES_ANNOTATION]: "{not json", [OPERATION_ANNOTATION]: OPERATION_RECONCILE },
        "Cluster o1's applied rules garbled, and a reconcile asked for",
      ),
      createContested("o3"),
    ],
  },
]

const crd = (ref: ResourceRef): KubeObject => ({
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: `${ref.resource}.${ref.group}` },
  spec: { group: ref.group, names: { kind: ref.kind, plural: ref.resource } },
})

const gr = (r: ResourceRef) => `${r.group}/${r.resource}`

type WithPatches = KubeObject & {
  readonly spec?: { readonly patches?: ReadonlyArray<{ readonly value?: unknown }> }
}
const cidrsOf = (o: KubeObject): ReadonlyArray<string> =>
  ((o as WithPatches).spec?.patches ?? []).flatMap((p) => (typeof p.value === "string" ? [p.value] : []))

const parses = (text: string) => {
  try {
    return cidrOf(text)
  } catch {
    return undefined
  }
}

const CIDR = /\b\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}\/(\d{1,2})\b/g

/** The kinds whose Events always name their object's uid (the controller reads the Cluster it reconciles). */
const EVENT_UID_KINDS: ReadonlySet<string> = new Set(["Cluster"])

/** The invariants of the module comment. */
const ipamInvariants = (mgmt: FakeApiServer, violations: Array<string>) => {
  const reported = new Set<string>()
  const live = (kind: string, namespace: string, name: string) =>
    mgmt
      .objects(kind === "Cluster" ? OpenmcpClusterResource : ClusterConfigResource)
      .find((o) => o.kind === kind && o.metadata.namespace === namespace && o.metadata.name === name)
  return mgmt.onCommit(({ resource, type, object, old }) => {
    const where = `${object.metadata.namespace ?? ""}/${object.metadata.name ?? ""}`
    const rv = object.metadata.resourceVersion
    if (object.kind === "Event") {
      const wrong = type === "DELETED" ? undefined : eventUidWrong(object, live, EVENT_UID_KINDS)
      if (wrong !== undefined) violations.push(`${wrong} (rv ${rv})`)
      return
    }
    if (resource === gr(OpenmcpClusterResource)) {
      for (const lost of [foreignConditionLost(type, old, object), heldFinalizerLost(old, object)])
        if (lost !== undefined) violations.push(`Cluster ${where}: ${lost} (rv ${rv})`)
      return
    }
    if (resource !== gr(ClusterConfigResource)) return
    const held = mgmt
      .objects(ClusterConfigResource)
      .filter((cc) => cc.metadata.finalizers?.includes(CIDR_FINALIZER) === true)
      .flatMap((cc) =>
        cidrsOf(cc).flatMap((text) => {
          const cidr = parses(text)
          return cidr === undefined
            ? []
            : [{ cc: `${cc.metadata.namespace}/${cc.metadata.name}`, text, cidr }]
        }),
      )
    for (const [i, a] of held.entries())
      for (const b of held.slice(i + 1)) {
        const pair = `${a.cc} ${a.text} ${b.cc} ${b.text}`
        if (overlaps(a.cidr, b.cidr) && !reported.has(pair)) {
          reported.add(pair)
          violations.push(
            `CIDR allocated twice: ${a.text} of ClusterConfig ${a.cc} overlaps ${b.text} of ClusterConfig ${b.cc} (rv ${rv})`,
          )
        }
      }
    const had = old?.metadata.finalizers?.includes(CIDR_FINALIZER) === true
    const has = type !== "DELETED" && object.metadata.finalizers?.includes(CIDR_FINALIZER) === true
    if (had && !has && !strippedByHand(old, object)) {
      const owner = (object.metadata.ownerReferences ?? []).find(
        (r) => r.controller === true && r.kind === "Cluster",
      )
      const live = mgmt
        .objects(OpenmcpClusterResource)
        .find((c) => c.metadata.namespace === object.metadata.namespace && c.metadata.uid === owner?.uid)
      if (owner !== undefined && live !== undefined)
        violations.push(
          `ClusterConfig ${where}: CIDRs ${cidrsOf(object).join(", ")} released while its Cluster ${owner.name} lives${live.metadata.deletionTimestamp === undefined ? "" : " (deleting, not gone)"} (rv ${rv})`,
        )
    }
  })
}

export const IpamSuite: Suite = {
  name: "ipam",
  controllers: ["ipam"],
  scenarios: IpamScenarios,
  install: (mgmt) =>
    Effect.gen(function* () {
      mgmt.register(OpenmcpClusterResource)
      mgmt.register(IpamConfigResource)
      mgmt.register(ClusterConfigResource, { status: false })
      const c = mgmt.client()
      yield* c.create(Resources.namespaces, { apiVersion: "v1", kind: "Namespace", metadata: { name: NS } })
      for (const ref of [OpenmcpClusterResource, ClusterConfigResource, IpamConfigResource])
        yield* c.create(Resources.customResourceDefinitions, crd(ref))
    }),
  start: (ctx) =>
    Effect.gen(function* () {
      const { start } = yield* makeIpamController(ctx.client, {
        config: CONFIG,
        identity: { managedBy: "ipam", environment: "chaos" },
        concurrency: 10,
        gracefulShutdownTimeout: 1_000,
        component: "krtt-ipam",
      })
      // `krtt ipam` exits when its start fails (a list refused); it is then restarted.
      yield* Effect.catch(start, () => ctx.exit)
    }),
  invariants: (mgmt, _workloads, violations) => {
    const own = ipamInvariants(mgmt, violations)
    const foreign = watchForeignFinalizers(mgmt, violations)
    return () => {
      own()
      foreign()
    }
  },
  thirdParty: thirdPartyOn(OpenmcpClusterResource, { fallbackNamespace: NS, condition: true, hold: true }),
  // The restore's lists carry no resourceVersion, which kube-apiserver answers with a consistent
  // read: only the reflectors' lists (paged) are served from the lagging view.
  staleList: (o) => o?.pageSize !== undefined,
  // kube-controller-manager's garbage collector deletes a ClusterConfig whose owner Cluster is
  // gone (seed 004 counts on it): the in-memory server's own (`shell/apiserver/gc.ts`).
  garbageCollection: true,
  fastPoints: ChaosDefaults.fastPointsLater,
  snapshotWorkloads: false,
  maskObject: (_resource, o) => JSON.parse(JSON.stringify(o).replace(CIDR, "<cidr>/$1")) as KubeObject,
}
