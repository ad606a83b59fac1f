import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { ClusterCacheDefaults, clusterCacheConfig, transitions } from "../../core/clustercache/index.ts"
import { tables } from "../../spec/clustercache/index.ts"
import { conformanceProperty, rowHits } from "../conformance.ts"
import { inputs } from "./arbitraries.ts"

/** Configurations other than the defaults, to show that the tables follow their configuration. */
const configs = fc
  .record({
    interval: fc.integer({ min: 1_000, max: 20_000 }),
    timeout: fc.integer({ min: 100, max: 10_000 }),
    failureThreshold: fc.integer({ min: 1, max: 8 }),
    retry: fc.integer({ min: 1_000, max: 60_000 }),
    requeue: fc.integer({ min: 1, max: 30_000 }),
  })
  .map(({ interval, timeout, failureThreshold, retry, requeue }) =>
    clusterCacheConfig({
      healthProbe: { interval, timeout, failureThreshold },
      connectionCreationRetryInterval: retry,
      defaultRequeueAfter: requeue,
      initialSyncTimeout: retry * 10,
      unauthorizedRequeueAfter: 2,
      client: { qps: 5, burst: 7, timeout: 3_000, userAgent: "test" },
    }),
  )

describe("ClusterCache tables conform to seed 000", () => {
  for (const spec of tables) {
    const id = spec.id as keyof typeof transitions
    const transition = transitions[id]
    const arb = inputs[id] as fc.Arbitrary<unknown>

    it(`${spec.id}: the documented row decides, with the documented defaults`, () => {
      fc.assert(conformanceProperty(spec, transition, arb, ClusterCacheDefaults), { numRuns: 3_000 })
    })

    it(`${spec.id}: the documented row decides, with other configurations`, () => {
      fc.assert(conformanceProperty(spec, transition, arb, configs), { numRuns: 1_000 })
    })

    it(`${spec.id}: every documented row is reached by the generators`, () => {
      const hits = rowHits(spec, transition, arb, ClusterCacheDefaults, 2_000, 7)
      for (const row of spec.rows)
        expect(hits.get(`${spec.id}#${row.n}`), `${spec.id}#${row.n}`).toBeGreaterThanOrEqual(50)
    })
  }
})
