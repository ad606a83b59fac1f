import { describe, expect, it } from "vitest"
import { sameState } from "./equal.ts"

describe("sameState()", () => {
  it("treats an absent field and an undefined field alike", () => {
    expect(sameState({ a: 1, t: undefined }, { a: 1 })).toBe(true)
    expect(sameState({ a: 1 }, { a: 1, t: undefined })).toBe(true)
  })
  it("tells different values, a value from undefined, and a state from none", () => {
    expect(sameState({ a: 1, t: 5 }, { a: 1 })).toBe(false)
    expect(sameState({ a: 1 }, { a: 2 })).toBe(false)
    expect(sameState({ a: { x: [1] } }, { a: { x: [2] } })).toBe(false)
    expect(sameState(undefined, { a: 1 })).toBe(false)
    expect(sameState({ a: 1 }, undefined)).toBe(false)
    expect(sameState(undefined, undefined)).toBe(true)
  })
})
