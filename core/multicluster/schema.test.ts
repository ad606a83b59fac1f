import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as SchemaIssue from "effect/SchemaIssue"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { engagementInput } from "../../property-tests/multicluster/arbitraries.ts"
import {
  closestKey,
  EngagementInputSchema,
  editDistance,
  engagementInputKeys,
  type KeyShape,
  unknownKeyMessage,
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

describe("unknownKeys() and unknownKeyMessage(): strict inputs", () => {
  const leaf: KeyShape = { _tag: "Leaf" }
  const object: KeyShape = { _tag: "Object", fields: { name: leaf, kind: leaf } }
  const tagged: KeyShape = { _tag: "Tagged", variants: { A: { _tag: leaf, x: leaf } } }
  it("leaves a value of the wrong type to the schema: no unknown keys for null, a list, a string or a leaf", () => {
    for (const v of [null, ["name"], "name", 3]) expect(unknownKeys(v, object), JSON.stringify(v)).toEqual([])
    expect(unknownKeys({ anything: 1 }, leaf)).toEqual([])
    expect(unknownKeys(["a", { b: 1 }], leaf)).toEqual([])
    expect(unknownKeys({ name: 1 }, { _tag: "Array", item: object })).toEqual([])
  })
  it("a tagged object is checked only against a variant its `_tag` string names", () => {
    expect(unknownKeys({ _tag: "A", x: 1, y: 2 }, tagged).map((u) => u.key)).toEqual(["y"])
    expect(unknownKeys({ _tag: "B", y: 2 }, tagged)).toEqual([])
    expect(unknownKeys({ _tag: ["A"], y: 2 }, tagged)).toEqual([])
  })
  it("the message names the key, the closest known key when there is one, and the known keys when there are any", () => {
    const u = { path: ["k"], key: "knd", closest: "kind", known: ["name", "kind"] }
    expect(unknownKeyMessage(u)).toBe('unknown key "knd"; did you mean "kind"? (known keys: name, kind)')
    expect(unknownKeyMessage({ ...u, closest: undefined })).toBe('unknown key "knd" (known keys: name, kind)')
    expect(unknownKeyMessage({ ...u, closest: undefined, known: [] })).toBe('unknown key "knd"')
  })
})
