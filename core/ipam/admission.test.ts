// The IPAM webhooks' decisions, case by case as upstream's webhook tests state them (where seed
// 004 is silent): ClusterConfig references injected into a Cluster, and the IPAMConfig refusals
// of upstream's validateIpamConfig, each naming its field.
import { describe, expect, it } from "vitest"
import {
  clusterConfigReferences,
  defaultClusterAdmission,
  EMPTY_CLUSTER_NAME_PLACEHOLDER,
  validateIpamConfigAdmission,
} from "./admission.ts"
import type { IpamConfigSpec } from "./config.ts"

const rule = (id: string, purpose: string) => ({
  id,
  selector: {
    matchIdentities: undefined,
    matchPurposes: [{ operator: "ContainsAll" as const, values: [purpose] }],
    matchLabels: {},
    matchExpressions: [],
  },
  injections: [{ id: undefined, paths: ["/spec/network/cidr"], parents: ["foo"], subnetSize: 28 }],
})
const config = (...rules: ReadonlyArray<ReturnType<typeof rule>>): IpamConfigSpec => ({
  parentCIDRs: { foo: ["10.27.0.0/16"] },
  injectionRules: rules,
  internalStateRefreshCycleDuration: 0,
})
const one = config(rule("test", "test"))
const two = config(rule("test", "test"), rule("another", "test"))
const target = (name: string, purposes: ReadonlyArray<string>) => ({
  name,
  namespace: "ns",
  labels: {},
  purposes,
})

describe("clusterConfigReferences (upstream's ReferenceInjector)", () => {
  it("adds the reference of each selecting rule once, keeps what is there, never removes a reference", () => {
    expect(clusterConfigReferences(one, target("c", ["asdf"]), [])).toEqual([])
    const first = clusterConfigReferences(one, target("c", ["test"]), [])
    expect(first).toEqual([{ name: "c--ipam--test" }])
    expect(clusterConfigReferences(one, target("c", ["test"]), first)).toEqual(first)
    const both = clusterConfigReferences(two, target("c", ["test"]), first)
    expect(both).toEqual([{ name: "c--ipam--test" }, { name: "c--ipam--another" }])
    // the config matching fewer rules later removes nothing
    expect(clusterConfigReferences(one, target("c", ["test"]), both)).toEqual(both)
    const foreign = [{ name: "other-config" }]
    expect(clusterConfigReferences(one, target("c", ["test"]), foreign)).toEqual([
      { name: "other-config" },
      { name: "c--ipam--test" },
    ])
  })
  it("puts the placeholder in once while the name is unknown, and replaces it once the name is known", () => {
    const unnamed = clusterConfigReferences(two, target("", ["test"]), [])
    expect(unnamed).toEqual([{ name: EMPTY_CLUSTER_NAME_PLACEHOLDER }])
    expect(clusterConfigReferences(two, target("", ["test"]), unnamed)).toEqual(unnamed)
    expect(clusterConfigReferences(two, target("c-x7k2p", ["test"]), unnamed)).toEqual([
      { name: "c-x7k2p--ipam--test" },
      { name: "c-x7k2p--ipam--another" },
    ])
    // a Cluster no rule selects never gets the placeholder, and loses one it has (as upstream)
    expect(clusterConfigReferences(two, target("", ["asdf"]), [])).toEqual([])
    expect(clusterConfigReferences(two, target("", ["asdf"]), [...unnamed, { name: "x" }])).toEqual([
      { name: "x" },
    ])
  })
})

