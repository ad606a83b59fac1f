import { describe, expect, it } from "vitest"
import { decide, explain, findRow, parseRowId, rowId, type TableSpec } from "./index.ts"

type In = { readonly x: number }
type Res = {
  readonly actions: ReadonlyArray<string>
  readonly status: number
  readonly row: `${string}#${number}`
}

const table: TableSpec<In, Res, number> = {
  id: "t",
  source: "seed.txt",
  title: "T",
  columns: ["When", "Then"],
  rows: [
    {
      n: 1,
      cells: { When: "x > 0", Then: "a" },
      derived: false,
      applies: (i) => i.x > 0,
      holds: (_, r) => r.status === 1,
    },
    {
      n: 2,
      cells: { When: "x > 10", Then: "b" },
      derived: false,
      applies: (i) => i.x > 10,
      holds: (_, r) => r.status === 2,
    },
    {
      n: 3,
      cells: { When: "otherwise", Then: "c" },
      derived: true,
      reason: "gap",
      applies: (i, c) => i.x <= 0 && c > 0,
      holds: () => true,
    },
  ],
  priority: [2],
  resolutions: ["row 2 over row 1"],
}

describe("row ids", () => {
  it("rowId() and parseRowId() round-trip", () => {
    expect(rowId("clustercache.reconciler", 10)).toBe("clustercache.reconciler#10")
    expect(parseRowId("clustercache.reconciler#10")).toEqual({ table: "clustercache.reconciler", n: 10 })
  })
  it("parseRowId() rejects what is not a row id", () => {
    for (const bad of ["x", "#1", "t#0", "t#-1", "t#1.5", "t#"]) expect(parseRowId(bad), bad).toBeUndefined()
  })
})

describe("decide()", () => {
  it("the recorded priority picks among overlapping rows", () => {
    const d = decide(table, { x: 11 }, 1)
    expect(d.applicable.map((r) => r.n)).toEqual([1, 2])
    expect(d.decided?.n).toBe(2)
  })
  it("a row listed first in the priority wins over a later applicable row, and unlisted rows keep table order", () => {
    const first = { ...table, priority: [1, 2] }
    expect(decide(first, { x: 11 }, 1).decided?.n).toBe(1)
    const none = { ...table, priority: [] }
    expect(decide(none, { x: 11 }, 1).decided?.n).toBe(1)
  })
  it("passes the configuration to the predicates", () => {
    expect(decide(table, { x: 0 }, 1).decided?.n).toBe(3)
    expect(decide(table, { x: 0 }, 0).decided).toBeUndefined()
  })
  it("findRow() finds by id and by number", () => {
    expect(findRow(table, "t#2")?.cells.Then).toBe("b")
    expect(findRow(table, 3)?.derived).toBe(true)
  })
})

describe("explain()", () => {
  it("returns the documented text and says whether the spec agrees", () => {
    const e = explain(table, { x: 11 }, { actions: ["b"], status: 2, row: "t#2" }, 1)
    expect(e).toMatchObject({ row: "t#2", text: { When: "x > 10", Then: "b" }, conforms: true })
    expect(explain(table, { x: 11 }, { actions: [], status: 1, row: "t#1" }, 1).conforms).toBe(false)
  })
  it("does not conform when no row of the spec applies to the input", () => {
    const e = explain(table, { x: 0 }, { actions: [], status: 3, row: "t#3" }, 0)
    expect(e).toMatchObject({ row: "t#3", derived: true, reason: "gap", conforms: false })
  })
  it("refuses a row the table does not have", () => {
    expect(() => explain(table, { x: 1 }, { actions: [], status: 1, row: "t#9" }, 1)).toThrow(/t#9/)
  })
})
