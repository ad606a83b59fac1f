import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { ScopedCacheDefaults, scopedCacheOptions, transitions } from "../../core/scopedcache/index.ts"
import { tables } from "../../spec/scopedcache/index.ts"
import { conformanceProperty, rowHits } from "../conformance.ts"
import { coverage } from "../coverage.ts"
import { inputs } from "./arbitraries.ts"

const configs = fc
  .record({
    informerKey: fc.constantFrom("gvk" as const, "gvkAndSelectors" as const),
    accessReview: fc.boolean(),
  })
  .map((o) => scopedCacheOptions(o))

describe("scoped cache tables conform to seed 002", () => {
  for (const spec of tables) {
    const id = spec.id as keyof typeof transitions
    const transition = transitions[id]
    const arb = inputs[id] as fc.Arbitrary<unknown>

    it(`${spec.id}: the documented row decides, with the defaults`, () => {
      fc.assert(conformanceProperty(spec, transition, arb, ScopedCacheDefaults), { numRuns: 3_000 })
    })

    it(`${spec.id}: the documented row decides, with other options`, () => {
      fc.assert(conformanceProperty(spec, transition, arb, configs), { numRuns: 500 })
    })

    it(`${spec.id}: every row, documented or derived, is reached by the generators`, () => {
      const hits = rowHits(spec, transition, arb, ScopedCacheDefaults, 2_000, 7)
      for (const row of spec.rows)
        expect(hits.get(`${spec.id}#${row.n}`), `${spec.id}#${row.n}`).toBeGreaterThanOrEqual(50)
    })
  }
})

describe("krtt:coverage for the scoped cache", () => {
  const report = coverage()
  const ours = report.tables.filter((t) => t.id.startsWith("scopedcache."))

  it("lists the three tables with 7, 3 and 4 rows from the seed and 9, 1 and 2 derived", () => {
    expect(
      ours.map((t) => [
        t.id,
        t.rows.filter((r) => !r.derived).length,
        t.rows.filter((r) => r.derived).length,
      ]),
    ).toEqual([
      ["scopedcache.informers", 7, 9],
      ["scopedcache.lifecycle", 3, 1],
      ["scopedcache.reads", 4, 2],
    ])
  })

  it("every row, documented or derived, is decided by at least 50 of the report's inputs", () => {
    for (const t of ours) for (const r of t.rows) expect(r.hits, r.id).toBeGreaterThanOrEqual(50)
  })
})
