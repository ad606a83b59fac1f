// restoreIpam: the allocator rebuilt from the cluster alone (upstream docs/controllers/state.md):
// which ClusterConfigs and annotations count, how CIDRs nest under earlier ones of the same rule
// or under the config's parents, and what is reported when they cannot be restored.
import { describe, expect, it } from "vitest"
import { allocations } from "./allocator.ts"
import {
  APPLIED_RULES_ANNOTATION,
  CIDR_FINALIZER,
  CLUSTER_TARGET_LABEL,
  ENVIRONMENT_LABEL,
  INJECTION_RULE_LABEL,
  MANAGED_BY_LABEL,
  MANAGED_PURPOSE,
  MANAGED_PURPOSE_LABEL,
} from "./constants.ts"
import type { ClusterConfigView, ClusterView } from "./objects.ts"
import { restoreIpam } from "./restore.ts"

const identity = { managedBy: "ipam", environment: "dev" }
const managed = {
  [MANAGED_BY_LABEL]: "ipam",
  [MANAGED_PURPOSE_LABEL]: MANAGED_PURPOSE,
  [ENVIRONMENT_LABEL]: "dev",
}
const config = {
  parentCIDRs: { p: ["10.0.0.0/16"] },
  injectionRules: [],
  internalStateRefreshCycleDuration: 0,
} as never
const cluster = (name: string, applied?: string): ClusterView => ({
  namespace: "ns",
  name,
  labels: {},
  annotations: applied === undefined ? {} : { [APPLIED_RULES_ANNOTATION]: applied },
  purposes: [],
})
const clusterConfig = (
  name: string,
  cidrs: ReadonlyArray<string>,
  options: { cluster?: string; rule?: string; finalizer?: boolean; labels?: Record<string, string> } = {},
): ClusterConfigView => ({
  namespace: "ns",
  name,
  labels: {
    ...managed,
    ...(options.cluster === undefined ? {} : { [CLUSTER_TARGET_LABEL]: options.cluster }),
    ...(options.rule === undefined ? {} : { [INJECTION_RULE_LABEL]: options.rule }),
    ...options.labels,
  },
  annotations: {},
  finalizers: options.finalizer === true ? [CIDR_FINALIZER] : [],
  ownerReferences: [],
  patches: [
    ...cidrs.map((value, i) => ({ op: "add", path: `/spec/c${i}`, value })),
    { op: "add", path: "/spec/other", value: 42 },
  ],
})

