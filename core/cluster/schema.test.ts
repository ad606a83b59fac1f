import { readFileSync } from "node:fs"
import * as Schema from "effect/Schema"
import { describe, expect, it } from "vitest"
import { ClusterInputSchema, inputSchemas } from "./schema.ts"
import { transitions } from "./transitions.ts"

const docs = readFileSync(new URL("../../docs/cluster-inputs.md", import.meta.url), "utf8")

/** Each example of docs/cluster-inputs.md: the row it names and its JSON. */
const examples = (): ReadonlyArray<{ readonly row: string; readonly json: string }> => {
  const out: Array<{ row: string; json: string }> = []
  const re = /Expected row: `([^`]+)`\s*```json\n([\s\S]*?)```/g
  for (let m = re.exec(docs); m !== null; m = re.exec(docs))
    out.push({ row: m[1] as string, json: m[2] as string })
  return out
}

describe("ClusterInputSchema", () => {
  it("decodes every example of docs/cluster-inputs.md to the row the document names", () => {
    const all = examples()
    expect(all.length).toBeGreaterThanOrEqual(6)
    for (const id of Object.keys(transitions))
      expect(
        all.some((e) => e.row.startsWith(`${id}#`)),
        id,
      ).toBe(true)
    for (const { row, json } of all) {
      const input = Schema.decodeUnknownSync(ClusterInputSchema)(JSON.parse(json))
      const table = row.slice(0, row.indexOf("#")) as keyof typeof transitions
      expect(transitions[table](input).row).toBe(row)
    }
  })

  it("names the field that does not decode", () => {
    const [first] = examples()
    const bad = JSON.parse(first?.json ?? "{}")
    bad.observed.cluster.object.status.conditions[0].status = "yes"
    let message = ""
    try {
      Schema.decodeUnknownSync(ClusterInputSchema)(bad)
    } catch (e) {
      message = String(e)
    }
    expect(message).toContain('"conditions"')
    expect(message).toContain('"status"')
    expect(message).toContain('"True" | "False" | "Unknown"')
  })

  it("rejects a missing required field", () => {
    const [first] = examples()
    const bad = JSON.parse(first?.json ?? "{}")
    delete bad.observed.featureGates
    expect(() => Schema.decodeUnknownSync(ClusterInputSchema)(bad)).toThrow(/featureGates/)
  })

  it("serves every table", () => {
    expect(Object.keys(inputSchemas).sort()).toEqual(Object.keys(transitions).sort())
  })
})