describe("defaultClusterAdmission: what it reads of the object", () => {
  const exists: IpamConfigSpec = {
    ...one,
    injectionRules: [
      {
        ...rule("e", "x"),
        selector: {
          ...rule("e", "x").selector,
          matchPurposes: [],
          matchExpressions: [{ key: "a", operator: "Exists", values: [] }],
        },
      },
    ],
  }
  it("reads only string labels and string purposes", () => {
    expect(
      defaultClusterAdmission(exists, { metadata: { name: "c", labels: { a: 5 } }, spec: {} }, "ns"),
    ).toEqual({
      allowed: true,
      patch: [],
    })
    expect(
      defaultClusterAdmission(exists, { metadata: { name: "c", labels: { a: "5" } }, spec: {} }, "ns"),
    ).toMatchObject({
      patch: [{ value: [{ name: "c--ipam--e" }] }],
    })
    expect(
      defaultClusterAdmission(one, { metadata: { name: "c" }, spec: { purposes: [7, "test"] } }, "ns"),
    ).toMatchObject({ allowed: true, patch: [{ value: [{ name: "c--ipam--test" }] }] })
    const byContainsNone: IpamConfigSpec = {
      ...one,
      injectionRules: [
        {
          ...rule("n", "x"),
          selector: { ...rule("n", "x").selector, matchPurposes: [{ operator: "Equals", values: ["test"] }] },
        },
      ],
    }
    expect(
      defaultClusterAdmission(
        byContainsNone,
        { metadata: { name: "c" }, spec: { purposes: [7, "test"] } },
        "ns",
      ),
    ).toMatchObject({
      patch: [{ value: [{ name: "c--ipam--n" }] }],
    })
  })
  it("reads a Cluster without purposes as having none", () => {
    const none: IpamConfigSpec = {
      ...one,
      injectionRules: [
        {
          ...rule("none", "x"),
          selector: { ...rule("none", "x").selector, matchPurposes: [{ operator: "Equals", values: [] }] },
        },
      ],
    }
    expect(defaultClusterAdmission(none, { metadata: { name: "c" }, spec: {} }, "ns")).toMatchObject({
      patch: [{ value: [{ name: "c--ipam--none" }] }],
    })
  })
  it("takes the object's namespace when it has one, the request's otherwise; tolerates no object", () => {
    const inOther: IpamConfigSpec = {
      ...one,
      injectionRules: [
        {
          ...rule("id", "x"),
          selector: {
            ...rule("id", "x").selector,
            matchPurposes: [],
            matchIdentities: [{ name: "c", namespace: "other" }],
          },
        },
      ],
    }
    const at = (namespace: string) => ({ metadata: { name: "c", namespace }, spec: {} })
    expect(defaultClusterAdmission(inOther, at("other"), "ns")).toMatchObject({
      patch: [{ value: [{ name: "c--ipam--id" }] }],
    })
    expect(defaultClusterAdmission(inOther, at(""), "other")).toMatchObject({
      patch: [{ value: [{ name: "c--ipam--id" }] }],
    })
    expect(defaultClusterAdmission(inOther, at("ns"), "other")).toEqual({ allowed: true, patch: [] })
    expect(defaultClusterAdmission(one, null, "ns")).toEqual({ allowed: true, patch: [] })
  })
  it("reads a reference that is no {name: string} as an empty name, kept", () => {
    expect(
      defaultClusterAdmission(
        one,
        { metadata: { name: "c" }, spec: { purposes: ["test"], clusterConfigs: ["x", { name: 5 }] } },
        "ns",
      ),
    ).toEqual({
      allowed: true,
      patch: [
        {
          op: "replace",
          path: "/spec/clusterConfigs",
          value: [{ name: "" }, { name: "" }, { name: "c--ipam--test" }],
        },
      ],
    })
  })
})

