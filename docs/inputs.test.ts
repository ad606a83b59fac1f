import { readdirSync, readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { explainInput } from "../shell/cli/explain.ts"

const dir = fileURLToPath(new URL("./", import.meta.url))
const files = [
  ...readdirSync(dir).filter((f) => f.endsWith(".md")),
  ...readdirSync(`${dir}krtt`)
    .filter((f) => f.endsWith(".md"))
    .map((f) => `krtt/${f}`),
]
const examples = files.flatMap((file) =>
  [
    ...readFileSync(`${dir}${file}`, "utf8").matchAll(
      /<!-- decides: ([\w.-]+#\d+) -->\s*```json\n([\s\S]*?)```/g,
    ),
  ].map((m) => ({ file, row: m[1] as string, json: m[2] as string })),
)

describe("input examples in docs/", () => {
  it("has examples", () => expect(examples.length).toBeGreaterThan(0))
  for (const { file, row, json } of examples) {
    it(`${file}: the example decides ${row}`, () => {
      const table = row.slice(0, row.lastIndexOf("#"))
      const e = explainInput(table, json)
      expect(e.row).toBe(row)
      expect(e.conforms).toBe(true)
    })
  }
})
