import { Result, Schema, SchemaIssue } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { engagementInput } from "../../property-tests/multicluster/arbitraries.ts"
import {
  closestKey,
  EngagementInputSchema,
  editDistance,
  engagementInputKeys,
  unknownKeys,
} from "./schema.ts"

const decode = (u: unknown) =>
  Schema.decodeUnknownResult(EngagementInputSchema as Schema.Codec<unknown>)(u, { errors: "all" })
/** Each issue as `input.<path>: <message>`, the way `krtt explain` prints it. */
const messages = (u: unknown): ReadonlyArray<string> => {
  const r = decode(u)
  if (Result.isSuccess(r)) return []
  return SchemaIssue.makeFormatterStandardSchemaV1()(r.failure.issue).issues.map((i) => {
    const path = (i.path ?? []).map((p) => (typeof p === "object" ? p.key : p))
    const text = path.reduce<string>(
      (s, p) => (typeof p === "number" ? `${s}[${p}]` : `${s}.${String(p)}`),
      "input",
    )
    return `${text}: ${i.message}`
  })
}

const valid = {
  observed: { state: { _tag: "Engaged", generation: "g1" }, dropped: 0 },
  desired: {
    cluster: "east",
    hasProvider: true,
    watches: [{ name: "Watches(v1/ConfigMap)", kind: "Watches" }],
  },
  trigger: { _tag: "RequestArrived", namespace: "default", name: "web" },
  now: 1_750_000_000_000,
}

describe("EngagementInputSchema", () => {
  it("decodes every generated input unchanged (the key shape covers every field of the type)", () => {
    fc.assert(
      fc.property(engagementInput, (input) => {
        expect(unknownKeys(input, engagementInputKeys)).toEqual([])
        const r = decode(input)
        expect(Result.isSuccess(r)).toBe(true)
        if (Result.isSuccess(r)) expect(r.success).toEqual(input)
      }),
      { numRuns: 500 },
    )
  })

  it("rejects an unknown key, naming its path and the closest known key", () => {
    const input = { ...valid, desired: { ...valid.desired, engageWithLocalClustr: true } }
    expect(messages(input).join("\n")).toContain(
      'input.desired.engageWithLocalClustr: unknown key "engageWithLocalClustr"; did you mean "engageWithLocalCluster"?',
    )
  })

  it("checks the keys of a tagged object against its own variant", () => {
    const input = { ...valid, trigger: { _tag: "RequestArrived", namespace: "default", nam: "web" } }
    expect(messages(input).join("\n")).toContain(
      'input.trigger.nam: unknown key "nam"; did you mean "name"? (known keys: _tag, namespace, name)',
    )
    const state = {
      ...valid,
      observed: { state: { _tag: "Engaged", generation: "g1", failures: 0 }, dropped: 0 },
    }
    expect(messages(state).join("\n")).toContain('input.observed.state.failures: unknown key "failures"')
  })

  it("names unknown keys inside arrays with their index", () => {
    const input = {
      ...valid,
      desired: { ...valid.desired, watches: [{ name: "Watches(v1/Pod)", kind: "Watches", knd: "For" }] },
    }
    expect(messages(input).join("\n")).toContain(
      'input.desired.watches[0].knd: unknown key "knd"; did you mean "kind"?',
    )
  })

  it("names a field of the wrong type", () => {
    const input = { ...valid, observed: { ...valid.observed, dropped: -1 } }
    expect(messages(input).length).toBeGreaterThan(0)
    expect(messages({ ...valid, trigger: { _tag: "Nope" } }).length).toBeGreaterThan(0)
  })

  it("editDistance() and closestKey()", () => {
    expect(editDistance("kitten", "sitting")).toBe(3)
    expect(editDistance("now", "now")).toBe(0)
    expect(closestKey("trigerr", ["observed", "desired", "trigger", "now"])).toBe("trigger")
    expect(closestKey("x", [])).toBeUndefined()
    expect(closestKey("completelyDifferent", ["now"])).toBeUndefined()
  })
})
