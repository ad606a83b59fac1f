import { describe, expect, it } from "vitest"
import { hashString, Rng } from "./random.ts"

describe("Rng", () => {
  it("draws the same numbers for the same seed and stream", () => {
    const a = new Rng(42, 7)
    const b = new Rng(42, 7)
    for (let i = 0; i < 100; i++) expect(b.next()).toBe(a.next())
  })

  it("draws different numbers for another seed or another stream", () => {
    const first = (r: Rng) => Array.from({ length: 8 }, () => r.next())
    expect(first(new Rng(42, 7))).not.toEqual(first(new Rng(43, 7)))
    expect(first(new Rng(42, 7))).not.toEqual(first(new Rng(42, 8)))
  })

  it("stays in range and has the mean it is asked for", () => {
    const r = new Rng(1)
    let sum = 0
    const n = 20_000
    for (let i = 0; i < n; i++) {
      const u = r.float()
      expect(u).toBeGreaterThanOrEqual(0)
      expect(u).toBeLessThan(1)
      const k = r.int(3, 5)
      expect(k >= 3 && k <= 5).toBe(true)
      sum += r.exponential(10)
    }
    expect(sum / n).toBeGreaterThan(9.5)
    expect(sum / n).toBeLessThan(10.5)
  })

  it("hashes text seeds stably", () => {
    expect(hashString("krtt")).toBe(hashString("krtt"))
    expect(hashString("krtt")).not.toBe(hashString("krtT"))
  })
})
