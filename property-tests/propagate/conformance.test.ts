import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { PropagateDefaults, transitions } from "../../core/propagate/index.ts"
import { tables } from "../../spec/propagate/index.ts"
import { conformanceProperty, rowHits } from "../conformance.ts"
import { inputs } from "./arbitraries.ts"

describe("propagate.copy conforms to its spec (seed 003, uniform controller)", () => {
  for (const spec of tables) {
    const id = spec.id as keyof typeof transitions
    const transition = transitions[id]
    const arb = inputs[id] as fc.Arbitrary<unknown>

    it(`${spec.id}: the documented row decides and holds`, () => {
      fc.assert(conformanceProperty(spec, transition, arb, PropagateDefaults), { numRuns: 5_000 })
    })

    it(`${spec.id}: every row is reached by the generators at least 50 times in 2,000`, () => {
      const hits = rowHits(spec, transition, arb, PropagateDefaults, 2_000, 7)
      for (const row of spec.rows)
        expect(hits.get(`${spec.id}#${row.n}`), `${spec.id}#${row.n}`).toBeGreaterThanOrEqual(50)
    })
  }
})

describe("propagate.copy's spec rejects wrong decisions (the conformance test can fail)", () => {
  const spec = tables[0] as (typeof tables)[number]
  const arb = inputs["propagate.copy"] as fc.Arbitrary<unknown>
  const fails = (broken: (typeof transitions)["propagate.copy"]) =>
    expect(() =>
      fc.assert(conformanceProperty(spec, broken, arb, PropagateDefaults), { numRuns: 2_000 }),
    ).toThrow()
  const base = transitions["propagate.copy"]

  it("a core that writes to a forbidden cluster", () =>
    fails((i, c) => (i.observed.access === "Forbidden" ? { ...base(i, c), actions: [] } : base(i, c))))
  it("a core that forgets the namespace", () =>
    fails((i, c) => {
      const r = base(i, c)
      return { ...r, actions: r.actions.filter((a) => a._tag !== "CreateNamespace") }
    }))
  it("a core that deletes an object that is not ours", () =>
    fails((i, c) => {
      const r = base(i, c)
      const s = i.observed.source
      return r.row === "propagate.copy#6" && s !== null && i.observed.copy !== null
        ? {
            ...r,
            actions: [
              {
                _tag: "DeleteCopy",
                cluster: i.desired.cluster,
                kind: s.kind,
                namespace: s.namespace,
                name: s.name,
              },
            ],
          }
        : r
    }))
  it("a core that copies the hub's bookkeeping annotations", () =>
    fails((i, c) => {
      const r = base(i, c)
      const s = i.observed.source
      return {
        ...r,
        actions: r.actions.map((a) =>
          (a._tag === "CreateCopy" || a._tag === "UpdateCopy") && s !== null
            ? { ...a, content: { ...a.content, annotations: s.content.annotations } }
            : a,
        ),
      }
    }))
})
