import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  DependentSet,
  type InformersInput,
  type InformersResult,
  informersTransition,
  ScopedCacheDefaults,
  scopedCacheOptions,
  transitions,
} from "../../core/scopedcache/index.ts"
import { informers, tables } from "../../spec/scopedcache/index.ts"
import { conformanceProperty, rowHits } from "../conformance.ts"
import { coverage } from "../coverage.ts"
import { inputs } from "./arbitraries.ts"

const configs = fc
  .record({
    informerKey: fc.constantFrom("gvk" as const, "gvkAndSelectors" as const),
    accessReview: fc.boolean(),
  })
  .map((o) => scopedCacheOptions(o))

describe("scoped cache tables conform to seed 002", () => {
  for (const spec of tables) {
    const id = spec.id as keyof typeof transitions
    const transition = transitions[id]
    const arb = inputs[id] as fc.Arbitrary<unknown>

    it(`${spec.id}: the documented row decides, with the defaults`, () => {
      fc.assert(conformanceProperty(spec, transition, arb, ScopedCacheDefaults), { numRuns: 3_000 })
    })

    it(`${spec.id}: the documented row decides, with other options`, () => {
      fc.assert(conformanceProperty(spec, transition, arb, configs), { numRuns: 500 })
    })

    it(`${spec.id}: every row, documented or derived, is reached by the generators`, () => {
      const hits = rowHits(spec, transition, arb, ScopedCacheDefaults, 2_000, 7)
      for (const row of spec.rows)
        expect(hits.get(`${spec.id}#${row.n}`), `${spec.id}#${row.n}`).toBeGreaterThanOrEqual(50)
    })
  }
})

describe("krtt:coverage for the scoped cache", () => {
  const report = coverage()
  const ours = report.tables.filter((t) => t.id.startsWith("scopedcache."))

  it("lists the three tables with 7, 3 and 4 rows from the seed and 9, 1 and 2 derived", () => {
    expect(
      ours.map((t) => [
        t.id,
        t.rows.filter((r) => !r.derived).length,
        t.rows.filter((r) => r.derived).length,
      ]),
    ).toEqual([
      ["scopedcache.informers", 7, 9],
      ["scopedcache.lifecycle", 3, 1],
      ["scopedcache.reads", 4, 2],
    ])
  })

  it("every row, documented or derived, is decided by at least 50 of the report's inputs", () => {
    for (const t of ours) for (const r of t.rows) expect(r.hits, r.id).toBeGreaterThanOrEqual(50)
  })
})

describe("the spec of scopedcache.informers rejects wrong transitions", () => {
  const wrong = (f: (i: InformersInput, r: InformersResult) => InformersResult) => (i: InformersInput) =>
    f(i, informersTransition(i, ScopedCacheDefaults))
  const rejects = (name: string, t: (i: InformersInput) => InformersResult) =>
    it(name, () => {
      expect(() =>
        fc.assert(conformanceProperty(informers, t, inputs["scopedcache.informers"], ScopedCacheDefaults), {
          numRuns: 2_000,
        }),
      ).toThrow()
    })

  rejects(
    "one that forgets to tell the dependents",
    wrong((_, r) => ({ ...r, actions: r.actions.filter((a) => a._tag !== "NotifyDependents") })),
  )
  rejects(
    "one that counts a dependent twice",
    wrong((i, r) => {
      const informer = r.status.informer
      if (i.trigger._tag !== "AddInformer" || informer === undefined) return r
      const doubled = [
        ...informer.dependents.toArray(),
        { ...i.trigger.dependent, uid: `${i.trigger.dependent.uid}-again` },
      ]
      return {
        ...r,
        status: { ...r.status, informer: { ...informer, dependents: DependentSet.fromArray(doubled) } },
      }
    }),
  )
  rejects(
    "one that keeps covered namespace-level informers stopped when the cluster-level one goes",
    wrong((i, r) => ({
      ...r,
      actions: r.actions.filter(
        (a) => !(a._tag === "StartInformer" && a.ref.namespace !== i.desired.ref.namespace),
      ),
    })),
  )
  rejects(
    "one that stops every informer of the GVK on a 403",
    wrong((i, r) =>
      i.trigger._tag === "PermissionLost" && r.actions.length > 0
        ? {
            ...r,
            actions: [
              ...r.actions,
              {
                _tag: "StopInformer",
                ref: { ...i.desired.ref, namespace: "other" },
                reason: "PermissionLost",
              },
            ],
          }
        : r,
    ),
  )
})
