import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { LayeredMap } from "./layered.ts"

describe("LayeredMap", () => {
  it("behaves as a copied Map under any sequence of sets and deletes, and leaves earlier versions intact", () => {
    fc.assert(
      fc.property(
        // fast-check keeps arrays short unless told: at least 40 operations, so that the overlay
        // (folded past 32 entries for a small base) is folded many times over
        fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 0, max: 60 }), fc.nat()), {
          minLength: 40,
          maxLength: 400,
          size: "max",
        }),
        (ops) => {
          let l = LayeredMap.of(new Map<number, number>())
          const m = new Map<number, number>()
          const versions: Array<[LayeredMap<number, number>, Map<number, number>]> = []
          for (const [set, k, v] of ops) {
            if (set) {
              l = l.with(k, v)
              m.set(k, v)
            } else {
              l = l.without(k)
              m.delete(k)
            }
            versions.push([l, new Map(m)])
          }
          // plain comparisons, one expect per version (an expect per key made this 10 s long)
          for (const [i, [lv, mv]] of versions.entries()) {
            const wrong: Array<number> = []
            for (let k = 0; k <= 60; k++)
              if (lv.has(k) !== mv.has(k) || lv.get(k) !== mv.get(k)) wrong.push(k)
            expect({ size: lv.size, wrong }, `version ${i}`).toEqual({ size: mv.size, wrong: [] })
            expect(new Map(lv), `version ${i}`).toEqual(mv)
          }
        },
      ),
      { numRuns: 50 },
    )
  })
})
