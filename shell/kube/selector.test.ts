import { assert, describe, it } from "@effect/vitest"
import type { KubeObject } from "./resource.ts"
import {
  formatLabelSelector,
  matchesFieldSelector,
  matchesLabelSelector,
  parseLabelSelector,
} from "./selector.ts"

const obj = (labels: Record<string, string>, name = "a"): KubeObject => ({
  metadata: { name, namespace: "ns", labels },
  status: { phase: "Ready" },
})

describe("label selectors", () => {
  it("parses equality, inequality, set and existence requirements", () => {
    assert.deepStrictEqual(parseLabelSelector("a=1,b==2,c!=3,d in (x, y),e notin (z),f,!g"), [
      { op: "In", key: "a", values: ["1"] },
      { op: "In", key: "b", values: ["2"] },
      { op: "NotIn", key: "c", values: ["3"] },
      { op: "In", key: "d", values: ["x", "y"] },
      { op: "NotIn", key: "e", values: ["z"] },
      { op: "Exists", key: "f" },
      { op: "DoesNotExist", key: "g" },
    ])
    assert.isUndefined(parseLabelSelector("a b"))
  })

  it("matches objects as the API server does", () => {
    const o = obj({ app: "web", tier: "front" })
    assert.isTrue(matchesLabelSelector("app=web,tier in (front,back)", o))
    assert.isTrue(matchesLabelSelector("app,!missing,env!=prod", o))
    assert.isFalse(matchesLabelSelector("app=db", o))
    assert.isFalse(matchesLabelSelector("tier notin (front)", o))
    assert.isTrue(matchesLabelSelector("", o))
    assert.isFalse(matchesLabelSelector("a b", o), "a malformed selector matches nothing")
  })

  it("formats the object form and round-trips through the parser", () => {
    const s = formatLabelSelector({
      matchLabels: { app: "web" },
      matchExpressions: [
        { key: "tier", operator: "In", values: ["front", "back"] },
        { key: "x", operator: "DoesNotExist" },
      ],
    })
    assert.strictEqual(s, "app=web,tier in (back,front),!x")
    assert.isTrue(matchesLabelSelector(s, obj({ app: "web", tier: "back" })))
  })
})

describe("field selectors", () => {
  it("matches dotted paths with = and !=", () => {
    assert.isTrue(matchesFieldSelector("metadata.name=a,metadata.namespace==ns", obj({})))
    assert.isTrue(matchesFieldSelector("status.phase!=Failed", obj({})))
    assert.isFalse(matchesFieldSelector("metadata.name=b", obj({})))
  })
})
