import { describe, expect, it } from "vitest"
import { clusterConfigName, formatAppliedRules, nameHash, parseAppliedRules } from "./objects.ts"

describe("clusterConfigName()", () => {
  it("is <cluster>--ipam--<rule id> when that fits in 63 characters", () => {
    expect(clusterConfigName("c1", "mcp")).toBe("c1--ipam--mcp")
  })
  it("replaces the tail of a longer name by --<8 base32 characters>, deterministically", () => {
    const n = clusterConfigName("a".repeat(60), "rule")
    expect(n).toHaveLength(63)
    expect(n).toMatch(/^a{53}--[a-z2-7]{8}$/)
    expect(clusterConfigName("a".repeat(60), "rule")).toBe(n)
    expect(clusterConfigName("a".repeat(60), "rule2")).not.toBe(n)
    expect(nameHash("x")).toMatch(/^[a-z2-7]{8}$/)
  })
  it("takes the length from the defaults", () => {
    expect(
      clusterConfigName("abcdefgh", "r", { maxNameLength: 15, nameHashLength: 8, stateRefreshCycle: 0 }),
    ).toHaveLength(15)
  })
})

describe("the applied-rules annotation", () => {
  it("reads {rule: {path: cidr}} and writes it with sorted keys, as Go's encoding/json does", () => {
    const text = '{"b":{"/z":"10.0.0.0/24","/a":"10.0.1.0/24"},"a":{}}'
    const r = parseAppliedRules(text)
    expect(r.ok && formatAppliedRules(r.rules)).toBe('{"a":{},"b":{"/a":"10.0.1.0/24","/z":"10.0.0.0/24"}}')
  })
  it("refuses what is not that shape, saying why", () => {
    expect(parseAppliedRules("{x").ok).toBe(false)
    expect(parseAppliedRules('{"r":["10.0.0.0/24"]}')).toMatchObject({
      ok: false,
      message: expect.stringContaining('"r"'),
    })
    expect(parseAppliedRules('{"r":{"/p":42}}').ok).toBe(false)
    expect(parseAppliedRules(undefined)).toEqual({ ok: true, rules: {} })
  })
  it("reads null as no rules and a null rule as no paths; an array or a scalar is not a map of rule ids", () => {
    expect(parseAppliedRules("null")).toEqual({ ok: true, rules: {} })
    expect(parseAppliedRules('{"r":null}')).toEqual({ ok: true, rules: { r: {} } })
    for (const text of ["[]", "42", '"x"'])
      expect(parseAppliedRules(text), text).toEqual({ ok: false, message: "not a JSON object of rule ids" })
    expect(parseAppliedRules('{"r":{"/p":42}}')).toEqual({
      ok: false,
      message: 'rule "r" path "/p" is not a CIDR string',
    })
  })
})
