import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { parse as parseYaml } from "yaml"
import { cidrOf, formatCidr } from "./cidr.ts"
import {
  globalParentIds,
  IpamConfigInvalidError,
  parentCidrsOf,
  parentContaining,
  validateIpamConfig,
} from "./config.ts"
import { configOf, errorsOf, expectIssues, rule, spec } from "./testing.ts"

/** upstream's docs/config/config.md example, as written there */
const upstreamExample: unknown = parseYaml(
  readFileSync(new URL("./testdata/upstream-ipamconfig.yaml", import.meta.url), "utf8"),
)

describe("validateIpamConfig()", () => {
  it("accepts upstream's documented example and normalizes it", () => {
    const r = validateIpamConfig(upstreamExample)
    if (r instanceof IpamConfigInvalidError) throw r
    expect(r._tag).toBe("ValidConfig")
    expect(r.config.internalStateRefreshCycleDuration).toBe(24 * 3_600_000)
    const [mcp, test] = r.config.injectionRules
    expect(mcp?.injections[0]?.paths).toEqual(["/spec/network/cidr", "/metadata/annotations/rootcidr"])
    expect(test?.selector.matchLabels).toEqual({ "clusters.openmcp.cloud/test": "true" })
    expect(test?.injections[1]).toEqual({
      id: undefined,
      paths: ["/spec/network/subnetB"],
      parents: ["test-cidr"],
      subnetSize: 30,
    })
  })

  it("refuses with an IpamConfigInvalidError whose message names every issue, joined by '; '", () => {
    const r = validateIpamConfig({ spec: { parentCIDRs: { a: ["10.0.0.0/33"] }, bogus: 1 } })
    expect(r).toBeInstanceOf(IpamConfigInvalidError)
    expect(r._tag).toBe("IpamConfigInvalidError")
    expect((r as IpamConfigInvalidError).message).toBe(
      'spec.bogus: unknown field "bogus"; did you mean "parentCIDRs"?; spec.parentCIDRs.a[0]: "10.0.0.0/33" is not a CIDR: the prefix length 33 exceeds 32',
    )
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
          rule([{ path: "spec.x]", subnetSize: 24 }], {
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

describe("validateIpamConfig(): the object and the spec's top level", () => {
  it("accepts the spec alone, and refuses an unknown top-level key by its own name (no leading dot)", () => {
    expect(configOf({ parentCIDRs: { a: ["10.0.0.0/16"] } }).parentCIDRs).toEqual({ a: ["10.0.0.0/16"] })
    expectIssues({ spce: 1, spec: { parentCIDRs: {} } }, [
      /^spce: unknown field "spce"; did you mean "spec"\?$/,
    ])
  })
  it("refuses a spec that is not an object, naming its type", () => {
    expectIssues({ spec: [] }, [/^spec: must be an object, got an array$/])
    expectIssues(null, [/^spec: must be an object, got null$/])
    expectIssues("x", [/^spec: must be an object, got string$/])
  })
  it("requires parentCIDRs as a map of id to a list of CIDR strings", () => {
    expectIssues({ spec: {} }, [/^spec\.parentCIDRs: is required$/])
    expectIssues({ spec: { parentCIDRs: ["10.0.0.0/8"] } }, [
      /^spec\.parentCIDRs: must be a map .*got an array$/,
    ])
    expectIssues({ spec: { parentCIDRs: { a: "10.0.0.0/8" } } }, [
      /^spec\.parentCIDRs\.a: must be a list of strings, got string$/,
    ])
    expectIssues({ spec: { parentCIDRs: { a: [8] } } }, [
      /^spec\.parentCIDRs\.a\[0\]: must be a string, got number$/,
    ])
    expect(configOf({ spec: { parentCIDRs: { a: null, b: ["fd00:0::/48"] } } }).parentCIDRs).toEqual({
      a: [],
      b: ["fd00::/48"],
    })
  })
  it("reads internalStateRefreshCycleDuration as a Go duration; absent, null or 0 means never (0)", () => {
    expect(
      configOf(spec({ internalStateRefreshCycleDuration: "1h30m" })).internalStateRefreshCycleDuration,
    ).toBe(5_400_000)
    for (const d of [undefined, null, "0"])
      expect(configOf(spec({ internalStateRefreshCycleDuration: d })).internalStateRefreshCycleDuration).toBe(
        0,
      )
    expectIssues(spec({ internalStateRefreshCycleDuration: 60 }), [
      /^spec\.internalStateRefreshCycleDuration: 60 is not a duration/,
    ])
  })
  it("requires injectionRules to be a list of objects (absent or null: none)", () => {
    expect(configOf(spec({ injectionRules: null })).injectionRules).toEqual([])
    expectIssues(spec({ injectionRules: {} }), [/^spec\.injectionRules: must be a list, got object$/])
    expectIssues(spec({ injectionRules: [7] }), [
      /^spec\.injectionRules\[0\]: must be an object, got number$/,
    ])
  })
})

describe("globalParentIds() and parentContaining()", () => {
  const config = configOf({ spec: { parentCIDRs: { b: ["10.1.0.0/16"], a: ["10.0.0.0/16", "fd00::/48"] } } })
  const injection = (parents: ReadonlyArray<string>) => ({
    id: undefined,
    paths: ["/a"],
    parents,
    subnetSize: 24,
  })
  it("an injection without parents may use every parent id, sorted; local ids are not global", () => {
    expect(globalParentIds(config, injection([]), new Set())).toEqual(["a", "b"])
    expect(globalParentIds(config, injection(["n", "b"]), new Set(["n"]))).toEqual(["b"])
  })
  it("names the parent that contains a CIDR, or none", () => {
    expect(parentContaining(config, cidrOf("10.1.2.0/24"))).toBe("10.1.0.0/16")
    expect(parentContaining(config, cidrOf("fd00:0:0:1::/64"))).toBe("fd00::/48")
    expect(parentContaining(config, cidrOf("10.2.0.0/24"))).toBeUndefined()
  })
})

describe("validateIpamConfig(): what the first mutation run found untested", () => {
  const inj = "^spec\\.injectionRules\\[0\\]\\.injections"
  const sel = "^spec\\.injectionRules\\[0\\]"
  const one = (injection: unknown, parentCIDRs: unknown = { a: ["10.0.0.0/16"] }) => ({
    spec: { parentCIDRs, injectionRules: [rule([injection])] },
  })
  const withSelector = (s: Record<string, unknown>) =>
    spec({ injectionRules: [rule([{ path: "/a", subnetSize: 24 }], s)] })
  it("accepts the whole object with status, and names an unknown spec field under spec", () => {
    const whole = { apiVersion: "v", kind: "IPAMConfig", metadata: {}, status: {}, spec: { parentCIDRs: {} } }
    expect(configOf(whole).parentCIDRs).toEqual({})
    expectIssues({ spec: { parentCIDRs: {}, injectionRule: [] } }, [
      /^spec\.injectionRule: unknown field "injectionRule"; did you mean "injectionRules"\?$/,
    ])
  })
  it("refuses a refresh cycle that is not a string, also a list holding one", () => {
    expectIssues(spec({ internalStateRefreshCycleDuration: ["1h"] }), [
      /^spec\.internalStateRefreshCycleDuration: \["1h"\] is not a duration/,
    ])
  })
  it("names the earlier injection of a duplicate injection id", () => {
    const dup = spec({
      injectionRules: [
        rule([
          { id: "x", path: "/a", subnetSize: 24 },
          { id: "x", path: "/b", subnetSize: 24 },
        ]),
      ],
    })
    expectIssues(dup, [
      new RegExp(
        `${inj}\\[1\\]\\.id: duplicate injection id "x" \\(also spec\\.injectionRules\\[0\\]\\.injections\\[0\\]\\.id\\)$`,
      ),
    ])
  })
  it("requires parents as a list of strings", () => {
    expectIssues(one({ path: "/a", subnetSize: 24, parents: "a" }), [
      new RegExp(`${inj}\\[0\\]\\.parents: must be a list of strings, got string$`),
    ])
  })
  it("an injection id that is also a global parent id means the earlier injection", () => {
    const shadow = (subnetSize: number) => ({
      spec: {
        parentCIDRs: { a: ["10.0.0.0/16"] },
        injectionRules: [
          rule([
            { id: "a", path: "/a", parents: ["a"], subnetSize: 24 },
            { path: "/b", parents: ["a"], subnetSize },
          ]),
        ],
      },
    })
    expect(configOf(shadow(28)).injectionRules[0]?.injections[1]?.subnetSize).toBe(28)
    expectIssues(shadow(20), [
      new RegExp(`${inj}\\[1\\]\\.subnetSize: a /20 fits in none of its parents \\(a\\)`),
    ])
  })
  it("an injection without parents needs a parent CIDR somewhere: ids without CIDRs are not enough", () => {
    expectIssues(one({ path: "/a", subnetSize: 24 }, { e: [] }), [
      new RegExp(`${inj}\\[0\\]\\.parents: is empty, .*there is none$`),
    ])
  })
  it("a matchIdentities name or namespace must be a non-empty string", () => {
    expectIssues(withSelector({ matchIdentities: [{ name: 1, namespace: "" }] }), [
      new RegExp(`${sel}\\.matchIdentities\\[0\\]\\.name: is required$`),
      new RegExp(`${sel}\\.matchIdentities\\[0\\]\\.namespace: is required$`),
    ])
  })
  it("a matchExpressions key must be a non-empty string, and its values a list", () => {
    for (const key of [undefined, "", 5])
      expectIssues(withSelector({ matchExpressions: [{ key, operator: "Exists" }] }), [
        new RegExp(`${sel}\\.matchExpressions\\[0\\]\\.key: is required$`),
      ])
    expectIssues(withSelector({ matchExpressions: [{ key: "k", operator: "In", values: "v" }] }), [
      new RegExp(`${sel}\\.matchExpressions\\[0\\]\\.values: must be a list of strings, got string$`),
      new RegExp(`${sel}\\.matchExpressions\\[0\\]\\.values: must not be empty for operator In$`),
    ])
  })
  it("parentCidrsOf() skips a text that is not a CIDR (a config built by hand)", () => {
    const byHand = {
      parentCIDRs: { a: ["bogus", "10.0.0.0/8"] },
      injectionRules: [],
      internalStateRefreshCycleDuration: 0,
    }
    expect(parentCidrsOf(byHand).map(formatCidr)).toEqual(["10.0.0.0/8"])
  })
})
