/**
 * The violation log of the simulator's invariants: counts per named check, the first few
 * examples of each, merging another worker's log, and the one-line form (a
 * check proves itself only if what it finds reaches the report intact).
 */
import { describe, expect, it } from "vitest"
import {
  type CheckName,
  CheckNames,
  Checks,
  checkIndex,
  formatViolation,
  type Violation,
  ViolationLog,
} from "./invariants.ts"

const v = (check: CheckName, n: number, rows: ReadonlyArray<string> = []): Violation => ({
  check,
  cluster: `cluster-${n}`,
  slot: n,
  at: 1_000 * n,
  rows: rows as Violation["rows"],
  message: `broken ${n}`,
})

describe("Checks", () => {
  it("names every check once, in a fixed order the trace records by index, each with its promise", () => {
    expect(CheckNames.length).toBe(13)
    expect(CheckNames.map(checkIndex)).toEqual(CheckNames.map((_, i) => i))
    expect(checkIndex("retry-interval")).toBe(0)
    expect(checkIndex("ipam-restore")).toBe(12)
    for (const name of CheckNames) expect(Checks[name].length, name).toBeGreaterThan(40)
  })
})

describe("ViolationLog", () => {
  it("counts every violation per check, keeps the first `keep` examples of each, and totals them", () => {
    const log = new ViolationLog(2)
    expect(log.counts).toEqual(Object.fromEntries(CheckNames.map((n) => [n, 0])))
    expect(log.total).toBe(0)
    for (let i = 0; i < 3; i++) log.add(v("probe-interval", i))
    log.add(v("finalizer-last", 9))
    expect(log.counts["probe-interval"]).toBe(3)
    expect(log.counts["finalizer-last"]).toBe(1)
    expect(log.total).toBe(4)
    expect(log.examples.map((x) => x.cluster)).toEqual(["cluster-0", "cluster-1", "cluster-9"])
  })

  it("merges another log's counts and examples, still keeping at most `keep` examples per check", () => {
    const log = new ViolationLog(2)
    log.add(v("retry-interval", 1))
    log.merge({ "retry-interval": 5, "ipam-restore": 2, "not-a-check": 7 }, [
      v("retry-interval", 2),
      v("retry-interval", 3),
      v("ipam-restore", 4),
    ])
    expect(log.counts["retry-interval"]).toBe(6)
    expect(log.counts["ipam-restore"]).toBe(2)
    expect(log.counts["probe-interval"]).toBe(0)
    expect(log.total).toBe(8)
    expect(log.examples.map((x) => x.cluster)).toEqual(["cluster-1", "cluster-2", "cluster-4"])
  })

  it("keeps no example with keep 0, but still counts", () => {
    const log = new ViolationLog(0)
    log.add(v("finalizer-last", 1))
    log.merge({}, [v("finalizer-last", 2)])
    expect(log.examples).toEqual([])
    expect(log.total).toBe(1)
  })
})

describe("formatViolation", () => {
  it("prints the check, the Cluster, the virtual time in seconds, the rows when any, and the message", () => {
    expect(
      formatViolation(
        v("unauthorized-disconnect", 3, ["clustercache.reconciler#11", "clustercache.reconciler#12"]),
      ),
    ).toBe(
      "unauthorized-disconnect cluster-3 at t=3.000s [clustercache.reconciler#11 clustercache.reconciler#12]: broken 3",
    )
    expect(formatViolation({ ...v("ipam-disjoint", 2), at: 1_234 })).toBe(
      "ipam-disjoint cluster-2 at t=1.234s: broken 2",
    )
  })
})
