import { readdirSync, readFileSync, statSync } from "node:fs"
import { join, relative } from "node:path"
import { describe, expect, it } from "vitest"

const root = new URL("../..", import.meta.url).pathname
const MARK = /^\s*\/\/ Stryker (disable(?: next-line)?) (.+)$/
const ENTRY = /^- `(disable(?: next-line)?) ([^`]+)` on `(.*)`: \S/

const sources = (dir: string): ReadonlyArray<string> =>
  readdirSync(join(root, dir)).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(join(root, path)).isDirectory()) return sources(path)
    return name.endsWith(".ts") && !name.endsWith(".test.ts") ? [path] : []
  })

/** `file|kind mutators|guarded line` of every mark in the code. */
const marksInCode = (): ReadonlyArray<string> =>
  ["core", "shell", "sim"].flatMap(sources).flatMap((file) => {
    const lines = readFileSync(join(root, file), "utf8").split("\n")
    return lines.flatMap((line, i) => {
      const m = MARK.exec(line)
      if (m === null) return []
      const guarded = lines.slice(i + 1).find((l) => !/^\s*(\/\/|$)/.test(l)) ?? ""
      return [`${relative(".", file)}|${m[1]} ${m[2]}|${guarded.trim().replaceAll("`", "'")}`]
    })
  })

/** The same keys from docs/mutation/marks.md, each under its file's heading. */
const marksInDocs = (): ReadonlyArray<string> => {
  let file = ""
  return readFileSync(join(root, "docs/mutation/marks.md"), "utf8")
    .split("\n")
    .flatMap((line) => {
      if (line.startsWith("## ")) file = line.slice(3).trim()
      const m = ENTRY.exec(line)
      return m === null ? [] : [`${file}|${m[1]} ${m[2]}|${m[3]}`]
    })
}

describe("docs/mutation/marks.md", () => {
  it("gives the reason of every mutation mark in the code, and of no other", () => {
    const code = marksInCode()
    const docs = marksInDocs()
    expect(code.length).toBeGreaterThan(0)
    expect({
      undocumented: code.filter((k) => !docs.includes(k)),
      stale: docs.filter((k) => !code.includes(k)),
    }).toEqual({
      undocumented: [],
      stale: [],
    })
  })

  it("keeps no reason on a mark in the code", () => {
    const withReason = marksInCode().filter((k) => k.split("|")[1]?.includes(":"))
    expect(withReason).toEqual([])
  })
})
