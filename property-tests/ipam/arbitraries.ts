/**
 * fast-check generators for the IPAM tables (seed 004): configs with small disjoint parents of
 * both families (so parents fill up and brute force stays cheap), Clusters with purposes,
 * labels and the operation annotation, ClusterConfigs of this controller and of others, and the
 * watch events. Biased so every row decides at least 50 of 2,000 inputs.
 *
 * @module
 */
import fc from "fast-check"
import {
  APPLIED_RULES_ANNOTATION,
  CIDR_FINALIZER,
  type ClusterConfigView,
  type ClusterSelector,
  type ClusterView,
  type ControllerIdentity,
  clusterConfigFor,
  clusterConfigLabels,
  type Injection,
  type InjectionRule,
  type IpamConfigSpec,
  type IpamEvent,
  OPERATION_ANNOTATION,
  type ReconcileInput,
  type TriggerInput,
} from "../../core/ipam/index.ts"

const matchAll: ClusterSelector = {
  matchIdentities: undefined,
  matchPurposes: [],
  matchLabels: {},
  matchExpressions: [],
}

export const identity: ControllerIdentity = { managedBy: "ipam", environment: "dev" }
const NOW = 1_800_000_000_000

/** Disjoint parent CIDRs to pick from: IPv4 and IPv6, some tiny so they run out. */
export const PARENT_POOL = [
  "10.0.0.0/24",
  "10.0.1.0/26",
  "192.168.0.0/28",
  "fd00::/120",
  "fd00::100/122",
  "172.16.0.0/27",
] as const
const SIZES = [26, 27, 28, 29, 30, 122, 124, 126] as const
const PATHS = ["/spec/network/nodes", "/spec/network/pods", "/spec/network/services", "/spec/v6"] as const
export const CLUSTER_NAMES = ["c1", "c2", "c3", "c4"] as const
const PURPOSES = ["mcp", "workload", "platform", "onboarding"] as const

const selectorArb: fc.Arbitrary<ClusterSelector> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constant({
      matchIdentities: undefined,
      matchPurposes: [],
      matchLabels: {},
      matchExpressions: [],
    }),
  },
  {
    weight: 1,
    arbitrary: fc.uniqueArray(fc.constantFrom(...CLUSTER_NAMES), { maxLength: 3 }).map((names) => ({
      matchIdentities: names.map((name) => ({ name, namespace: "ns" })),
      matchPurposes: [],
      matchLabels: {},
      matchExpressions: [],
    })),
  },
  {
    weight: 2,
    arbitrary: fc
      .record({
        operator: fc.constantFrom("ContainsAll", "ContainsAny", "ContainsNone", "Equals" as const),
        values: fc.uniqueArray(fc.constantFrom(...PURPOSES), { maxLength: 2 }),
      })
      .map((req) => ({
        matchIdentities: undefined,
        matchPurposes: [req],
        matchLabels: {},
        matchExpressions: [],
      })),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      matchIdentities: fc.constant(undefined),
      matchPurposes: fc.constant([]),
      matchLabels: fc.oneof(fc.constant({}), fc.constantFrom({ tier: "gold" }, { tier: "silver" })),
      matchExpressions: fc.oneof(
        fc.constant([]),
        fc
          .record({
            key: fc.constantFrom("tier", "env"),
            operator: fc.constantFrom("In", "NotIn", "Exists", "DoesNotExist" as const),
          })
          .map((e) => [
            { ...e, values: e.operator === "In" || e.operator === "NotIn" ? ["gold", "prod"] : [] },
          ]),
      ),
    }),
  },
)

