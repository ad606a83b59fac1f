/**
 * The allocator against a brute-force model of its whole state, under sequences that also nest
 * allocations, restore blocks (`acquireSpecific`, with a parent, an unknown one or none) and
 * change the registered parents (`reconfigure`): a parent that goes leaves its blocks allocated
 * and parentless, and those block every parent that overlaps them (upstream: "already assigned
 * CIDRs are not revoked if their parent network is removed"). After every step the allocations,
 * each one's parent and each parent's usage match the model, and every acquisition is the lowest
 * free aligned block of what blocks it (the dense hint of `acquire` is never allowed to skip one).
 *
 * Alternative parents overlap each other; a configuration holds at most one of each group, and
 * blocks are at least two bits longer than the widest alternative, so no block is ever written
 * like a parent.
 *
 * @module
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  acquire,
  acquireSpecific,
  allocations,
  cidrOf,
  emptyIpam,
  formatCidr,
  IpamBuilder,
  type IpamState,
  reconfigure,
  release,
  usage,
} from "../../core/ipam/index.ts"
import { type Block, block, firstFree, meets, text } from "../../spec/ipam/model.ts"

/** Groups of overlapping alternatives; the first of each is the widest. */
const GROUPS: ReadonlyArray<ReadonlyArray<string>> = [
  ["10.4.0.0/25", "10.4.0.0/26", "10.4.0.64/26"],
  ["192.168.7.0/27", "192.168.7.0/28"],
  ["fd00:4::/121", "fd00:4::/122"],
]

type Op =
  | { readonly kind: "acquire"; readonly from: number; readonly nested: boolean; readonly extra: number }
  | {
      readonly kind: "restore"
      readonly group: number
      readonly extra: number
      readonly at: number
      readonly under: "parent" | "none" | "unknown" | "allocation"
      readonly pick: number
    }
  | { readonly kind: "release"; readonly pick: number }
  | { readonly kind: "reconfigure"; readonly choice: ReadonlyArray<number> }

const restoreOpArb: fc.Arbitrary<Extract<Op, { kind: "restore" }>> = fc.record({
  kind: fc.constant("restore" as const),
  group: fc.nat(GROUPS.length - 1),
  extra: fc.integer({ min: 0, max: 3 }),
  at: fc.nat(),
  under: fc.constantFrom("parent" as const, "none" as const, "unknown" as const, "allocation" as const),
  pick: fc.nat(),
})

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant("acquire" as const),
      from: fc.nat(),
      nested: fc.boolean(),
      extra: fc.integer({ min: 0, max: 3 }),
    }),
  },
  { weight: 2, arbitrary: restoreOpArb },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("release" as const), pick: fc.nat() }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("reconfigure" as const),
      // per group: an alternative's index, or past the end for none
      choice: fc.tuple(fc.nat(3), fc.nat(2), fc.nat(2)),
    }),
  },
)

/** What the allocator should hold: each block and the parent it was taken from. */
interface Model {
  parents: Array<string>
  blocks: Map<string, { readonly b: Block; readonly parent: string | undefined }>
}

const bitsOf = (b: Block) => (b.v6 ? 128 : 32)
const size = (b: Block) => b.last - b.first + 1n

type Restore = Extract<Op, { kind: "restore" }>
/** The block a restore op names: aligned, inside its group's widest parent, two or more bits longer. */
const restoreBlock = (o: Restore): Block => {
  const widest = block((GROUPS[o.group] as ReadonlyArray<string>)[0] as string)
  const len = widest.len + 2 + o.extra
  const sz = 1n << BigInt(bitsOf(widest) - len)
  const first = widest.first + (BigInt(o.at) % (size(widest) / sz)) * sz
  return { v6: widest.v6, first, last: first + sz - 1n, len }
}
/** The parent a restore op names, from the registered parents and the allocations. */
const restoreParent = (o: Restore, parents: ReadonlyArray<string>, keys: ReadonlyArray<string>) =>
  o.under === "none"
    ? undefined
    : o.under === "unknown"
      ? "172.16.0.0/16"
      : o.under === "parent"
        ? parents[o.pick % Math.max(1, parents.length)]
        : keys[o.pick % Math.max(1, keys.length)]

/** What a new child of `parent` must not overlap: its own children, and for a registered parent the parentless blocks that meet it. */
const blockedBy = (m: Model, parent: string): ReadonlyArray<Block> => {
  const p = block(parent)
  const own = [...m.blocks.values()].filter((x) => x.parent === parent).map((x) => x.b)
  if (!m.parents.includes(parent)) return own
  return [
    ...own,
    ...[...m.blocks.values()].filter((x) => x.parent === undefined && meets(x.b, p)).map((x) => x.b),
  ]
}