describe("defaultClusterAdmission", () => {
  const cluster = (spec: Record<string, unknown> | undefined, name?: string) => ({
    apiVersion: "clusters.openmcp.cloud/v1alpha1",
    kind: "Cluster",
    metadata: { ...(name === undefined ? { generateName: "c-" } : { name }), namespace: "ns" },
    ...(spec === undefined ? {} : { spec }),
  })
  it("refuses without a valid IPAMConfig, as upstream does", () => {
    const d = defaultClusterAdmission(undefined, cluster({ purposes: ["test"] }, "c"), "ns")
    expect(d).toMatchObject({ allowed: false })
    expect(d.allowed ? "" : d.message).toContain("IPAMConfig")
  })
  it("answers a JSON patch that adds spec.clusterConfigs, or replaces it when present; nothing when nothing changes", () => {
    expect(defaultClusterAdmission(one, cluster({ purposes: ["test"] }, "c"), "ns")).toEqual({
      allowed: true,
      patch: [{ op: "add", path: "/spec/clusterConfigs", value: [{ name: "c--ipam--test" }] }],
    })
    expect(
      defaultClusterAdmission(
        one,
        cluster({ purposes: ["test"], clusterConfigs: [{ name: "x" }] }, "c"),
        "ns",
      ),
    ).toEqual({
      allowed: true,
      patch: [
        { op: "replace", path: "/spec/clusterConfigs", value: [{ name: "x" }, { name: "c--ipam--test" }] },
      ],
    })
    expect(
      defaultClusterAdmission(
        one,
        cluster({ purposes: ["test"], clusterConfigs: [{ name: "c--ipam--test" }] }, "c"),
        "ns",
      ),
    ).toEqual({ allowed: true, patch: [] })
    expect(defaultClusterAdmission(one, cluster({ purposes: ["asdf"] }, "c"), "ns")).toEqual({
      allowed: true,
      patch: [],
    })
  })
  it("gives a Cluster created with generateName the placeholder; matches in the request's namespace", () => {
    expect(defaultClusterAdmission(one, cluster({ purposes: ["test"] }), "ns")).toEqual({
      allowed: true,
      patch: [{ op: "add", path: "/spec/clusterConfigs", value: [{ name: EMPTY_CLUSTER_NAME_PLACEHOLDER }] }],
    })
    const byIdentity: IpamConfigSpec = {
      ...one,
      injectionRules: [
        {
          ...rule("id", "x"),
          selector: { ...rule("id", "x").selector, matchIdentities: [{ name: "c", namespace: "req-ns" }] },
        },
      ],
    }
    const noNamespace = { metadata: { name: "c" }, spec: {} }
    expect(defaultClusterAdmission(byIdentity, noNamespace, "req-ns")).toEqual({
      allowed: true,
      patch: [{ op: "add", path: "/spec/clusterConfigs", value: [{ name: "c--ipam--id" }] }],
    })
    expect(defaultClusterAdmission(byIdentity, { metadata: { name: "c" } }, "req-ns")).toEqual({
      allowed: true,
      patch: [
        { op: "add", path: "/spec", value: {} },
        { op: "add", path: "/spec/clusterConfigs", value: [{ name: "c--ipam--id" }] },
      ],
    })
  })
})

const ipamConfig = (spec: Record<string, unknown>) => ({
  apiVersion: "gardener.clusters.openmcp.cloud/v1alpha1",
  kind: "IPAMConfig",
  metadata: { name: "ipam" },
  spec,
})
const parents = { foo: ["10.27.0.0/16"], bar: ["10.28.0.0/24"] }
const refusal = (spec: Record<string, unknown>) => {
  const d = validateIpamConfigAdmission("CREATE", ipamConfig(spec))
  return d.allowed ? undefined : d.message
}
const injection = (extra: Record<string, unknown>) => ({
  path: ".spec.network.cidr",
  subnetSize: 28,
  ...extra,
})