/** A parsed config with 1-3 rules over 1-3 parent ids. */
export const configArb: fc.Arbitrary<IpamConfigSpec> = fc
  .shuffledSubarray([...PARENT_POOL], { minLength: 1, maxLength: 4 })
  .chain((pool) => {
    const ids = ["a", "b", "c"].slice(0, Math.min(3, pool.length))
    const parentCIDRs: Record<string, Array<string>> = Object.fromEntries(
      ids.map((id) => [id, [] as Array<string>]),
    )
    pool.forEach((cidr, k) => {
      parentCIDRs[ids[k % ids.length] as string]?.push(cidr)
    })
    const injectionArb = (local: string | undefined): fc.Arbitrary<Omit<Injection, "paths">> =>
      fc.record({
        id: fc.constant<string | undefined>(undefined),
        parents:
          local === undefined
            ? fc.oneof(fc.constant([]), fc.shuffledSubarray(ids, { minLength: 1 }))
            : fc.constant([local]),
        subnetSize: fc.constantFrom(...SIZES),
      })
    const ruleArb = (id: string): fc.Arbitrary<InjectionRule> =>
      fc
        .record({
          selector: selectorArb,
          paths: fc.shuffledSubarray([...PATHS], { minLength: 1, maxLength: 3 }),
          nested: fc.boolean(),
          first: injectionArb(undefined),
          second: injectionArb("inner"),
        })
        .map(({ selector, paths, nested, first, second }) => {
          const injections: Array<Injection> = [
            { ...first, id: nested ? "inner" : undefined, paths: [paths[0] as string] },
          ]
          if (paths.length > 1) {
            injections.push(
              nested
                ? {
                    ...second,
                    subnetSize: Math.min(first.subnetSize + 2, first.subnetSize > 32 ? 128 : 32),
                    paths: paths.slice(1),
                  }
                : { ...first, paths: paths.slice(1) },
            )
          }
          return { id, selector, injections }
        })
    return fc
      .uniqueArray(fc.constantFrom("r1", "r2", "r3"), { minLength: 1, maxLength: 3 })
      .chain((ruleIds) => fc.tuple(...ruleIds.map(ruleArb)))
      .map((injectionRules) => ({ parentCIDRs, injectionRules, internalStateRefreshCycleDuration: 0 }))
  })

const annotationsArb = fc.oneof(
  { weight: 6, arbitrary: fc.constant({}) },
  { weight: 2, arbitrary: fc.constant({ [OPERATION_ANNOTATION]: "ignore" }) },
  { weight: 2, arbitrary: fc.constant({ [OPERATION_ANNOTATION]: "reconcile" }) },
)

export const clusterArb = (names: ReadonlyArray<string> = CLUSTER_NAMES): fc.Arbitrary<ClusterView> =>
  fc.record({
    namespace: fc.constantFrom("ns", "ns", "ns", "other"),
    name: fc.constantFrom(...names),
    uid: fc.constant("uid-1"),
    labels: fc.oneof(fc.constant({}), fc.constantFrom({ tier: "gold" }, { tier: "silver" }, { env: "prod" })),
    annotations: annotationsArb,
    purposes: fc.uniqueArray(fc.constantFrom(...PURPOSES), { maxLength: 3 }),
    deletionTimestamp: fc.oneof(
      { weight: 4, arbitrary: fc.constant(undefined) },
      { weight: 1, arbitrary: fc.constant("2026-11-24T06:00:00Z") },
    ),
  })

const ccArb = (cluster: ClusterView): fc.Arbitrary<ClusterConfigView> =>
  fc
    .record({
      rule: fc.constantFrom("r1", "r2", "r3"),
      managed: fc.oneof(
        { weight: 8, arbitrary: fc.constant(true) },
        { weight: 1, arbitrary: fc.constant(false) },
      ),
      owned: fc.oneof(
        { weight: 10, arbitrary: fc.constant(true) },
        { weight: 1, arbitrary: fc.constant(false) },
      ),
      annotations: annotationsArb,
      deleting: fc.boolean(),
    })
    .map(({ rule, managed, owned, annotations, deleting }) => ({
      namespace: cluster.namespace,
      name: `${cluster.name}--ipam--${rule}`,
      labels: managed
        ? clusterConfigLabels(identity, cluster.name, rule)
        : { "openmcp.cloud/managed-by": "someone-else" },
      annotations,
      finalizers: [CIDR_FINALIZER],
      ownerReferences: owned
        ? [
            {
              apiVersion: "clusters.openmcp.cloud/v1alpha1",
              kind: "Cluster",
              name: cluster.name,
              controller: true,
            },
          ]
        : [],
      deletionTimestamp: deleting ? "2026-11-24T06:00:00Z" : undefined,
      patches: [],
    }))

const withAnnotation = <T extends { readonly annotations: Readonly<Record<string, string>> }>(
  o: T,
  value: string | undefined,
): T => {
  const a: Record<string, string> = { ...o.annotations }
  if (value === undefined) delete a[OPERATION_ANNOTATION]
  else a[OPERATION_ANNOTATION] = value
  return { ...o, annotations: a }
}

/** An "old" version of an object: same, or another operation annotation, or no deletion timestamp. */
const oldOf = <
  T extends {
    readonly annotations: Readonly<Record<string, string>>
    readonly deletionTimestamp?: string | undefined
  },
