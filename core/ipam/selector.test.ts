// The selectors of an injection rule as validateIpamConfig reads them (core/ipam/selector.ts).
import { describe, expect, it } from "vitest"
import { configOf, expectIssues, rule, spec } from "./testing.ts"

describe("validateIpamConfig(): selectors", () => {
  const sel = (s: Record<string, unknown>) =>
    spec({ injectionRules: [rule([{ path: "/a", subnetSize: 24 }], s)] })
  const selectorOf = (s: Record<string, unknown>) => configOf(sel(s)).injectionRules[0]?.selector
  const at = "^spec\\.injectionRules\\[0\\]"
  it("reads every selector; matchIdentities absent or null disables it, an empty list is kept", () => {
    expect(
      selectorOf({
        matchIdentities: [{ name: "c", namespace: "n" }],
        matchPurposes: [{ operator: "Equals", values: ["mcp"] }],
        matchLabels: { a: "b" },
        matchExpressions: [
          { key: "k", operator: "NotIn", values: ["v"] },
          { key: "k", operator: "DoesNotExist" },
        ],
      }),
    ).toEqual({
      matchIdentities: [{ name: "c", namespace: "n" }],
      matchPurposes: [{ operator: "Equals", values: ["mcp"] }],
      matchLabels: { a: "b" },
      matchExpressions: [
        { key: "k", operator: "NotIn", values: ["v"] },
        { key: "k", operator: "DoesNotExist", values: [] },
      ],
    })
    expect(selectorOf({ matchIdentities: null })?.matchIdentities).toBeUndefined()
    expect(selectorOf({})?.matchIdentities).toBeUndefined()
    expect(selectorOf({ matchIdentities: [] })?.matchIdentities).toEqual([])
    expect(selectorOf({ matchPurposes: null, matchLabels: null, matchExpressions: null })).toEqual({
      matchIdentities: undefined,
      matchPurposes: [],
      matchLabels: {},
      matchExpressions: [],
    })
  })
  it("matchIdentities: a list of {name, namespace}, both required, no other key", () => {
    expectIssues(sel({ matchIdentities: {} }), [
      new RegExp(`${at}\\.matchIdentities: must be a list, got object$`),
    ])
    expectIssues(sel({ matchIdentities: ["c"] }), [
      new RegExp(`${at}\\.matchIdentities\\[0\\]: must be an object, got string$`),
    ])
    expectIssues(sel({ matchIdentities: [{ name: "", namespace: 1 }] }), [
      new RegExp(`${at}\\.matchIdentities\\[0\\]\\.name: is required$`),
      new RegExp(`${at}\\.matchIdentities\\[0\\]\\.namespace: is required$`),
    ])
    expectIssues(sel({ matchIdentities: [{ name: "c", namespace: "n", nmae: "x" }] }), [
      /matchIdentities\[0\]\.nmae: unknown field "nmae"; did you mean "name"\?$/,
    ])
  })
  it("matchPurposes: a list of {operator, values} with a known operator", () => {
    expectIssues(sel({ matchPurposes: "mcp" }), [
      new RegExp(`${at}\\.matchPurposes: must be a list, got string$`),
    ])
    expectIssues(sel({ matchPurposes: [[]] }), [
      new RegExp(`${at}\\.matchPurposes\\[0\\]: must be an object, got an array$`),
    ])
    expectIssues(sel({ matchPurposes: [{ operator: 1, values: [] }] }), [
      new RegExp(
        `${at}\\.matchPurposes\\[0\\]\\.operator: 1 is not one of ContainsAll, ContainsAny, ContainsNone, Equals$`,
      ),
    ])
    expectIssues(sel({ matchPurposes: [{ operator: "Equals", values: "mcp" }] }), [
      new RegExp(`${at}\\.matchPurposes\\[0\\]\\.values: must be a list of strings, got string$`),
    ])
  })
  it("matchLabels: a map of strings", () => {
    expectIssues(sel({ matchLabels: [] }), [
      new RegExp(`${at}\\.matchLabels: must be a map of strings, got an array$`),
    ])
    expectIssues(sel({ matchLabels: { a: true } }), [
      new RegExp(`${at}\\.matchLabels\\.a: must be a string, got boolean$`),
    ])
  })
  it("matchExpressions: {key, operator, values}, values required for In/NotIn and forbidden for Exists/DoesNotExist", () => {
    expectIssues(sel({ matchExpressions: {} }), [
      new RegExp(`${at}\\.matchExpressions: must be a list, got object$`),
    ])
    expectIssues(sel({ matchExpressions: [1] }), [
      new RegExp(`${at}\\.matchExpressions\\[0\\]: must be an object, got number$`),
    ])
    expectIssues(sel({ matchExpressions: [{ operator: "Exists" }] }), [
      new RegExp(`${at}\\.matchExpressions\\[0\\]\\.key: is required$`),
    ])
    expectIssues(sel({ matchExpressions: [{ key: "k", operator: "in", values: ["v"] }] }), [
      /matchExpressions\[0\]\.operator: "in" is not one of In, NotIn, Exists, DoesNotExist; did you mean "In"\?$/,
    ])
    expectIssues(sel({ matchExpressions: [{ key: "k", operator: null }] }), [
      /operator: null is not one of In, NotIn, Exists, DoesNotExist$/,
    ])
    expectIssues(sel({ matchExpressions: [{ key: "k", operator: "NotIn" }] }), [
      /matchExpressions\[0\]\.values: must not be empty for operator NotIn$/,
    ])
    expectIssues(sel({ matchExpressions: [{ key: "k", operator: "DoesNotExist", values: ["v"] }] }), [
      /matchExpressions\[0\]\.values: must be empty for operator DoesNotExist$/,
    ])
    expect(
      selectorOf({
        matchExpressions: [
          { key: "k", operator: "In", values: ["v"] },
          { key: "k", operator: "Exists" },
        ],
      })?.matchExpressions,
    ).toEqual([
      { key: "k", operator: "In", values: ["v"] },
      { key: "k", operator: "Exists", values: [] },
    ])
  })
})
