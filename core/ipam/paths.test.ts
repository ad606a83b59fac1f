import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { escapeJsonPathSegment, jsonPathOf, normalizePath, pointerOf, pointerSegments } from "./paths.ts"

const path = (text: string) => {
  const r = normalizePath(text)
  return r.ok ? r.path : `error: ${r.message}`
}
const refusal = (text: string) => {
  const r = normalizePath(text)
  return r.ok ? undefined : { position: r.position, reason: r.reason }
}

describe("normalizePath(): JSON Pointer notation", () => {
  it("keeps a JSON Pointer (RFC 6901) as it is: ~0 and ~1 escapes, numeric and empty segments", () => {
    for (const p of [
      "/foo/bar",
      "/mylist/0/asdf",
      "/metadata/annotations/foo.bar.baz~1foobar",
      "/a~0b/c~1d",
      "/",
      "/a//b",
      "/a/",
    ])
      expect(path(p)).toBe(p)
  })
  it("refuses a '~' not followed by 0 or 1, naming its position", () => {
    expect(path("/a~2")).toBe(
      `error: "/a~2" at position 2: '~' must be followed by '0' (for '~') or '1' (for '/') in a JSON Pointer`,
    )
    expect(refusal("/a~")?.position).toBe(2)
    expect(refusal("/a/b~x")?.position).toBe(4)
  })
})

describe("normalizePath(): JSON Path notation", () => {
  it("converts every example of controller-utils' jsonpatch documentation as that table says", () => {
    const table: ReadonlyArray<[string, string]> = [
      [".metadata.annotations.foo\\.bar\\.baz/foobar", "/metadata/annotations/foo.bar.baz~1foobar"],
      ["metadata.annotations.foo\\.bar\\.baz/foobar", "/metadata/annotations/foo.bar.baz~1foobar"],
      [".metadata.annotations[foo\\.bar\\.baz/foobar]", "/metadata/annotations/foo.bar.baz~1foobar"],
      ['metadata.annotations["foo.bar.baz/foobar"]', "/metadata/annotations/foo.bar.baz~1foobar"],
      [".metadata[annotations]['foo.bar.baz/foobar']", "/metadata/annotations/foo.bar.baz~1foobar"],
      [".mylist[0].asdf", "/mylist/0/asdf"],
      ["mylist.0.asdf", "/mylist/0/asdf"],
    ]
    for (const [jsonPath, pointer] of table) expect(path(jsonPath)).toBe(pointer)
  })
  it("converts the paths of upstream's IPAMConfig documentation", () => {
    expect(path(".spec.network.cidr")).toBe("/spec/network/cidr")
    expect(path(".metadata.annotations[rootcidr]")).toBe("/metadata/annotations/rootcidr")
    expect(path(".spec.network.subnetB")).toBe("/spec/network/subnetB")
    expect(path("spec.network.cidr")).toBe("/spec/network/cidr")
  })
  it("converts the cases of controller-utils' ConvertPath tests alike", () => {
    const cases: ReadonlyArray<[string, string]> = [
      ["a", "/a"],
      [".a", "/a"],
      ["a.b", "/a/b"],
      [".a.b", "/a/b"],
      ["a[0]", "/a/0"],
      ["a[0].b", "/a/0/b"],
      ["a[b][c]", "/a/b/c"],
      ["a.b[c]", "/a/b/c"],
      ["a[b.c].d", "/a/b.c/d"],
      ["a['b']", "/a/b"],
      ['a["b"]', "/a/b"],
      ["a['b.c']", "/a/b.c"],
      ['a["b.c"]', "/a/b.c"],
      ["a['b c']", "/a/b c"],
      ['a["b c"]', "/a/b c"],
      ["a['b\\c']", "/a/b\\c"],
      ['a["b\\c"]', "/a/b\\c"],
      ["a\\.b", "/a.b"],
      ["a\\[b\\]", "/a[b]"],
      ["a.\\'b\\'.c", "/a/'b'/c"],
      [".a~b.c/d", "/a~0b/c~1d"],
    ]
    for (const [jsonPath, pointer] of cases) expect(path(jsonPath)).toBe(pointer)
  })
  it("reads segments as upstream's parser does: a segment ends at '.' or '[', quotes end at quote-bracket", () => {
    expect(path("a[0]b")).toBe("/a/0/b")
    expect(path("a..b")).toBe("/a//b")
    expect(path("a[]")).toBe("/a/")
    expect(path("a['']")).toBe("/a/")
    expect(path(".[0]")).toBe("//0")
    expect(path("['a\"b']")).toBe('/a"b')
    expect(path(`["a'b"]`)).toBe("/a'b")
    expect(path(`['a"]']`)).toBe('/a"]')
    expect(path("a[b'c]")).toBe("/a/b'c")
    expect(path("a[b\\]c]")).toBe("/a/b]c")
    expect(path("a[b\\[c]")).toBe("/a/b[c")
    expect(path("a[x\\\\y]")).toBe("/a/x\\y")
  })
  it("refuses malformed paths with the position and the reason", () => {
    expect(path("a[")).toBe(`error: "a[" at position 1: '[' at the end: a segment and ']' must follow`)
    expect(refusal("a[foo")).toEqual({ position: 1, reason: "no closing ']' for this '['" })
    expect(refusal("a['foo]")).toEqual({ position: 1, reason: "no closing '] for this ['" })
    expect(refusal('a["foo]')).toEqual({ position: 1, reason: 'no closing "] for this ["' })
    expect(refusal("a]")).toEqual({ position: 1, reason: "unescaped ']' outside brackets; write '\\]'" })
    expect(refusal('a"')?.position).toBe(1)
    expect(refusal("ab'")?.position).toBe(2)
    expect(refusal("a\\")).toEqual({ position: 1, reason: "'\\' at the end: it escapes nothing" })
    expect(refusal("a\\x")).toEqual({
      position: 2,
      reason: "'\\x' is no escape; only \\\\ \\. \\[ \\] \\' \\\" are",
    })
    expect(refusal("a[b\\x]")?.position).toBe(4)
    expect(refusal("a[b\\")?.position).toBe(3)
    expect(refusal("a.")).toEqual({ position: 1, reason: "'.' at the end: a segment must follow" })
    expect(refusal(".")?.position).toBe(0)
    expect(refusal("a[b[c]]")).toEqual({
      position: 3,
      reason: "unescaped '[' inside brackets; brackets do not nest (write '\\[')",
    })
    expect(refusal("")).toEqual({ position: 0, reason: "the path is empty" })
  })
})