describe("restoreIpam", () => {
  it("takes CIDRs from applied-rules annotations and from held ClusterConfigs of this controller", () => {
    const r = restoreIpam({
      config,
      clusters: [cluster("a", '{"r1":{"/x":"10.0.1.0/24"}}'), cluster("b")],
      clusterConfigs: [
        clusterConfig("b-cc", ["10.0.2.0/24"], { cluster: "b", rule: "r1" }),
        clusterConfig("gone-held", ["10.0.3.0/24"], { cluster: "gone", rule: "r1", finalizer: true }),
        clusterConfig("gone-free", ["10.0.4.0/24"], { cluster: "gone", rule: "r1" }),
        clusterConfig("foreign", ["10.0.5.0/24"], { cluster: "b", labels: { [ENVIRONMENT_LABEL]: "prod" } }),
        clusterConfig("no-cluster-label", ["10.0.6.0/24"], { finalizer: true }),
      ],
      identity,
    })
    expect(allocations(r.ipam)).toEqual(["10.0.1.0/24", "10.0.2.0/24", "10.0.3.0/24", "10.0.6.0/24"])
    for (const c of ["10.0.1.0/24", "10.0.2.0/24"])
      expect(r.ipam.allocated.get(c)?.parent).toBe("10.0.0.0/16")
    expect(r.conflicts).toEqual([])
    expect(r.unreadable).toEqual([])
  })

  it("nests a CIDR under the latest larger one of the same Cluster and rule, else under a parent, else none", () => {
    const r = restoreIpam({
      config,
      clusters: [
        // smallest first on purpose: a restore takes them largest first
        cluster(
          "a",
          '{"r1":{"/small":"10.0.8.0/26","/mid":"10.0.8.0/24","/big":"10.0.8.0/22","/out":"192.168.0.0/24"}}',
        ),
        cluster("b", '{"r2":{"/x":"10.0.12.0/26"}}'),
      ],
      clusterConfigs: [],
      identity,
    })
    expect(r.ipam.allocated.get("10.0.8.0/22")?.parent).toBe("10.0.0.0/16")
    expect(r.ipam.allocated.get("10.0.8.0/24")?.parent).toBe("10.0.8.0/22")
    expect(r.ipam.allocated.get("10.0.8.0/26")?.parent, "under the latest (smallest) that contains it").toBe(
      "10.0.8.0/24",
    )
    expect(r.conflicts).toEqual([])
    expect(r.ipam.allocated.get("192.168.0.0/24")?.parent).toBeUndefined()
    expect(r.ipam.allocated.get("10.0.12.0/26")?.parent).toBe("10.0.0.0/16")
    const none = restoreIpam({
      config: undefined,
      clusters: [cluster("a", '{"r1":{"/x":"10.0.1.0/24"}}')],
      clusterConfigs: [],
      identity,
    })
    expect(none.ipam.parents.size).toBe(0)
    expect(none.ipam.allocated.get("10.0.1.0/24")?.parent).toBeUndefined()
  })

  it("reports a CIDR another one holds, naming both, the Cluster and the rule; and annotations it cannot read", () => {
    const r = restoreIpam({
      config,
      clusters: [
        cluster("a", '{"r1":{"/x":"10.0.1.0/24"}}'),
        cluster("b", '{"r2":{"/y":"10.0.1.0/25"}}'),
        cluster("broken", "{not json"),
        cluster("list", '["10.0.9.0/24"]'),
      ],
      clusterConfigs: [],
      identity,
    })
    expect(r.conflicts).toEqual([{ cidr: "10.0.1.0/25", with: "10.0.1.0/24", cluster: "ns/b", rule: "r2" }])
    expect(r.unreadable).toEqual(["ns/broken", "ns/list"])
    expect(allocations(r.ipam)).toEqual(["10.0.1.0/24"])
  })

  it("names a ClusterConfig without labels by its namespace, an empty cluster and rule when it conflicts", () => {
    const first: ClusterView = { ...cluster("x", '{"r":{"/x":"10.0.1.0/24"}}'), namespace: "a" }
    const bare: ClusterConfigView = { ...clusterConfig("bare", ["10.0.1.0/26"], { finalizer: true }) }
    const r = restoreIpam({ config, clusters: [first], clusterConfigs: [bare], identity })
    expect(r.conflicts).toEqual([{ cidr: "10.0.1.0/26", with: "10.0.1.0/24", cluster: "ns/", rule: "" }])
  })

  it("groups a ClusterConfig without labels under its namespace, an empty cluster and rule", () => {
    const r = restoreIpam({
      config,
      clusters: [cluster("a", '{"":{"/x":"10.0.1.0/24"}}')],
      clusterConfigs: [clusterConfig("bare", ["10.0.1.0/26"], { finalizer: true })],
      identity,
    })
    // "ns/" with rule "" is another group than "ns/a" with rule "" (no nesting across groups),
    // and groups are restored in the order of their keys: the bare one first
    expect(r.conflicts).toEqual([{ cidr: "10.0.1.0/24", with: "10.0.1.0/26", cluster: "ns/a", rule: "" }])
    expect(allocations(r.ipam)).toEqual(["10.0.1.0/26"])
  })

  it("skips what does not parse as a CIDR, from an annotation or a ClusterConfig, without a conflict", () => {
    const r = restoreIpam({
      config,
      clusters: [cluster("a", '{"r1":{"/x":"10.0.1.1/24","/y":"10.0.2.0/24"}}'), cluster("b")],
      clusterConfigs: [clusterConfig("b-cc", ["not-a-cidr", "10.0.3.0/24"], { cluster: "b", rule: "r1" })],
      identity,
    })
    expect(allocations(r.ipam)).toEqual(["10.0.2.0/24", "10.0.3.0/24"])
    expect(r.conflicts).toEqual([])
  })

  it("lists one group's conflicts in address order when their prefixes are equal", () => {
    const r = restoreIpam({
      config,
      clusters: [
        cluster("a", '{"r1":{"/x":"10.0.1.0/24"}}'),
        // the higher address first on purpose
        cluster("b", '{"r1":{"/hi":"10.0.1.128/25","/lo":"10.0.1.0/25"}}'),
      ],
      clusterConfigs: [],
      identity,
    })
    expect(r.conflicts.map((c) => c.cidr)).toEqual(["10.0.1.0/25", "10.0.1.128/25"])
  })

  it("nests a CIDR under the parent that contains it, whichever parent comes first; one equal to a parent is held parentless", () => {
    const two = {
      parentCIDRs: { p: ["10.0.0.0/16"], q: ["172.16.0.0/12"] },
      injectionRules: [],
      internalStateRefreshCycleDuration: 0,
    } as never
    const r = restoreIpam({
      config: two,
      clusters: [cluster("a", '{"r1":{"/x":"172.16.4.0/24"}}'), cluster("b", '{"r1":{"/y":"10.0.0.0/16"}}')],
      clusterConfigs: [],
      identity,
    })
    expect(r.conflicts).toEqual([])
    expect(r.ipam.allocated.get("172.16.4.0/24")?.parent).toBe("172.16.0.0/12")
    expect(r.ipam.allocated.has("10.0.0.0/16")).toBe(true)
    expect(r.ipam.allocated.get("10.0.0.0/16")?.parent).toBeUndefined()
  })
})
