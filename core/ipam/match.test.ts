// The reason matchSelector gives (shown by `krtt explain` and in logs) for each way a selector
// decides, and the order and filter of the Clusters a config change enqueues.
import { describe, expect, it } from "vitest"
import type { ClusterSelector, IpamConfigSpec } from "./config.ts"
import { OPERATION_ANNOTATION } from "./constants.ts"
import { matchSelector } from "./match.ts"
import type { ClusterView } from "./objects.ts"
import { matchingClusters } from "./trigger.ts"

const none: ClusterSelector = {
  matchIdentities: undefined,
  matchPurposes: [],
  matchLabels: {},
  matchExpressions: [],
}
const target = { namespace: "ns", name: "c", labels: { tier: "gold" }, purposes: ["test"] }

describe("matchSelector's reasons", () => {
  it("names the part of the selector that decided", () => {
    expect(matchSelector(none, target)).toEqual({ matches: true, reason: "noSelector" })
    expect(matchSelector({ ...none, matchIdentities: [] }, target)).toEqual({
      matches: false,
      reason: "identityEmpty",
    })
    expect(matchSelector({ ...none, matchIdentities: [{ namespace: "ns", name: "c" }] }, target)).toEqual({
      matches: true,
      reason: "identity",
    })
    expect(matchSelector({ ...none, matchIdentities: [{ namespace: "other", name: "c" }] }, target)).toEqual({
      matches: false,
      reason: "identity",
    })
    const purposes = { ...none, matchPurposes: [{ operator: "ContainsAny" as const, values: ["prod"] }] }
    expect(matchSelector(purposes, target)).toEqual({ matches: false, reason: "purposes" })
    expect(matchSelector({ ...none, matchLabels: { tier: "silver" } }, target)).toEqual({
      matches: false,
      reason: "labels",
    })
    const expressions = {
      ...none,
      matchExpressions: [{ key: "tier", operator: "NotIn" as const, values: ["gold"] }],
    }
    expect(matchSelector(expressions, target)).toEqual({ matches: false, reason: "expressions" })
    expect(matchSelector({ ...none, matchLabels: { tier: "gold" } }, target)).toEqual({
      matches: true,
      reason: "all",
    })
  })
})

describe("matchingClusters", () => {
  const cluster = (
    namespace: string,
    name: string,
    annotations: Record<string, string> = {},
  ): ClusterView => ({
    namespace,
    name,
    labels: {},
    annotations,
    purposes: [],
  })
  const config: IpamConfigSpec = {
    parentCIDRs: { a: ["10.0.0.0/16"] },
    injectionRules: [{ id: "r", selector: none, injections: [] }],
    internalStateRefreshCycleDuration: 0,
  }
  it("enqueues the matching Clusters that are not ignored, sorted by namespace and name", () => {
    const got = matchingClusters(config, [
      cluster("b", "x"),
      cluster("a", "z"),
      cluster("a", "skip", { [OPERATION_ANNOTATION]: "ignore" }),
      cluster("a", "y"),
    ])
    expect(got).toEqual([
      { _tag: "Enqueue", namespace: "a", name: "y" },
      { _tag: "Enqueue", namespace: "a", name: "z" },
      { _tag: "Enqueue", namespace: "b", name: "x" },
    ])
  })
})
