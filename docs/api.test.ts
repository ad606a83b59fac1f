import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { ENTRY_POINTS, exportsOf } from "./api.ts"

const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
  readonly exports: Readonly<Record<string, unknown>>
}

describe("docs/api.md", () => {
  it("documents exactly the entry points package.json exports", () => {
    const exported = Object.keys(pkg.exports)
      .filter((k) => k !== "." && k !== "./package.json")
      .map((k) => `krtt/${k.slice(2)}`)
    expect(ENTRY_POINTS.map((e) => e.subpath).toSorted()).toEqual(exported.toSorted())
  })

  for (const { subpath, file } of ENTRY_POINTS) {
    it(`lists every value ${subpath} exports at run time`, async () => {
      const module = (await import(`../api/${file}.ts`)) as Record<string, unknown>
      const documented = exportsOf(file)
        .filter((e) => e.kind !== "type")
        .map((e) => e.name)
      expect(documented.toSorted()).toEqual(Object.keys(module).toSorted())
    })
  }
})