describe("validateIpamConfigAdmission (upstream's validateIpamConfig, case by case)", () => {
  it("allows a valid config (local parents too), and any delete", () => {
    expect(
      validateIpamConfigAdmission(
        "UPDATE",
        ipamConfig({
          parentCIDRs: parents,
          injectionRules: [
            {
              id: "r",
              injections: [
                injection({ id: "nodes", parents: ["foo"], subnetSize: 20 }),
                injection({ path: ".spec.pods", parents: ["nodes"], subnetSize: 24 }),
                injection({ id: "more", path: ".spec.more", parents: ["bar"], subnetSize: 26 }),
              ],
            },
          ],
        }),
      ),
    ).toEqual({ allowed: true, patch: [] })
    expect(
      refusal({
        parentCIDRs: parents,
        injectionRules: [{ id: "r", injections: [injection({ parents: ["foo"] })] }],
      }),
    ).toBeUndefined()
    expect(validateIpamConfigAdmission("DELETE", { nonsense: true })).toEqual({ allowed: true, patch: [] })
  })
  it("refuses identical and overlapping parents", () => {
    expect(refusal({ parentCIDRs: { foo: ["10.27.0.0/16", "10.27.0.0/16"] } })).toContain(
      "spec.parentCIDRs.foo[1]",
    )
    expect(refusal({ parentCIDRs: { foo: ["10.27.0.0/16"], bar: ["10.27.128.0/17"] } })).toContain(
      "spec.parentCIDRs.bar[0]",
    )
  })
  it("refuses a duplicate rule id, injection id and path", () => {
    const r = (id: string) => ({ id, injections: [injection({})] })
    expect(refusal({ parentCIDRs: parents, injectionRules: [r("a"), r("a")] })).toContain(
      "spec.injectionRules[1].id",
    )
    expect(
      refusal({
        parentCIDRs: parents,
        injectionRules: [
          { id: "r", injections: [injection({ id: "x" }), injection({ id: "x", path: ".spec.b" })] },
        ],
      }),
    ).toContain("spec.injectionRules[0].injections[1].id")
    expect(
      refusal({
        parentCIDRs: parents,
        injectionRules: [{ id: "r", injections: [injection({}), injection({})] }],
      }),
    ).toContain("spec.injectionRules[0].injections[1].path")
  })
  it("refuses an injection id that is also a parent id (upstream's rule beyond the controller's)", () => {
    const m = refusal({
      parentCIDRs: parents,
      injectionRules: [{ id: "r", injections: [injection({ id: "foo" })] }],
    })
    expect(m).toContain("spec.injectionRules[0].injections[0].id")
    expect(m).toContain("parent id")
  })
  it("refuses a subnet not smaller than a local parent, and than any CIDR of a global parent id", () => {
    expect(
      refusal({
        parentCIDRs: { foo: ["10.27.0.0/16"] },
        injectionRules: [
          {
            id: "r",
            injections: [
              injection({ id: "nodes", parents: ["foo"], subnetSize: 20 }),
              injection({ path: ".spec.pods", parents: ["nodes"], subnetSize: 16 }),
            ],
          },
        ],
      }),
    ).toContain("spec.injectionRules[0].injections[1]")
    // foo (/16) would do, but bar (/24) is not shorter than /20: upstream refuses
    const m = refusal({
      parentCIDRs: parents,
      injectionRules: [{ id: "r", injections: [injection({ parents: ["foo", "bar"], subnetSize: 20 })] }],
    })
    expect(m).toContain(
      'spec.injectionRules[0].injections[0].parents[1]: parent "bar" has a CIDR with prefix length 24, not shorter than the /20 the injection asks for',
    )
    expect(
      refusal({
        parentCIDRs: { foo: ["10.27.0.0/16"], bar: ["10.24.0.0/16", "10.28.0.0/24"] },
        injectionRules: [{ id: "r", injections: [injection({ parents: ["foo", "bar"], subnetSize: 24 })] }],
      }),
    ).toContain("parents[1]")
  })
  it("refuses an unknown parent and a malformed path, naming the field", () => {
    expect(
      refusal({
        parentCIDRs: parents,
        injectionRules: [{ id: "r", injections: [injection({ parents: ["asdf"] })] }],
      }),
    ).toContain("spec.injectionRules[0].injections[0].parents[0]")
    const m = refusal({
      parentCIDRs: parents,
      injectionRules: [{ id: "r", injections: [injection({ path: "a]" })] }],
    })
    expect(m).toContain('spec.injectionRules[0].injections[0].path: "a]" at position 1')
    expect(m).toMatch(/^IPAMConfig\.gardener\.clusters\.openmcp\.cloud "ipam" is invalid: /)
    expect(validateIpamConfigAdmission("CREATE", null)).toEqual({
      allowed: false,
      code: 422,
      message: 'IPAMConfig.gardener.clusters.openmcp.cloud "" is invalid: spec: must be an object, got null',
    })
    const two = validateIpamConfigAdmission("CREATE", ipamConfig({ parentCIDRs: { a: ["x", "y"] } }))
    expect(two.allowed ? "" : two.message).toMatch(
      /spec\.parentCIDRs\.a\[0\]: .*; spec\.parentCIDRs\.a\[1\]: /,
    )
    const noName = validateIpamConfigAdmission("CREATE", {
      metadata: {},
      spec: { parentCIDRs: { a: ["x"] } },
    })
    expect(noName.allowed ? "" : noName.message).toMatch(
      /^IPAMConfig\.gardener\.clusters\.openmcp\.cloud "" is invalid: spec\.parentCIDRs\.a\[0\]/,
    )
  })
})
