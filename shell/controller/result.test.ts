import { describe, expect, it } from "vitest"
import { done, requeueAfter, requeueAfterMillis, rowOf, TerminalError } from "./result.ts"

describe("rowOf", () => {
  it("reads the row a table controller's error names, and nothing from other failures", () => {
    expect(rowOf(new TerminalError({ message: "bad", row: "cluster.errors#6" }))).toBe("cluster.errors#6")
    expect(rowOf(new TerminalError({ message: "bad" }))).toBeUndefined()
    expect(rowOf({ row: 7 })).toBeUndefined()
    expect(rowOf("cluster.errors#6")).toBeUndefined()
    expect(rowOf(null)).toBeUndefined()
    expect(rowOf(undefined)).toBeUndefined()
  })
})

describe("results", () => {
  it("carry the row and the delay", () => {
    expect(done("t#1")).toEqual({ row: "t#1" })
    expect(requeueAfterMillis(requeueAfter("2 seconds", "t#2"))).toBe(2_000)
    expect(requeueAfterMillis(done())).toBe(0)
  })
})
