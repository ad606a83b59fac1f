import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { LayeredMap } from "./layered.ts"

describe("LayeredMap", () => {
  it("behaves as a copied Map under any sequence of sets and deletes, and leaves earlier versions intact", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 0, max: 60 }), fc.nat()), { maxLength: 400 }),
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
          for (const [lv, mv] of versions) {
            expect(lv.size).toBe(mv.size)
            expect(new Map(lv)).toEqual(mv)
            for (let k = 0; k <= 60; k++) {
              expect(lv.has(k)).toBe(mv.has(k))
              expect(lv.get(k)).toBe(mv.get(k))
            }
          }
        },
      ),
      { numRuns: 100 },
    )
  })
})