>(
  o: T,
): fc.Arbitrary<T> =>
  fc
    .record({
      op: fc.constantFrom<"same" | "none" | "ignore" | "reconcile">("same", "none", "ignore", "reconcile"),
      deletion: fc.boolean(),
    })
    .map(({ op, deletion }) => {
      const a = op === "same" ? o : withAnnotation(o, op === "none" ? undefined : op)
      return deletion ? { ...a, deletionTimestamp: undefined } : a
    })

const triggerEventArb = (config: IpamConfigSpec | undefined): fc.Arbitrary<IpamEvent> =>
  clusterArb().chain((cluster) =>
    fc.oneof(
      { weight: 3, arbitrary: fc.constant<IpamEvent>({ _tag: "ClusterCreated", cluster }) },
      { weight: 3, arbitrary: fc.constant<IpamEvent>({ _tag: "ClusterDeleted", cluster }) },
      {
        weight: 4,
        arbitrary: oldOf(cluster).map((old): IpamEvent => ({ _tag: "ClusterUpdated", old, cluster })),
      },
      // the annotation appears, or the deletion timestamp: both sides of rows 3, 9 and 11
      {
        weight: 2,
        arbitrary: fc.constant<IpamEvent>({
          _tag: "ClusterUpdated",
          old: withAnnotation(cluster, undefined),
          cluster: withAnnotation(cluster, "reconcile"),
        }),
      },
      fc.constant<IpamEvent>({
        _tag: "ClusterUpdated",
        old: withAnnotation(cluster, "ignore"),
        cluster: withAnnotation(cluster, undefined),
      }),
      {
        weight: 2,
        arbitrary: fc.constant<IpamEvent>({
          _tag: "ClusterUpdated",
          old: { ...withAnnotation(cluster, undefined), deletionTimestamp: undefined },
          cluster: { ...withAnnotation(cluster, undefined), deletionTimestamp: "2026-11-24T06:00:00Z" },
        }),
      },
      ccArb(cluster).map(
        (cc): IpamEvent => ({
          _tag: "ClusterConfigUpdated",
          old: withAnnotation({ ...cc, deletionTimestamp: undefined }, undefined),
          clusterConfig: withAnnotation({ ...cc, deletionTimestamp: undefined }, "reconcile"),
        }),
      ),
      {
        weight: 2,
        arbitrary: ccArb(cluster).map(
          (clusterConfig): IpamEvent => ({ _tag: "ClusterConfigCreated", clusterConfig }),
        ),
      },
      ccArb(cluster).map(
        (cc): IpamEvent => ({
          _tag: "ClusterConfigUpdated",
          old: { ...cc, deletionTimestamp: undefined },
          clusterConfig: { ...cc, deletionTimestamp: "2026-11-24T06:00:00Z" },
        }),
      ),
      {
        weight: 2,
        arbitrary: ccArb(cluster).map(
          (clusterConfig): IpamEvent => ({ _tag: "ClusterConfigDeleted", clusterConfig }),
        ),
      },
      {
        weight: 5,
        arbitrary: ccArb(cluster).chain((clusterConfig) =>
          oldOf(clusterConfig).map(
            (old): IpamEvent => ({ _tag: "ClusterConfigUpdated", old, clusterConfig }),
          ),
        ),
      },
      {
        weight: 3,
        arbitrary: fc
          .oneof(fc.constant(undefined), configArb, fc.constant(config))
          .map((old): IpamEvent => ({ _tag: "ConfigChanged", old })),
      },
      { weight: 2, arbitrary: fc.constantFrom<IpamEvent>({ _tag: "Started" }, { _tag: "StateRefreshed" }) },
      { weight: 2, arbitrary: fc.constant<IpamEvent>({ _tag: "CidrsReleased" }) },
    ),
  )

export const triggerInput: fc.Arbitrary<TriggerInput> = fc
  .oneof(
    { weight: 12, arbitrary: configArb },
    {
      weight: 12,
      arbitrary: configArb.map((c) => ({
        ...c,
        injectionRules: c.injectionRules.map((r, k) => (k === 0 ? { ...r, selector: matchAll } : r)),
      })),
    },
    { weight: 1, arbitrary: fc.constant(undefined) },
  )
  .chain((config) =>
    fc.record({
      observed: fc.record({
        config: fc.constant(config),
        clusters: fc.array(clusterArb(), { maxLength: 4 }),
        // Clusters waiting for CIDRs (read on CidrsReleased), duplicates included
        waiting: fc.array(
          fc.constantFrom(...CLUSTER_NAMES).map((name) => ({ namespace: "ns", name })),
          { maxLength: 4 },
        ),
      }),
      desired: fc.constant(identity),
      trigger: triggerEventArb(config),
      now: fc.constant(NOW),
    }),
  )

