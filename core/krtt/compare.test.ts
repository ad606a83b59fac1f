import { describe, expect, it } from "vitest"
import { byName, compareText } from "./compare.ts"

describe("compareText and byName", () => {
  it("order strings by code unit, equal ones as equal", () => {
    expect(compareText("a", "b")).toBe(-1)
    expect(compareText("b", "a")).toBe(1)
    expect(compareText("a", "a")).toBe(0)
    // code units, not locale: upper case before lower case, "b" after "a-z"
    expect(["b", "a-z", "B", "a"].sort(compareText)).toEqual(["B", "a", "a-z", "b"])
    expect(byName({ name: "y" }, { name: "x" })).toBe(1)
    expect(byName({ name: "x" }, { name: "y" })).toBe(-1)
    expect(byName({ name: "x" }, { name: "x" })).toBe(0)
  })
})
