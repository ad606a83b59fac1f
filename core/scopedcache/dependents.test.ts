import { describe, expect, it } from "vitest"
import { DependentSet } from "./dependents.ts"

const dep = (uid: string, name = uid) => ({ uid, kind: "Memcached", namespace: "a", name })

describe("DependentSet (seed 002, ScopeInformer.Dependents: map[types.UID]metav1.Object)", () => {
  it("counts a dependent once per UID; a later one with the same UID replaces it", () => {
    const s = DependentSet.fromArray([dep("u2"), dep("u1"), dep("u2", "again")])
    expect(s.size).toBe(2)
    expect(s.get("u2")?.name).toBe("again")
    expect(s.get("u9")).toBeUndefined()
    expect(s.add(dep("u1", "new")).get("u1")?.name).toBe("new")
  })
  it("toArray() and toJSON() list the dependents sorted by UID, whatever the insertion order", () => {
    const uids = ["m", "b", "z", "a", "k", "c", "y", "d"]
    const s = uids.reduce((acc, u) => acc.add(dep(u)), DependentSet.empty)
    const sorted = [...uids].sort()
    expect(s.toArray().map((d) => d.uid)).toEqual(sorted)
    expect(JSON.parse(JSON.stringify(s)).map((d: { uid: string }) => d.uid)).toEqual(sorted)
  })
  it("remove() of an absent UID returns the same set", () => {
    const s = DependentSet.fromArray([dep("u1")])
    expect(s.remove("u9")).toBe(s)
    expect(s.remove("u1").size).toBe(0)
    expect(DependentSet.is(s)).toBe(true)
    expect(DependentSet.is({})).toBe(false)
  })
})