// ---- reconcile --------------------------------------------------------------------------------

/** Blocks outside every parent of the pool, for injections recorded earlier. */
const RECORDED = [
  "10.200.0.0/28",
  "10.200.0.16/28",
  "10.200.0.32/28",
  "10.200.0.48/28",
  "10.200.0.64/28",
  "10.200.0.80/28",
]

/** Allocations already held: disjoint /30 (or /126) blocks of the config's parents. */
const allocationsArb = (config: IpamConfigSpec) => {
  const slots = Object.values(config.parentCIDRs)
    .flat()
    .flatMap((p) => {
      const [addr = "", len = "0"] = p.split("/")
      const v6 = addr.includes(":")
      const n = Math.min(16, 2 ** ((v6 ? 126 : 30) - Number(len)))
      return Array.from({ length: n }, (_, k) =>
        v6
          ? {
              cidr: `${addr.replace(/::?[0-9a-f]*$/, "")}::${(Number.parseInt(addr.split("::")[1] || "0", 16) + 4 * k).toString(16)}/126`,
              parent: p,
            }
          : {
              cidr: `${addr.split(".").slice(0, 3).join(".")}.${Number(addr.split(".")[3]) + 4 * k}/30`,
              parent: p,
            },
      )
    })
  return fc.oneof(
    { weight: 2, arbitrary: fc.constant([]) },
    { weight: 2, arbitrary: fc.subarray(slots) },
    { weight: 1, arbitrary: fc.constant(slots) },
  )
}

type Scenario =
  | "gone"
  | "ignored"
  | "noConfig"
  | "noMatch"
  | "badAnnotation"
  | "badPatch"
  | "fresh"
  | "ccAhead"
  | "annotationAhead"
  | "noFinalizer"
  | "aligned"
  | "conflict"
const SCENARIOS: ReadonlyArray<Scenario> = [
  "gone",
  "ignored",
  "noConfig",
  "noMatch",
  "badAnnotation",
  "badPatch",
  "fresh",
  "ccAhead",
  "ccAhead",
  "annotationAhead",
  "annotationAhead",
  "noFinalizer",
  "noFinalizer",
  "aligned",
  "conflict",
]

