/**
 * `propagate.copy` in `krtt tables` and `krtt explain`: listed with every row, explained with the
 * documented text, and its input strict (an unknown key names the closest known key).
 */
import { describe, expect, it } from "vitest"
import { decodeInput, explainInput, tablesJson, UsageError } from "../../shell/cli/explain.ts"

const input = {
  observed: {
    source: {
      kind: "Secret",
      namespace: "team-a",
      name: "tls",
      labelled: true,
      deleting: false,
      content: { data: { a: "AA==" }, binaryData: {}, labels: {}, annotations: {}, type: "Opaque" },
    },
    copy: {
      propagatedFrom: "team-a.tls",
      content: {
        data: { a: "AA==" },
        binaryData: {},
        labels: { "krtt.io/propagated-from": "team-a.tls" },
        annotations: {},
        type: "kubernetes.io/tls",
      },
    },
    access: "Allowed",
    namespace: "Present",
  },
  desired: { cluster: "east", target: { _tag: "Selected" } },
  trigger: { _tag: "CopyChanged" },
  now: 0,
}

const refusal = (value: unknown): string => {
  try {
    decodeInput("propagate.copy", JSON.stringify(value))
  } catch (e) {
    expect(e).toBeInstanceOf(UsageError)
    return (e as Error).message
  }
  throw new Error("the input was accepted")
}

describe("krtt tables / krtt explain propagate.copy", () => {
  it("krtt tables lists the table with its 10 rows, 3 derived, documented in docs/fleet.md", () => {
    const t = tablesJson().find((x) => x.id === "propagate.copy")
    expect(t?.inputDocs).toBe("docs/fleet.md")
    expect(t?.rows.map((r) => r.id)).toEqual(Array.from({ length: 10 }, (_, i) => `propagate.copy#${i + 1}`))
    expect(t?.rows.filter((r) => r.derived).map((r) => r.id)).toEqual([
      "propagate.copy#8",
      "propagate.copy#9",
      "propagate.copy#10",
    ])
  })

  it("explains a Secret whose type changed: row 8 replaces the copy, and the table agrees", () => {
    const e = explainInput("propagate.copy", JSON.stringify(input))
    expect(e.row).toBe("propagate.copy#8")
    expect(e.derived).toBe(true)
    expect(e.conforms).toBe(true)
    expect(e.actions.map((a) => (a as { _tag: string })._tag)).toEqual(["ReplaceCopy"])
  })

  it("refuses an unknown key naming the closest known one, and a bad value naming its path", () => {
    expect(refusal({ ...input, desired: { ...input.desired, clustr: "x" } })).toMatch(/clustr[\s\S]*cluster/)
    expect(refusal({ ...input, observed: { ...input.observed, access: "Maybe" } })).toMatch(/access/)
  })
})
