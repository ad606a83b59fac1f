import { assert, describe, it } from "@effect/vitest"
import { applyJsonPatch, applyMergePatch, applyPatch, contentTypeOf, jsonPatch, mergePatch } from "./patch.ts"

describe("applyMergePatch (RFC 7386)", () => {
  it("merges objects, deletes on null, replaces arrays and scalars", () => {
    const target = { a: { b: 1, c: 2 }, list: [1, 2], keep: "x" }
    const out = applyMergePatch(target, { a: { b: null, d: 3 }, list: [3], keep: "y" })
    assert.deepStrictEqual(out, { a: { c: 2, d: 3 }, list: [3], keep: "y" })
    assert.deepStrictEqual(
      target,
      { a: { b: 1, c: 2 }, list: [1, 2], keep: "x" },
      "the target is not mutated",
    )
  })
})

describe("patch kinds", () => {
  it("carry the content type the API server expects", () => {
    assert.deepStrictEqual(
      [mergePatch({}), jsonPatch([]), applyPatch({}), { type: "strategic" as const, body: {} }].map(
        contentTypeOf,
      ),
      [
        "application/merge-patch+json",
        "application/json-patch+json",
        "application/apply-patch+yaml",
        "application/strategic-merge-patch+json",
      ],
    )
  })

  it("applyJsonPatch applies add/replace/remove and throws on a bad path", () => {
    const out = applyJsonPatch({ a: 1, b: [1] }, [
      { op: "add", path: "/c", value: 2 },
      { op: "replace", path: "/a", value: 5 },
      { op: "remove", path: "/b/0" },
    ])
    assert.deepStrictEqual(out, { a: 5, b: [], c: 2 })
    assert.throws(() => applyJsonPatch({}, [{ op: "remove", path: "/missing/x" }]))
  })
})