export const reconcileInput: fc.Arbitrary<ReconcileInput> = fc
  .record({
    scenario: fc.constantFrom(...SCENARIOS),
    config: configArb,
    cluster: clusterArb(["c1"]),
    applied: fc.subarray(["r1", "r2", "r3"]),
    drop: fc.nat(5),
    reconcile: fc.boolean(),
    foreign: fc.boolean(),
  })
  .chain(({ scenario, config: base, cluster: c0, applied, drop, reconcile, foreign }) => {
    const cluster0: ClusterView = withAnnotation(
      { ...c0, namespace: "ns" },
      reconcile ? "reconcile" : undefined,
    )
    // most scenarios want the Cluster selected: give the first rule a selector that takes everyone
    const config: IpamConfigSpec =
      scenario === "noMatch"
        ? {
            ...base,
            injectionRules: base.injectionRules.map((r) => ({
              ...r,
              selector: { ...matchAll, matchIdentities: [] },
            })),
          }
        : scenario === "conflict"
          ? {
              ...base,
              injectionRules: [
                ...base.injectionRules.map((r) => ({ ...r, selector: matchAll })),
                {
                  id: "late",
                  selector: matchAll,
                  injections: [
                    {
                      id: undefined,
                      paths: [PATHS[0], PATHS[1], PATHS[2], PATHS[3]].slice(0, 1),
                      parents: [],
                      subnetSize: 30,
                    },
                  ],
                },
              ],
            }
          : {
              ...base,
              injectionRules: base.injectionRules.map((r, k) => (k === 0 ? { ...r, selector: matchAll } : r)),
            }
    const ruleIds = config.injectionRules.map((r) => r.id)
    const done =
      scenario === "fresh"
        ? []
        : scenario === "aligned" || scenario === "conflict"
          ? ruleIds.filter((id) => id !== "late")
          : applied.filter((id) => ruleIds.includes(id) || id === "r3")
    const recorded: Record<string, Record<string, string>> = {}
    done.forEach((id, k) => {
      const rule = config.injectionRules.find((r) => r.id === id)
      const paths = rule === undefined ? ["/spec/old"] : rule.injections.flatMap((x) => x.paths)
      recorded[id] = Object.fromEntries(
        paths.map((p, j) => [p, RECORDED[(k * 2 + j) % RECORDED.length] as string]),
      )
    })
    let annotation: Record<string, Record<string, string>> = recorded
    let ccs: Array<ClusterConfigView> = Object.entries(recorded).map(([rule, inj]) => {
      const o = clusterConfigFor(identity, cluster0, rule, inj)
      return {
        namespace: o.metadata.namespace,
        name: o.metadata.name,
        labels: o.metadata.labels,
        annotations: {},
        finalizers: o.metadata.finalizers,
        ownerReferences: o.metadata.ownerReferences,
        patches: o.spec.patches,
      }
    })
    const keys = Object.keys(recorded)
    const victim = keys[drop % Math.max(1, keys.length)]
    if (scenario === "ccAhead" && victim !== undefined) {
      const { [victim]: _, ...rest } = annotation
      annotation = drop % 2 === 0 ? rest : { ...annotation, [victim]: {} }
    }
    if (scenario === "annotationAhead" && victim !== undefined) {
      ccs =
        drop % 2 === 0
          ? ccs.filter((cc) => cc.labels["ipam.gardener.clusters.openmcp.cloud/injection-rule"] !== victim)
          : ccs.map((cc) => ({ ...cc, patches: cc.patches.slice(1) }))
    }
    if (scenario === "noFinalizer") {
      // a ClusterConfig being deleted without the finalizer keeps going without it
      ccs = ccs.map((cc, k) =>
        k === 0
          ? {
              ...cc,
              finalizers: [],
              ...(drop % 2 === 1 ? { deletionTimestamp: "2026-11-24T06:00:00Z" } : {}),
            }
          : k === 1
            ? { ...cc, finalizers: [] }
            : cc,
      )
    }
    if (scenario === "badPatch") {
      ccs = [
        ...ccs,
        {
          namespace: "ns",
          name: "c1--ipam--r9",
          labels: clusterConfigLabels(identity, "c1", "r9"),
          annotations: {},
          finalizers: [CIDR_FINALIZER],
          ownerReferences: [],
          patches: [{ op: "add", path: "/spec/x", value: drop % 2 === 0 ? 42 : "not-a-cidr" }],
        },
      ]
    }
    if (foreign) {
      ccs = [
        ...ccs,
        {
          namespace: "ns",
          name: "c1--other",
          labels: { "openmcp.cloud/managed-by": "else" },
          annotations: {},
          finalizers: [],
          ownerReferences: [],
          patches: [{ op: "add", path: "/x", value: "1.2.3.0/24" }],
        },
      ]
    }
    const annotationText =
      scenario === "badAnnotation"
        ? drop % 2 === 0
          ? "{not json"
          : '{"r1":["10.0.0.0/24"]}'
        : Object.keys(annotation).length === 0 && drop % 3 === 0
          ? undefined
          : JSON.stringify(annotation)
    let cluster: ClusterView | undefined = {
      ...cluster0,
      annotations: {
        ...cluster0.annotations,
        ...(annotationText === undefined ? {} : { [APPLIED_RULES_ANNOTATION]: annotationText }),
      },
    }
    if (scenario === "ignored") cluster = withAnnotation(cluster, "ignore")
    if (scenario !== "ignored" && cluster.annotations[OPERATION_ANNOTATION] === "ignore")
      cluster = withAnnotation(cluster, undefined)
    if (scenario === "gone") {
      cluster = undefined
      ccs = ccs.map((cc, k) =>
        k % 2 === 1
          ? { ...cc, deletionTimestamp: "2026-11-24T06:00:00Z" }
          : drop % 2 === 0
            ? cc
            : { ...cc, finalizers: [] },
      )
    }
    return allocationsArb(config).map(
      (allocations): ReconcileInput => ({
        observed: { cluster, clusterConfigs: ccs, allocations },
        desired: { config: scenario === "noConfig" ? undefined : config, identity },
        trigger: { _tag: "Reconcile", namespace: "ns", name: "c1" },
        now: NOW,
      }),
    )
  })

export const arbitraries = {
  "ipam.trigger": triggerInput,
  "ipam.reconcile": reconcileInput,
} as const
