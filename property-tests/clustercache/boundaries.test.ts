/**
 * The generators decide every time and count comparison of the ClusterCache tables at its
 * boundary often: exactly at the documented value, 1 ms before and 1 ms
 * after. Uniform times alone hit an exact millisecond about once in 10,000 draws, so `<` turned
 * into `<=` went unnoticed; these counts keep the bias from being lost.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import type { AccessorState } from "../../core/clustercache/index.ts"
import {
  eventsInput,
  healthInput,
  PROBE_INTERVAL_EDGE,
  RETRY_INTERVAL_EDGE,
  reconcilerInputArb,
} from "./arbitraries.ts"

const SAMPLES = 2_000
const sample = <T>(arb: fc.Arbitrary<T>): ReadonlyArray<T> => fc.sample(arb, { numRuns: SAMPLES, seed: 7 })

const count = <T>(xs: ReadonlyArray<T>, p: (x: T) => boolean) => xs.filter(p).length
const ageIs = (now: number, t: number | undefined, age: number) => t !== undefined && now - t === age

describe("boundary-biased ClusterCache generators", () => {
  const health = sample(healthInput)
  const reconcile = sample(reconcilerInputArb)
  const accessors = reconcile.flatMap((i) =>
    i.observed.accessor === undefined ? [] : [{ now: i.now, a: i.observed.accessor as AccessorState }],
  )

  for (const delta of [-1, 0, 1]) {
    it(`the probe interval (10 s) ${delta === 0 ? "exactly" : `${delta > 0 ? "+" : ""}${delta} ms`}: Health Checking row 2 and Reconciler rows 7/15`, () => {
      expect(
        count(health, (i) => ageIs(i.now, i.observed.lastProbeTime, PROBE_INTERVAL_EDGE + delta)),
      ).toBeGreaterThanOrEqual(25)
      expect(
        count(accessors, ({ now, a }) => ageIs(now, a.lastProbeTime, PROBE_INTERVAL_EDGE + delta)),
      ).toBeGreaterThanOrEqual(25)
    })
    it(`the retry interval (30 s) ${delta === 0 ? "exactly" : `${delta > 0 ? "+" : ""}${delta} ms`}: Reconciler rows 4/5`, () => {
      expect(
        count(accessors, ({ now, a }) =>
          ageIs(now, a.lastConnectionCreationErrorTime, RETRY_INTERVAL_EDGE + delta),
        ),
      ).toBeGreaterThanOrEqual(15)
    })
  }

  it("the failure threshold (5): 3, 4 and 5 stored failures (one more failure makes 4, 5, 6) are all frequent", () => {
    for (const n of [3, 4, 5]) {
      expect(
        count(health, (i) => i.observed.consecutiveFailures === n),
        `${n}`,
      ).toBeGreaterThanOrEqual(50)
    }
  })

  it("Event Trigger Conditions: the last event exactly at, before and after lastProbeSuccessTime + duration, and that instant exactly at now", () => {
    const events = sample(eventsInput)
    const at = (delta: number) =>
      count(events, (i) => {
        const d = i.desired.probeFailureDurations[0]
        const s = i.observed.lastProbeSuccessTime
        return d !== undefined && s !== undefined && i.observed.lastEventSentTime === s + d + delta
      })
    for (const delta of [-1, 0, 1]) expect(at(delta), `${delta}`).toBeGreaterThanOrEqual(25)
    const dueExactlyNow = count(events, (i) =>
      i.desired.probeFailureDurations.some(
        (d) => i.observed.lastProbeSuccessTime !== undefined && i.observed.lastProbeSuccessTime + d === i.now,
      ),
    )
    expect(dueExactlyNow).toBeGreaterThanOrEqual(25)
  })
})