const drop = (m: Model, key: string) => {
  m.blocks.delete(key)
  for (const [k, x] of [...m.blocks]) if (x.parent === key) drop(m, k)
}

const check = (s: IpamState, m: Model, ctx: string) => {
  expect([...allocations(s)].sort(), `${ctx}: allocations`).toEqual([...m.blocks.keys()].sort())
  for (const [k, x] of m.blocks) expect(s.allocated.get(k)?.parent, `${ctx}: parent of ${k}`).toBe(x.parent)
  // each children list holds exactly the blocks of its parent ("" for none), in address order
  const lists = new Map<string, Array<string>>()
  for (const [k, x] of m.blocks) lists.set(x.parent ?? "", [...(lists.get(x.parent ?? "") ?? []), k])
  const inOrder = (xs: ReadonlyArray<string>) =>
    [...xs].sort((a, b) =>
      block(a).v6 === block(b).v6 ? (block(a).first < block(b).first ? -1 : 1) : block(a).v6 ? 1 : -1,
    )
  const have = [...s.children.entries()]
    .filter(([, v]) => v.length > 0)
    .map(([k, v]) => [k, v.map(formatCidr)] as const)
  expect(Object.fromEntries(have), `${ctx}: children lists`).toEqual(
    Object.fromEntries([...lists].map(([k, v]) => [k, inOrder(v)])),
  )
  const want = [...m.parents]
    .map((p) => {
      const pb = block(p)
      const used = blockedBy(m, p).reduce((n, b) => {
        const from = b.first > pb.first ? b.first : pb.first
        const to = b.last < pb.last ? b.last : pb.last
        return to >= from ? n + (to - from + 1n) : n
      }, 0n)
      return { parent: p, allocated: used, free: size(pb) - used }
    })
    .sort((a, b) =>
      block(a.parent).v6 === block(b.parent).v6
        ? block(a.parent).first < block(b.parent).first
          ? -1
          : 1
        : block(a.parent).v6
          ? 1
          : -1,
    )
  expect(usage(s), `${ctx}: usage`).toEqual(want)
  // the dense hint is exact: how many of a list's children cover its owner from the first address
  // on without a gap (a larger hint would skip a free block; a smaller one costs a scan of the
  // children that the 100k-cluster simulation cannot afford)
  for (const [k, list] of s.children) {
    const owner = s.parents.get(k) ?? s.allocated.get(k)?.cidr
    if (owner === undefined) continue
    let end = block(formatCidr(owner)).first
    let run = 0
    for (const c of list) {
      if (block(formatCidr(c)).first !== end) break
      end = block(formatCidr(c)).last + 1n
      run++
    }
    expect(s.dense?.get(k) ?? 0, `${ctx}: dense hint of ${k}`).toBe(run)
  }
}

const step = (s: IpamState, m: Model, o: Op): { s: IpamState; ctx: string } => {
  const keys = [...m.blocks.keys()].sort()
  switch (o.kind) {
    case "acquire": {
      const pool = o.nested ? keys : m.parents
      if (pool.length === 0) return { s, ctx: "acquire from nothing" }
      const parent = pool[o.from % pool.length] as string
      const pb = block(parent)
      const len = Math.min(pb.len + (o.nested ? 1 : 2) + o.extra, bitsOf(pb))
      const want = len <= pb.len ? undefined : firstFree(pb, len, blockedBy(m, parent))
      const r = acquire(s, parent, len)
      const ctx = `acquire /${len} in ${parent}`
      if (len <= pb.len) {
        expect(r._tag, ctx).toBe("DoesNotFit")
        return { s, ctx }
      }
      if (want === undefined) {
        expect(r._tag, ctx).toBe("Exhausted")
        return { s, ctx }
      }
      expect(r._tag === "Acquired" ? r.cidr : r._tag, ctx).toBe(text(want))
      m.blocks.set(text(want), { b: want, parent })
      return { s: r._tag === "Acquired" ? r.state : s, ctx }
    }
    case "restore": {
      const cidr = restoreBlock(o)
      const key = text(cidr)
      const parent = restoreParent(o, m.parents, keys)
      const ctx = `restore ${key} under ${parent ?? "nothing"}`
      // a parent counts when it is known and strictly holds the block; else the block is parentless
      const known =
        parent !== undefined &&
        (m.parents.includes(parent) || m.blocks.has(parent)) &&
        block(parent).v6 === cidr.v6 &&
        block(parent).first <= cidr.first &&
        cidr.last <= block(parent).last &&
        block(parent).len < cidr.len
      const r = acquireSpecific(s, parent, cidrOf(key))
      const existing = m.blocks.get(key)
      if (existing !== undefined && existing.parent === (known ? parent : undefined)) {
        expect(r, ctx).toEqual({ _tag: "Acquired", state: s, cidr: key })
        return { s, ctx }
      }

      // under a known parent: its children, and for a registered one every parentless block
      const against = known
        ? [...m.blocks.values()]
            .filter((x) => x.parent === parent || (x.parent === undefined && m.parents.includes(parent)))
            .map((x) => x.b)
        : [...m.blocks.values()].map((x) => x.b)
      const clashes = against.filter((b) => meets(b, cidr)).map(text)
      if (clashes.length > 0) {
        expect(r._tag, ctx).toBe("Conflict")
        if (r._tag === "Conflict") expect(clashes, ctx).toContain(r.with)
        return { s, ctx }
      }
      expect(r._tag, ctx).toBe("Acquired")
      m.blocks.set(key, { b: cidr, parent: known ? parent : undefined })
      return { s: r._tag === "Acquired" ? r.state : s, ctx }
    }
    case "release": {
      if (keys.length === 0) return { s, ctx: "release nothing" }
      const victim = keys[o.pick % keys.length] as string
      drop(m, victim)
      return { s: release(s, victim), ctx: `release ${victim}` }
    }
    case "reconfigure": {
      const chosen = GROUPS.flatMap((g, i) => {
        const c = g[o.choice[i] ?? 0]
        return c === undefined ? [] : [c]
      })
      // in either order: the config's order of parents is not their address order
      const next = (o.choice[0] ?? 0) % 2 === 0 ? chosen : [...chosen].reverse()
      for (const [k, x] of [...m.blocks])
        if (x.parent !== undefined && m.parents.includes(x.parent) && !next.includes(x.parent))
          m.blocks.set(k, { b: x.b, parent: undefined })
      m.parents = next
      return { s: reconfigure(s, next.map(cidrOf)), ctx: `reconfigure [${next.join(", ")}]` }
    }
  }
}

