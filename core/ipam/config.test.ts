import { describe, expect, it } from "vitest"
import { validateIpamConfig } from "./config.ts"

/** upstream's docs/config/config.md example, verbatim in shape */
const upstreamExample = {
  apiVersion: "gardener.clusters.openmcp.cloud/v1alpha1",
  kind: "IPAMConfig",
  metadata: { name: "ipam" },
  spec: {
    internalStateRefreshCycleDuration: "24h",
    parentCIDRs: { foo: ["10.27.0.0/16"], bar: ["10.28.0.0/24"] },
    injectionRules: [
      {
        id: "mcp-clusters",
        matchPurposes: [{ operator: "ContainsAll", values: ["mcp"] }],
        injections: [{ path: ".spec.network.cidr", parents: ["foo", "bar"], subnetSize: 28 }],
      },
      {
        id: "test",
        matchLabels: { "clusters.openmcp.cloud/test": "true" },
        matchPurposes: [{ operator: "ContainsNone", values: ["mcp", "onboarding", "platform", "workload"] }],
        injections: [
          { id: "test-cidr", path: "/spec/network/subnetA", parents: ["foo"], subnetSize: 24 },
          { path: ".spec.network.subnetB", parents: ["test-cidr"], subnetSize: 30 },
        ],
      },
    ],
  },
}

const errorsOf = (raw: unknown) => {
  const r = validateIpamConfig(raw)
  if (!("errors" in r)) throw new Error("expected errors")
  return r.errors
}
const spec = (s: Record<string, unknown>) => ({ spec: { parentCIDRs: { a: ["10.0.0.0/16"] }, ...s } })
const rule = (injections: ReadonlyArray<unknown>, extra: Record<string, unknown> = {}) => ({
  id: "r",
  injections,
  ...extra,
})

