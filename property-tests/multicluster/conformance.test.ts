import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  EngagementDefaults,
  engagementConfig,
  engagementTransition,
  transitions,
} from "../../core/multicluster/index.ts"
import { engagement, tables } from "../../spec/multicluster/index.ts"
import { conformanceProperty, conforms, rowHits } from "../conformance.ts"
import { engagementArb, engagementInput, inputs, optionsArb } from "./arbitraries.ts"

/** Configurations other than the defaults, to show that the table follows its configuration. */
const configs = fc
  .record({
    cacheSyncTimeout: fc.integer({ min: 1, max: 600_000 }),
    initial: fc.integer({ min: 1, max: 10_000 }),
    factor: fc.constantFrom(1, 1.5, 2, 3),
    extra: fc.integer({ min: 0, max: 600_000 }),
    requeueWhileEngaging: fc.integer({ min: 1, max: 60_000 }),
  })
  .map(({ cacheSyncTimeout, initial, factor, extra, requeueWhileEngaging }) =>
    engagementConfig({
      cacheSyncTimeout,
      engageRetry: { initial, factor, max: initial + extra },
      requeueWhileEngaging,
    }),
  )

describe("multicluster.engagement conforms to seed 003", () => {
  for (const spec of tables) {
    const id = spec.id as keyof typeof transitions
    const transition = transitions[id]
    const arb = inputs[id] as fc.Arbitrary<unknown>

    it(`${spec.id}: the documented row decides, with the documented defaults`, () => {
      fc.assert(conformanceProperty(spec, transition, arb, EngagementDefaults), { numRuns: 5_000 })
    })

    it(`${spec.id}: the documented row decides, with other configurations`, () => {
      fc.assert(conformanceProperty(spec, transition, arb, configs), { numRuns: 2_000 })
    })

    it(`${spec.id}: every row is reached by the generators`, () => {
      const hits = rowHits(spec, transition, arb, EngagementDefaults, 2_000, 7)
      for (const row of spec.rows)
        expect(hits.get(`${spec.id}#${row.n}`), `${spec.id}#${row.n}`).toBeGreaterThanOrEqual(50)
    })
  }

  it("a retry exactly due starts the cache; 1 ms before re-arms for 1 ms; 1 ms after starts it", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1_700_000_000_000, max: 1_800_000_000_000 }),
        optionsArb(),
        (retryAt, desired) => {
          const observed = {
            state: { _tag: "Failed" as const, generation: "g1", failures: 2, retryAt, error: "x" },
            dropped: 0,
          }
          const at = (now: number) =>
            engagementTransition(
              { observed, desired, trigger: { _tag: "RetryDue" }, now },
              EngagementDefaults,
            )
          const before = at(retryAt - 1)
          expect(before.row).toBe("multicluster.engagement#21")
          expect(before.actions).toEqual([{ _tag: "RetryAfter", cluster: desired.cluster, after: 1 }])
          expect(at(retryAt).row).toBe("multicluster.engagement#20")
          expect(at(retryAt + 1).row).toBe("multicluster.engagement#20")
          for (const now of [retryAt - 1, retryAt, retryAt + 1]) {
            const v = conforms(
              engagement,
              engagementTransition,
              { observed, desired, trigger: { _tag: "RetryDue" }, now },
              EngagementDefaults,
            )
            expect(v.ok, v.message).toBe(true)
          }
        },
      ),
      { numRuns: 300 },
    )
  })

  it("the retry delay after n failures is 1 s · 2^(n-1), at most 5 min, at the documented defaults", () => {
    const waiting = (failures: number) => ({
      state: { _tag: "WaitingForSync" as const, generation: "g1", failures },
      dropped: 0,
    })
    const delays = [0, 1, 2, 3, 8, 9, 20].map((failures) => {
      const res = engagementTransition(
        {
          observed: waiting(failures),
          desired: { cluster: "east", hasProvider: true, watches: [] },
          trigger: { _tag: "CacheSyncFailed", generation: "g1", timedOut: true, error: "" },
          now: 0,
        },
        EngagementDefaults,
      )
      const retry = res.actions.find((a) => a._tag === "RetryAfter")
      return retry?._tag === "RetryAfter" ? retry.after : undefined
    })
    expect(delays).toEqual([1_000, 2_000, 4_000, 8_000, 256_000, 300_000, 300_000])
  })

  it("the engagement arbitrary reaches every state", () => {
    const tags = new Set(
      fc.sample(engagementArb(1_750_000_000_000), { numRuns: 500, seed: 1 }).map((e) => e.state._tag),
    )
    expect(tags.size).toBe(9)
    expect(fc.sample(engagementInput, { numRuns: 10, seed: 1 })).toHaveLength(10)
  })
})