describe("the allocator against a model of its state (nesting, restore, reconfiguration)", () => {
  it("hands out the lowest free block of what blocks it; parents that go leave parentless blocks that keep blocking", () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 60 }), (ops) => {
        const initial = GROUPS.map((g) => g[0] as string)
        let s = reconfigure(emptyIpam, initial.map(cidrOf))
        const m: Model = { parents: [...initial], blocks: new Map() }
        const done: Array<string> = []
        for (const o of ops) {
          const r = step(s, m, o)
          s = r.s
          done.push(r.ctx)
          check(s, m, done.join(" → "))
        }
      }),
      { numRuns: 300 },
    )
  })

  it("IpamBuilder (what a restore uses) answers as acquireSpecific and builds the same state, leaving its start alone", () => {
    fc.assert(
      fc.property(
        fc.array(opArb, { maxLength: 30 }),
        fc.array(restoreOpArb, { minLength: 1, maxLength: 30 }),
        (setup, restores) => {
          const initial = GROUPS.map((g) => g[0] as string)
          let s = reconfigure(emptyIpam, initial.map(cidrOf))
          const m: Model = { parents: [...initial], blocks: new Map() }
          for (const o of setup) s = step(s, m, o).s
          const before = allocations(s)
          const builder = new IpamBuilder(s)
          let pure = s
          for (const o of restores) {
            const named = restoreBlock(o)
            const cidr = cidrOf(text(named))
            const parent = restoreParent(o, [...pure.parents.keys()], allocations(pure))
            const a = acquireSpecific(pure, parent, cidr)
            const b = builder.acquireSpecific(parent, cidr)
            const ctx = `${text(named)} under ${parent ?? "nothing"}`
            expect(b === "Acquired", ctx).toBe(a._tag === "Acquired")
            if (a._tag === "Acquired") pure = a.state
            else if (b !== "Acquired") expect(meets(block(b.conflict), named), ctx).toBe(true)
          }
          const built = builder.done()
          expect(allocations(built)).toEqual(allocations(pure))
          for (const k of allocations(pure))
            expect(built.allocated.get(k)?.parent, k).toBe(pure.allocated.get(k)?.parent)
          expect(allocations(s), "the start state is untouched").toEqual(before)
          // the built children lists are sorted and complete: acquisitions from it agree
          for (const from of [...pure.parents.keys(), ...allocations(pure)]) {
            const len = Math.min(block(from).len + 2, bitsOf(block(from)))
            const x = acquire(built, from, len)
            const y = acquire(pure, from, len)
            expect(x._tag === "Acquired" ? x.cidr : x._tag, `acquire /${len} in ${from}`).toBe(
              y._tag === "Acquired" ? y.cidr : y._tag,
            )
          }
        },
      ),
      { numRuns: 300 },
    )
  })
})
