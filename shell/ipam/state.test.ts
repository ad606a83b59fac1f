import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import {
  acquire,
  allocations,
  cidrOf,
  emptyIpam,
  type IpamState,
  overlaps,
  withParents,
} from "../../core/ipam/index.ts"
import { makeIpamStore } from "./state.ts"

const parent = "10.0.0.0/16"
const base = withParents(emptyIpam, [cidrOf(parent)])

/** A decision that acquires one /24 of the parent (what a rule with one injection does). */
const takeOne = (ipam: IpamState) => {
  const r = acquire(ipam, parent, 24)
  if (r._tag !== "Acquired") throw new Error(r._tag)
  return { ipam: r.state, cidr: r.cidr }
}

describe("IpamStore", () => {
  it.effect(
    "decide commits each acquisition before the next decision: 100 concurrent decisions get 100 disjoint CIDRs",
    () =>
      Effect.gen(function* () {
        const store = yield* makeIpamStore(base)
        const got = yield* Effect.all(
          Array.from({ length: 100 }, () => store.decide(takeOne, (r) => [r.cidr])),
          { concurrency: "unbounded" },
        )
        const cidrs = got.map((g) => g.result.cidr)
        assert.strictEqual(new Set(cidrs).size, 100)
        for (const [i, a] of cidrs.entries())
          for (const b of cidrs.slice(i + 1)) assert.isFalse(overlaps(cidrOf(a), cidrOf(b)), `${a} ∩ ${b}`)
        assert.strictEqual(allocations(yield* store.current).length, 100)
      }),
  )

  it.effect(
    "settle frees the CIDRs of a decision whose annotation was not written, and keeps recorded ones",
    () =>
      Effect.gen(function* () {
        const store = yield* makeIpamStore(base)
        const kept = yield* store.decide(takeOne, (r) => [r.cidr])
        const lost = yield* store.decide(takeOne, (r) => [r.cidr])
        yield* store.settle(kept.ticket, true)
        yield* store.settle(lost.ticket, false)
        assert.deepStrictEqual(allocations(yield* store.current), [kept.result.cidr])
        // The freed block is handed out again.
        const again = yield* store.decide(takeOne, (r) => [r.cidr])
        assert.strictEqual(again.result.cidr, lost.result.cidr)
      }),
  )

  it.effect(
    "a restore keeps allocations in flight or settled after it began, and drops older ones the cluster lacks",
    () =>
      Effect.gen(function* () {
        const store = yield* makeIpamStore(base)
        const before = yield* store.decide(takeOne, (r) => [r.cidr])
        yield* store.settle(before.ticket, true)
        const since = yield* store.beginRestore
        const inFlight = yield* store.decide(takeOne, (r) => [r.cidr])
        const settledLater = yield* store.decide(takeOne, (r) => [r.cidr])
        yield* store.settle(settledLater.ticket, true)
        // The cluster state as listed: none of the three (the list missed them all).
        const conflicts = yield* store.completeRestore(since, base)
        assert.deepStrictEqual(conflicts, [])
        const now = allocations(yield* store.current)
        assert.include(now, inFlight.result.cidr)
        assert.include(now, settledLater.result.cidr)
        // Settled before the refresh began: the listed state is the truth, and it lacks it.
        assert.notInclude(now, before.result.cidr)
        // Only the decision still in flight is tracked any longer: nothing grows without bound.
        assert.strictEqual(yield* store.tracked, 1)
        yield* store.settle(inFlight.ticket, true)
        assert.strictEqual(yield* store.tracked, 0)
        // A new decision never gets a CIDR still in flight.
        const next = yield* store.decide(takeOne, (r) => [r.cidr])
        assert.notInclude([inFlight.result.cidr, settledLater.result.cidr], next.result.cidr)
      }),
  )

  it.effect("release frees CIDRs; usage reports allocated and free addresses per parent", () =>
    Effect.gen(function* () {
      const store = yield* makeIpamStore(base)
      const a = yield* store.decide(takeOne, (r) => [r.cidr])
      yield* store.settle(a.ticket, true)
      assert.deepStrictEqual(
        (yield* store.usage).map((u) => [u.parent, u.allocated, u.free]),
        [[parent, 256n, 65_536n - 256n]],
      )
      yield* store.release([a.result.cidr])
      assert.deepStrictEqual(allocations(yield* store.current), [])
    }),
  )
})
