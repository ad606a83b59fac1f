/**
 * `inventory.entry` in `krtt tables` and `krtt explain`: listed with every row, explained with
 * the documented text, and its input strict (an unknown field names the closest known one).
 */
import { describe, expect, it } from "vitest"
import { decodeInput, explainInput, renderTables, tablesJson, UsageError } from "../../shell/cli/explain.ts"

const stored = JSON.stringify({
  cluster: "east",
  kubernetesVersion: "v1.34.1",
  nodes: 3,
  readyNodes: 2,
  engagedSince: "2026-11-24T06:00:00.000Z",
  lastChange: "2026-11-24T06:30:00.000Z",
  reachable: true,
})
const input = {
  observed: { cluster: "east", view: { _tag: "Unhealthy", reason: "probe failed 5 times in a row" }, stored },
  desired: {},
  trigger: { _tag: "Reconcile" },
  now: Date.parse("2026-11-24T07:00:00.000Z"),
}

const refusal = (value: unknown): string => {
  try {
    decodeInput("inventory.entry", JSON.stringify(value))
  } catch (e) {
    expect(e).toBeInstanceOf(UsageError)
    return (e as Error).message
  }
  throw new Error("the input was accepted")
}

describe("krtt tables / krtt explain inventory.entry", () => {
  it("krtt tables lists the table with its 12 rows, 8 from the issue", () => {
    const t = tablesJson().find((x) => x.id === "inventory.entry")
    expect(t?.inputDocs).toBe("docs/fleet.md")
    expect(t?.rows.map((r) => r.id)).toEqual(Array.from({ length: 12 }, (_, i) => `inventory.entry#${i + 1}`))
    expect(t?.rows.filter((r) => !r.derived)).toHaveLength(8)
    expect(renderTables()).toContain("inventory.entry#12 (derived)")
  })

  it("explains a cluster disengaged by health with row 7 and its documented text", () => {
    const e = explainInput("inventory.entry", JSON.stringify(input))
    expect(e.row).toBe("inventory.entry#7")
    expect(e.conforms).toBe(true)
    expect(e.text.Cluster).toBe("disengaged by health")
    expect(e.actions).toHaveLength(1)
    expect(JSON.parse((e.actions[0] as { value: string }).value)).toMatchObject({
      reachable: false,
      reason: "probe failed 5 times in a row",
      nodes: 3,
      lastChange: "2026-11-24T07:00:00.000Z",
    })
  })

  it("an unknown field names the closest known one", () => {
    expect(refusal({ ...input, observed: { ...input.observed, pendingSinse: 5 } })).toContain(
      'unknown field; did you mean "pendingSince"?',
    )
    expect(refusal({ ...input, observed: { ...input.observed, view: { _tag: "Gone" } } })).toContain("_tag")
  })
})