describe("validateIpamConfig()", () => {
  it("accepts upstream's documented example and normalizes it", () => {
    const r = validateIpamConfig(upstreamExample)
    if (!("config" in r)) throw new Error(JSON.stringify(r.errors))
    expect(r.config.internalStateRefreshCycleDuration).toBe(24 * 3_600_000)
    const [mcp, test] = r.config.injectionRules
    expect(mcp?.injections[0]?.paths).toEqual(["/spec/network/cidr"])
    expect(test?.selector.matchLabels).toEqual({ "clusters.openmcp.cloud/test": "true" })
    expect(test?.injections[1]).toEqual({
      id: undefined,
      paths: ["/spec/network/subnetB"],
      parents: ["test-cidr"],
      subnetSize: 30,
    })
  })

  it("refuses overlapping parents, also the same CIDR under two ids", () => {
    const e = errorsOf({
      spec: { parentCIDRs: { a: ["10.0.0.0/16"], b: ["10.0.4.0/24"], c: ["10.0.0.0/16"] } },
    })
    expect(e.map((x) => x.path)).toEqual([
      "spec.parentCIDRs.b[0]",
      "spec.parentCIDRs.c[0]",
      "spec.parentCIDRs.c[0]",
    ])
    expect(e[0]?.message).toContain("overlaps 10.0.0.0/16")
  })

  it("refuses malformed CIDRs, naming the field", () => {
    const e = errorsOf({ spec: { parentCIDRs: { a: ["10.0.0.0/33", "10.0.0.1/24", "fd00::/48x"] } } })
    expect(e.map((x) => x.path)).toEqual([
      "spec.parentCIDRs.a[0]",
      "spec.parentCIDRs.a[1]",
      "spec.parentCIDRs.a[2]",
    ])
  })

  it("refuses duplicate rule ids, injection ids and paths", () => {
    const e = errorsOf(
      spec({
        injectionRules: [
          rule([
            { id: "x", path: "/a", parents: ["a"], subnetSize: 24 },
            { id: "x", path: ".a", paths: ["/b", "/b"], parents: ["a"], subnetSize: 24 },
          ]),
          rule([{ path: "/c", subnetSize: 24 }]),
        ],
      }),
    )
    expect(e.map((x) => x.path)).toEqual([
      "spec.injectionRules[0].injections[1].id",
      "spec.injectionRules[0].injections[1].path",
      "spec.injectionRules[0].injections[1].paths[1]",
      "spec.injectionRules[1].id",
    ])
  })

  it("refuses unknown parents, naming the closest id", () => {
    const e = errorsOf(spec({ injectionRules: [rule([{ path: "/a", parents: ["aa"], subnetSize: 24 }])] }))
    expect(e).toEqual([
      {
        path: "spec.injectionRules[0].injections[0].parents[0]",
        message:
          'unknown parent "aa": neither an id of spec.parentCIDRs nor of an earlier injection of this rule; did you mean "a"?',
      },
    ])
  })

  it("refuses sizes that fit in no parent (IPv4 and IPv6), and a local parent that is not larger", () => {
    const e = errorsOf({
      spec: {
        parentCIDRs: { a: ["10.0.0.0/16"], six: ["fd00::/48"] },
        injectionRules: [
          rule([
            { path: "/a", parents: ["a"], subnetSize: 16 },
            { path: "/b", parents: ["a"], subnetSize: 64 },
            { path: "/c", parents: ["six"], subnetSize: 64 },
            { id: "n", path: "/d", parents: ["a"], subnetSize: 24 },
            { path: "/e", parents: ["n"], subnetSize: 24 },
          ]),
        ],
      },
    })
    expect(e.map((x) => x.path)).toEqual([
      "spec.injectionRules[0].injections[0].subnetSize",
      "spec.injectionRules[0].injections[1].subnetSize",
      "spec.injectionRules[0].injections[4].subnetSize",
    ])
  })

  it("names the closest known field for an unknown one, at every level", () => {
    const e = errorsOf({
      spec: {
        parentCidrs: {},
        injectionRules: [
          {
            id: "r",
            matchLabel: {},
            injections: [{ path: "/a", subnetsize: 24, subnetSize: 24, parents: [] }],
          },
        ],
      },
    })
    expect(e.map((x) => x.message)).toContain('unknown field "parentCidrs"; did you mean "parentCIDRs"?')
    expect(e.map((x) => x.message)).toContain('unknown field "matchLabel"; did you mean "matchLabels"?')
    expect(e.map((x) => x.message)).toContain('unknown field "subnetsize"; did you mean "subnetSize"?')
    expect(e.map((x) => x.path)).toContain("spec.parentCIDRs")
  })

  it("refuses a rule id longer than a label value, and an injection with no parent to slice from", () => {
    const e = errorsOf({
      spec: {
        parentCIDRs: {},
        injectionRules: [rule([{ path: "/a", subnetSize: 24 }], { id: "r".repeat(64) })],
      },
    })
    expect(e.map((x) => x.path)).toEqual([
      "spec.injectionRules[0].id",
      "spec.injectionRules[0].injections[0].parents",
    ])
  })

  it("refuses bad selectors, paths, ids and durations", () => {
    const e = errorsOf(
      spec({
        internalStateRefreshCycleDuration: "one day",
        injectionRules: [
          rule([{ path: "spec.x", subnetSize: 24 }], {
            id: "Bad_Id",
            matchPurposes: [{ operator: "ContainAll", values: ["mcp"] }],
            matchExpressions: [
              { key: "k", operator: "In", values: [] },
              { key: "k", operator: "Exists", values: ["v"] },
            ],
          }),
        ],
      }),
    )
    expect(e.map((x) => x.path)).toEqual([
      "spec.internalStateRefreshCycleDuration",
      "spec.injectionRules[0].id",
      "spec.injectionRules[0].matchPurposes[0].operator",
      "spec.injectionRules[0].matchExpressions[0].values",
      "spec.injectionRules[0].matchExpressions[1].values",
      "spec.injectionRules[0].injections[0].path",
    ])
    expect(e[2]?.message).toContain('did you mean "ContainsAll"?')
  })
})
