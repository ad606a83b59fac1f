/**
 * The allocator against the spec's brute-force model (spec/ipam/model.ts), for IPv4 and IPv6:
 * under any sequence of acquisitions and releases it hands out the lowest free aligned block
 * (deterministic), answers Exhausted exactly when no block is free (never throws), keeps the
 * blocks disjoint and inside their parent, and a state rebuilt from the list of its blocks
 * (what a restart reads back from ClusterConfigs) is the same state.
 *
 * @module
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  acquire,
  allocations,
  cidrOf,
  emptyIpam,
  ipamFromEntries,
  release,
  withParents,
} from "../../core/ipam/index.ts"
import { block, firstFree, text } from "../../spec/ipam/model.ts"

const PARENTS = ["10.4.0.0/26", "192.168.7.0/28", "fd00:4::/122", "2001:db8::ff00/120"] as const

type Op =
  | { readonly kind: "acquire"; readonly parent: number; readonly extra: number }
  | { readonly kind: "release"; readonly pick: number }
const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("acquire" as const),
      parent: fc.nat(3),
      extra: fc.integer({ min: 0, max: 6 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("release" as const), pick: fc.nat() }) },
)

describe("the allocator (ipam core, IPv4 and IPv6)", () => {
  it("lowest free block first, Exhausted exactly when full, disjoint, inside the parent; restorable from its blocks", () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 80 }), (ops) => {
        let s = withParents(emptyIpam, PARENTS.map(cidrOf))
        for (const o of ops) {
          if (o.kind === "release") {
            const all = allocations(s)
            if (all.length === 0) continue
            const victim = all[o.pick % all.length] as string
            s = release(s, victim)
            expect(allocations(s)).not.toContain(victim)
            continue
          }
          const parent = PARENTS[o.parent] as string
          const p = block(parent)
          const prefix = Math.min(p.len + 1 + o.extra, p.v6 ? 128 : 32)
          const want = firstFree(p, prefix, allocations(s).map(block))
          const r = acquire(s, parent, prefix)
          if (want === undefined) expect(r._tag).toBe("Exhausted")
          else {
            expect(r._tag).toBe("Acquired")
            if (r._tag === "Acquired") {
              expect(r.cidr).toBe(text(want))
              s = r.state
            }
          }
        }
        const blocks = allocations(s).map(block)
        for (const [i, a] of blocks.entries()) {
          expect(
            PARENTS.some((p) => block(p).first <= a.first && a.last <= block(p).last && block(p).v6 === a.v6),
          ).toBe(true)
          for (const b of blocks.slice(i + 1))
            expect(a.v6 !== b.v6 || a.last < b.first || b.last < a.first).toBe(true)
        }
        const entries = [...s.allocated.entries()].map(([cidr, a]) => ({ cidr, parent: a.parent }))
        const rebuilt = ipamFromEntries(
          { parentCIDRs: { p: [...PARENTS] }, injectionRules: [], internalStateRefreshCycleDuration: 0 },
          entries,
        )
        expect(allocations(rebuilt)).toEqual(allocations(s))
      }),
      { numRuns: 500 },
    )
  })

  it("the same requests give the same blocks (no randomness, no clock)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(3), fc.integer({ min: 1, max: 4 })), { maxLength: 30 }),
        (reqs) => {
          const run = () => {
            let s = withParents(emptyIpam, PARENTS.map(cidrOf))
            const out: Array<string> = []
            for (const [i, extra] of reqs) {
              const parent = PARENTS[i] as string
              const r = acquire(s, parent, block(parent).len + extra)
              out.push(r._tag === "Acquired" ? r.cidr : r._tag)
              if (r._tag === "Acquired") s = r.state
            }
            return out
          }
          expect(run()).toEqual(run())
        },
      ),
    )
  })
})
