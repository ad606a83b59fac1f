/**
 * Rule matching (openmcp's IdentityLabelPurposeSelector, upstream docs/config/config.md
 * "Selectors") against the spec's own reading of the document, for any selector and Cluster.
 *
 * @module
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { type ClusterSelector, matchSelector, validateIpamConfig } from "../../core/ipam/index.ts"
import { selects } from "../../spec/ipam/model.ts"
import { clusterArb } from "./arbitraries.ts"

const values = fc.uniqueArray(fc.constantFrom("mcp", "workload", "platform", "onboarding", "gold", "prod"), {
  maxLength: 3,
})
const selectorArb: fc.Arbitrary<ClusterSelector> = fc.record({
  matchIdentities: fc.option(
    fc.uniqueArray(
      fc.constantFrom("c1", "c2", "c3").map((name) => ({ name, namespace: "ns" })),
      { maxLength: 2 },
    ),
    { nil: undefined },
  ),
  matchPurposes: fc.array(
    fc.record({
      operator: fc.constantFrom("ContainsAll", "ContainsAny", "ContainsNone", "Equals" as const),
      values,
    }),
    { maxLength: 2 },
  ),
  matchLabels: fc.dictionary(fc.constantFrom("tier", "env"), fc.constantFrom("gold", "silver", "prod"), {
    maxKeys: 2,
  }),
  matchExpressions: fc.array(
    fc.record({
      key: fc.constantFrom("tier", "env"),
      operator: fc.constantFrom("In", "NotIn", "Exists", "DoesNotExist" as const),
      values,
    }),
    { maxLength: 2 },
  ),
})

describe("rule matching (seed 004 via upstream's selector docs)", () => {
  it("agrees with the spec's reading for any selector and Cluster", () => {
    fc.assert(
      fc.property(selectorArb, clusterArb(["c1", "c2", "c3"]), (selector, cluster) => {
        expect(matchSelector(selector, cluster).matches).toBe(
          selects({ id: "r", selector, injections: [] }, cluster),
        )
      }),
      { numRuns: 3_000 },
    )
  })

  it("follows the documented cases", () => {
    const cluster = {
      namespace: "ns",
      name: "c1",
      labels: { tier: "gold" },
      annotations: {},
      purposes: ["mcp", "workload"],
    }
    const sel = (s: Record<string, unknown>) => {
      const v = validateIpamConfig({
        spec: { parentCIDRs: {}, injectionRules: [{ id: "r", injections: [], ...s }] },
      })
      if (!("config" in v)) throw new Error(JSON.stringify(v.errors))
      return matchSelector((v.config.injectionRules[0] as { selector: ClusterSelector }).selector, cluster)
        .matches
    }
    expect(sel({})).toBe(true) // no selector: every Cluster
    expect(sel({ matchIdentities: [] })).toBe(false) // an empty identity selector matches nothing
    expect(sel({ matchIdentities: [{ name: "c1", namespace: "ns" }], matchLabels: { tier: "silver" } })).toBe(
      true,
    ) // identities overrule
    expect(
      sel({ matchPurposes: [{ operator: "ContainsAll", values: ["mcp"] }], matchLabels: { tier: "gold" } }),
    ).toBe(true)
    expect(sel({ matchPurposes: [{ operator: "ContainsAll", values: [] }] })).toBe(false) // empty values: no object for ContainsAll
    expect(sel({ matchPurposes: [{ operator: "ContainsNone", values: [] }] })).toBe(true) // ... all objects for ContainsNone
    expect(sel({ matchPurposes: [{ operator: "Equals", values: ["workload", "mcp", "mcp"] }] })).toBe(true) // order and duplicates ignored
    expect(sel({ matchExpressions: [{ key: "env", operator: "DoesNotExist" }] })).toBe(true)
    expect(sel({ matchExpressions: [{ key: "tier", operator: "NotIn", values: ["gold"] }] })).toBe(false)
  })
})