describe("jsonPathOf() and pointerSegments()", () => {
  it("write a pointer in dot notation, escaping what must be escaped", () => {
    expect(jsonPathOf("/metadata/annotations/foo.bar.baz~1foobar")).toEqual({
      ok: true,
      path: ".metadata.annotations.foo\\.bar\\.baz/foobar",
    })
    expect(jsonPathOf("/a/")).toEqual({ ok: true, path: '.a[""]' })
    expect(jsonPathOf("/a//b")).toEqual({ ok: true, path: ".a..b" })
    expect(jsonPathOf("")).toMatchObject({
      ok: false,
      reason: "the whole document has no JSON Path segment to name",
    })
    expect(jsonPathOf("/a~2").ok).toBe(false)
    expect(escapeJsonPathSegment(`a\\.[]'"b`)).toBe(`a\\\\\\.\\[\\]\\'\\"b`)
  })
  it("split a pointer into its unescaped segments", () => {
    expect(pointerSegments("/a~1b/c~0d/~01")).toEqual(["a/b", "c~d", "~1"])
    expect(pointerSegments("")).toEqual([])
    expect(pointerSegments("/")).toEqual([""])
  })
})

/** Characters that matter to either notation, and some that do not. */
const segmentChar = fc.constantFrom(..."ab0-_ ./~[]'\"\\:é")
const segment = fc.string({ unit: segmentChar, maxLength: 8 })
const segments = fc.array(segment, { minLength: 1, maxLength: 6 })

type Style = "dot" | "bare" | "single" | "double"
/** One segment in the given style, or undefined when that style cannot hold it there. */
const render = (s: string, style: Style, first: boolean, last: boolean): string | undefined => {
  switch (style) {
    case "dot":
      if (s === "" && last) return undefined
      // the leading '.' may go, unless the text would then read as a JSON Pointer
      return `${first && s !== "" && !s.startsWith("/") ? "" : "."}${escapeJsonPathSegment(s)}`
    case "bare":
      // a quote right after '[' would open a quoted segment: escaped there
      return `[${[...s].map((c, i) => ("\\[]".includes(c) || (i === 0 && "'\"".includes(c)) ? `\\${c}` : c)).join("")}]`
    case "single":
      return s.includes("']") ? undefined : `['${s}']`
    case "double":
      return s.includes('"]') ? undefined : `["${s}"]`
  }
}

describe("both notations round-trip (property)", () => {
  it("any segments, written as a pointer or in any mix of JSON Path styles, normalize to the same pointer", () => {
    fc.assert(
      fc.property(
        segments,
        fc.array(fc.constantFrom<Style>("dot", "bare", "single", "double"), { minLength: 6, maxLength: 6 }),
        (segs, styles) => {
          const pointer = pointerOf(segs)
          expect(normalizePath(pointer)).toEqual({ ok: true, path: pointer })
          expect(pointerSegments(pointer)).toEqual(segs)
          const written = segs.map(
            (s, i) =>
              render(s, styles[i] as Style, i === 0, i === segs.length - 1) ??
              render(s, "bare", i === 0, i === segs.length - 1),
          )
          expect(normalizePath(written.join(""))).toEqual({ ok: true, path: pointer })
          const dotted = jsonPathOf(pointer)
          expect(dotted.ok).toBe(true)
          if (dotted.ok) expect(normalizePath(dotted.path)).toEqual({ ok: true, path: pointer })
        },
      ),
      { numRuns: 2000 },
    )
  })
})
