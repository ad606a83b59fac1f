import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { insertSorted } from "./watch.ts"

describe("insertSorted()", () => {
  it("keeps the list sorted and free of duplicates, and returns the same list when the name is there", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.string({ maxLength: 3 }), { maxLength: 8 }),
        fc.string({ maxLength: 3 }),
        (xs, x) => {
          const sorted = [...xs].sort()
          const out = insertSorted(sorted, x)
          expect(out).toEqual([...new Set([...sorted, x])].sort())
          if (sorted.includes(x)) expect(out).toBe(sorted)
        },
      ),
    )
  })
  it("inserts at the front, the middle and the end", () => {
    expect(insertSorted(["b", "d"], "a")).toEqual(["a", "b", "d"])
    expect(insertSorted(["b", "d"], "c")).toEqual(["b", "c", "d"])
    expect(insertSorted(["b", "d"], "e")).toEqual(["b", "d", "e"])
    expect(insertSorted([], "a")).toEqual(["a"])
  })
})
