import { describe, expect, it } from "vitest"
import {
  acquire,
  acquireSpecific,
  allocations,
  emptyIpam,
  IpamBuilder,
  reconfigure,
  release,
  usage,
  withParents,
} from "./allocator.ts"
import { cidrOf } from "./cidr.ts"

const base = withParents(emptyIpam, [cidrOf("10.0.0.0/24"), cidrOf("fd00::/62")])

const take = (s: typeof base, parent: string, prefix: number) => {
  const r = acquire(s, parent, prefix)
  if (r._tag !== "Acquired") throw new Error(`expected a block, got ${r._tag}`)
  return r
}

describe("acquire()", () => {
  it("hands out the lowest free block, aligned, in IPv4 and IPv6", () => {
    const a = take(base, "10.0.0.0/24", 26)
    const b = take(a.state, "10.0.0.0/24", 28)
    const c = take(b.state, "10.0.0.0/24", 26)
    expect([a.cidr, b.cidr, c.cidr]).toEqual(["10.0.0.0/26", "10.0.0.64/28", "10.0.0.128/26"])
    const v6 = take(c.state, "fd00::/62", 64)
    expect(v6.cidr).toBe("fd00::/64")
    expect(take(v6.state, "fd00::/62", 63).cidr).toBe("fd00:0:0:2::/63")
  })
  it("answers Exhausted, never throws, when the parent is full", () => {
    let s = base
    for (let i = 0; i < 4; i++) s = take(s, "10.0.0.0/24", 26).state
    expect(acquire(s, "10.0.0.0/24", 26)._tag).toBe("Exhausted")
    expect(acquire(s, "10.0.0.0/24", 32)._tag).toBe("Exhausted")
    expect(acquire(s, "10.0.0.0/24", 24)._tag).toBe("DoesNotFit")
    expect(acquire(s, "10.9.0.0/24", 26)._tag).toBe("UnknownParent")
  })
  it("slices children of an allocation (an injection id used as a parent)", () => {
    const a = take(base, "10.0.0.0/24", 26)
    const child = take(a.state, a.cidr, 30)
    expect(child.cidr).toBe("10.0.0.0/30")
    expect(take(child.state, "10.0.0.0/24", 26).cidr).toBe("10.0.0.64/26")
  })
  it("leaves its argument untouched", () => {
    take(base, "10.0.0.0/24", 26)
    expect(allocations(base)).toEqual([])
  })
})

describe("release()", () => {
  it("frees a block and what was sliced from it", () => {
    const a = take(base, "10.0.0.0/24", 26)
    const child = take(a.state, a.cidr, 30)
    const freed = release(child.state, a.cidr)
    expect(allocations(freed)).toEqual([])
    expect(take(freed, "10.0.0.0/24", 26).cidr).toBe("10.0.0.0/26")
  })
})

describe("reconfigure() and acquireSpecific()", () => {
  it("keeps allocations of a removed parent blocking a new parent that overlaps them", () => {
    const a = take(base, "10.0.0.0/24", 26)
    const moved = withParents(reconfigure(a.state, [cidrOf("10.0.0.0/25")]), [])
    expect(take(moved, "10.0.0.0/25", 26).cidr).toBe("10.0.0.64/26")
  })
  it("searches a parent's own blocks and the parentless ones that meet it in address order", () => {
    const old = take(withParents(emptyIpam, [cidrOf("10.0.0.0/25")]), "10.0.0.0/25", 26)
    let s = reconfigure(old.state, [cidrOf("10.0.0.0/24")]) // 10.0.0.0/26 is parentless now
    const own = acquireSpecific(s, "10.0.0.0/24", cidrOf("10.0.0.192/26"))
    if (own._tag !== "Acquired") throw new Error("expected the block")
    s = own.state
    expect(take(s, "10.0.0.0/24", 26).cidr).toBe("10.0.0.64/26")
  })
  it("refuses a block that overlaps one already held", () => {
    const a = take(base, "10.0.0.0/24", 26)
    expect(acquireSpecific(a.state, "10.0.0.0/24", cidrOf("10.0.0.32/27"))._tag).toBe("Conflict")
    expect(acquireSpecific(a.state, "10.0.0.0/24", cidrOf("10.0.0.64/27"))._tag).toBe("Acquired")
  })
  it("usage() counts allocated and free addresses per parent", () => {
    const a = take(base, "10.0.0.0/24", 26)
    expect(usage(a.state)[0]).toEqual({ parent: "10.0.0.0/24", allocated: 64n, free: 192n })
  })
  it("usage() counts only the part of a parentless block that lies in the parent", () => {
    // 10.0.0.0/25 taken from a wider parent that goes; the new parents lie inside it, at its
    // start, in its middle and at its end, and one half inside and half outside it is impossible
    // (two CIDRs nest or are disjoint), so the clamp is to the parent's own range
    const wide = withParents(emptyIpam, [cidrOf("10.0.0.0/24")])
    const a = take(wide, "10.0.0.0/24", 25)
    const moved = reconfigure(a.state, [
      cidrOf("10.0.0.0/27"),
      cidrOf("10.0.0.48/28"),
      cidrOf("10.0.0.96/27"),
      cidrOf("10.0.0.128/26"),
    ])
    expect(usage(moved)).toEqual([
      { parent: "10.0.0.0/27", allocated: 32n, free: 0n },
      { parent: "10.0.0.48/28", allocated: 16n, free: 0n },
      { parent: "10.0.0.96/27", allocated: 32n, free: 0n },
      { parent: "10.0.0.128/26", allocated: 0n, free: 64n },
    ])
    expect(acquire(moved, "10.0.0.48/28", 30)._tag).toBe("Exhausted")
  })
  it("acquireSpecific() and IpamBuilder answer a block already held under the same parent as it is", () => {
    const a = acquireSpecific(base, "10.0.0.0/24", cidrOf("10.0.0.64/26"))
    if (a._tag !== "Acquired") throw new Error("expected the block")
    expect(acquireSpecific(a.state, "10.0.0.0/24", cidrOf("10.0.0.64/26"))).toEqual({
      _tag: "Acquired",
      state: a.state,
      cidr: "10.0.0.64/26",
    })
    const b = new IpamBuilder(base)
    expect(b.acquireSpecific("10.0.0.0/24", cidrOf("10.0.0.64/26"))).toBe("Acquired")
    expect(b.acquireSpecific("10.0.0.0/24", cidrOf("10.0.0.64/26"))).toBe("Acquired")
    expect(allocations(b.done())).toEqual(["10.0.0.64/26"])
    // under another parent it is a conflict
    expect(acquireSpecific(a.state, undefined, cidrOf("10.0.0.64/26"))._tag).toBe("Conflict")
  })
  it("acquireSpecific() records a block as large as its named parent as parentless", () => {
    const r = acquireSpecific(base, "10.0.0.0/24", cidrOf("10.0.0.0/24"))
    expect(r._tag).toBe("Acquired")
    if (r._tag !== "Acquired") return
    expect(r.state.allocated.get("10.0.0.0/24")).toEqual({ cidr: cidrOf("10.0.0.0/24"), parent: undefined })
    expect(r.state.children.get("")).toEqual([cidrOf("10.0.0.0/24")])
    const inside = acquireSpecific(base, "10.0.0.0/24", cidrOf("10.0.0.0/25"))
    expect(inside._tag === "Acquired" && inside.state.allocated.get("10.0.0.0/25")?.parent).toBe(
      "10.0.0.0/24",
    )
  })
})
