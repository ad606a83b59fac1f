import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { entryTransition, InventoryDefaults } from "../../core/inventory/index.ts"
import { entryTable } from "../../spec/inventory/index.ts"
import { conformanceProperty, rowHits } from "../conformance.ts"
import { configArb, entryInput, freeInput, scenarioInput } from "./arbitraries.ts"

describe("inventory.entry conforms to its spec (seed 003, Goals 2)", () => {
  it("the documented row decides and holds at the default debounce (2 s)", () => {
    fc.assert(conformanceProperty(entryTable, entryTransition as never, entryInput, InventoryDefaults), {
      numRuns: 3_000,
    })
  })

  it("the documented row decides and holds at other debounces, 0 included", () => {
    const inputs = configArb.chain((c) =>
      fc.tuple(fc.oneof(scenarioInput(c.debounce), freeInput), fc.constant(c)),
    )
    fc.assert(
      fc.property(inputs, ([input, config]) => {
        fc.assert(conformanceProperty(entryTable, entryTransition as never, fc.constant(input), config), {
          numRuns: 1,
        })
      }),
      { numRuns: 2_000 },
    )
  })

  it("every row, documented or derived, decides at least 50 of 2,000 generated inputs (three seeds)", () => {
    for (const seed of [20_261_121, 7, 42]) {
      const hits = rowHits(entryTable, entryTransition as never, entryInput, InventoryDefaults, 2_000, seed)
      for (const row of entryTable.rows)
        expect(
          hits.get(`inventory.entry#${row.n}`),
          `inventory.entry#${row.n} seed ${seed}`,
        ).toBeGreaterThanOrEqual(50)
    }
  })
})
