import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { IpamDefaults, reconcileTransition, triggerTransition } from "../../core/ipam/index.ts"
import { reconcileTable, triggerTable } from "../../spec/ipam/index.ts"
import { conformanceProperty, rowHits } from "../conformance.ts"
import { reconcileInput, triggerInput } from "./arbitraries.ts"

const COVERAGE_RUNS = 2_000

const cases = [
  { spec: triggerTable, transition: triggerTransition, arb: triggerInput },
  { spec: reconcileTable, transition: reconcileTransition, arb: reconcileInput },
] as const

describe("IPAM tables conform to seed 004", () => {
  for (const { spec, transition, arb } of cases) {
    it(`${spec.id}: the documented row decides and holds`, () => {
      fc.assert(conformanceProperty(spec, transition as never, arb, IpamDefaults), { numRuns: 2_000 })
    })

    it(`${spec.id}: every row, documented or derived, decides at least 50 of 2,000 generated inputs`, () => {
      for (const seed of [20_261_121, 7, 42]) {
        const hits = rowHits(spec, transition as never, arb, IpamDefaults, COVERAGE_RUNS, seed)
        for (const row of spec.rows)
          expect(hits.get(`${spec.id}#${row.n}`), `${spec.id}#${row.n} seed ${seed}`).toBeGreaterThanOrEqual(
            50,
          )
      }
    })
  }
})
