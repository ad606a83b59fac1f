/**
 * `multicluster.engagement` in `krtt tables` and `krtt explain`: listed with every row, explained
 * with the documented text, and its input strict (an unknown key names the closest known key of
 * the object it is in, the variant its `_tag` names included).
 */
import { describe, expect, it } from "vitest"
import { decodeInput, explainInput, renderTables, tablesJson, UsageError } from "../../shell/cli/explain.ts"

const input = {
  observed: {
    state: { _tag: "Failed", generation: "g1", failures: 1, retryAt: 1_000, error: "x" },
    dropped: 0,
  },
  desired: {
    cluster: "east",
    hasProvider: true,
    watches: [{ name: "Watches(v1/ConfigMap)", kind: "Watches" }],
  },
  trigger: { _tag: "RetryDue" },
  now: 999,
}

const refusal = (value: unknown): string => {
  try {
    decodeInput("multicluster.engagement", JSON.stringify(value))
  } catch (e) {
    expect(e).toBeInstanceOf(UsageError)
    return (e as Error).message
  }
  throw new Error("the input was accepted")
}

describe("krtt tables / krtt explain multicluster.engagement", () => {
  it("krtt tables lists the table with its 24 rows, 14 from the seed", () => {
    const t = tablesJson().find((x) => x.id === "multicluster.engagement")
    expect(t?.source).toBe("003_424e4e9fdc1cae8c.txt")
    expect(t?.inputDocs).toBe("docs/multicluster-inputs.md")
    expect(t?.rows.map((r) => r.id)).toEqual(
      Array.from({ length: 24 }, (_, i) => `multicluster.engagement#${i + 1}`),
    )
    expect(t?.rows.filter((r) => !r.derived)).toHaveLength(14)
    expect(renderTables()).toContain("multicluster.engagement#17 (derived)")
  })

  it("explains a retry 1 ms early with row 21 and its documented text", () => {
    const e = explainInput("multicluster.engagement", JSON.stringify(input))
    expect(e.row).toBe("multicluster.engagement#21")
    expect(e.conforms).toBe(true)
    expect(e.actions).toEqual([{ _tag: "RetryAfter", cluster: "east", after: 1 }])
    expect(e.text["Reconciliation Action"]).toBe("`RetryAfter(retryAt - now)`")
  })

  it("an unknown key names its path and the closest key of its own variant", () => {
    const m = refusal({
      ...input,
      observed: { ...input.observed, state: { ...input.observed.state, retryAtt: 5 } },
    })
    expect(m).toContain('input.observed.state.retryAtt: unknown key "retryAtt"; did you mean "retryAt"?')
    expect(m).toContain("docs/multicluster-inputs.md")
    expect(refusal({ ...input, trigerr: {} })).toContain(
      'input.trigerr: unknown key "trigerr"; did you mean "trigger"?',
    )
  })

  it("a value of the wrong type is named with its path", () => {
    expect(refusal({ ...input, observed: { ...input.observed, dropped: -1 } })).toContain(
      "input.observed.dropped",
    )
    expect(refusal({ ...input, desired: { ...input.desired, clusterFilter: "maybe" } })).toContain(
      "input.desired.clusterFilter",
    )
    expect(refusal({ ...input, trigger: { _tag: "ClusterAdded", generation: "" } })).toContain(
      "input.trigger.generation",
    )
  })
})
