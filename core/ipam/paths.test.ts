import { describe, expect, it } from "vitest"
import { normalizePath } from "./paths.ts"

const path = (text: string) => {
  const r = normalizePath(text)
  return r.ok ? r.path : `error: ${r.message}`
}

describe("normalizePath()", () => {
  it("keeps a JSONPatch path (RFC 6901) as it is, escapes included", () => {
    expect(path("/spec/network/cidr")).toBe("/spec/network/cidr")
    expect(path("/a~0b/c~1d")).toBe("/a~0b/c~1d")
  })
  it("refuses a JSONPatch path with an empty segment or a bad '~' escape", () => {
    expect(path("/")).toBe('error: "/" has an empty segment')
    expect(path("/a//b")).toBe('error: "/a//b" has an empty segment')
    expect(path("/a/")).toBe('error: "/a/" has an empty segment')
    expect(path("/a~2")).toBe(`error: "/a~2" has a '~' that is not '~0' or '~1'`)
    expect(path("/a~")).toBe(`error: "/a~" has a '~' that is not '~0' or '~1'`)
    expect(path("/a/b~2")).toBe(`error: "/a/b~2" has a '~' that is not '~0' or '~1'`)
  })
  it("turns a JSONPath-like path (upstream's `.spec.network.cidr`) into JSONPatch form", () => {
    expect(path(".spec.network.cidr")).toBe("/spec/network/cidr")
    expect(path(".spec.list[0]")).toBe("/spec/list/0")
    expect(path(".spec.list[10].x")).toBe("/spec/list/10/x")
    expect(path(".spec.list[100]")).toBe("/spec/list/100")
    expect(path('.metadata.labels["a/b"]')).toBe("/metadata/labels/a~1b")
    expect(path(".metadata.labels['x~y']")).toBe("/metadata/labels/x~0y")
    expect(path('.a["b.c"]')).toBe("/a/b.c")
  })
  it("refuses a JSONPath-like path with an empty segment, a bad bracket or a stray character, naming where", () => {
    expect(path(".")).toBe('error: "." has an empty segment at position 0')
    expect(path(".a..b")).toBe('error: ".a..b" has an empty segment at position 2')
    expect(path(".a.")).toBe('error: ".a." has an empty segment at position 2')
    expect(path(".a[0")).toBe(`error: ".a[0" has an unclosed '['`)
    expect(path(".a[01]")).toBe('error: ".a[01]" has "[01]", neither an index nor a quoted key')
    for (const half of ['"x"y', 'x"y"', "'x'y", "x'y'"])
      expect(path(`.a[${half}]`)).toBe(
        `error: ".a[${half}]" has "[${half}]", neither an index nor a quoted key`,
      )
    expect(path(".a[x]")).toBe('error: ".a[x]" has "[x]", neither an index nor a quoted key')
    expect(path(".a[-1]")).toBe('error: ".a[-1]" has "[-1]", neither an index nor a quoted key')
    expect(path(".a[0]x")).toBe(`error: ".a[0]x" has an unexpected 'x' at position 5`)
  })
  it("refuses a path in neither form", () => {
    expect(path("spec.x")).toBe(
      'error: "spec.x" is neither a JSONPatch path (/a/b) nor a JSONPath-like one (.a.b)',
    )
    expect(path("")).toMatch(/is neither a JSONPatch path/)
  })
})
