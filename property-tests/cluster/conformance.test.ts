import { readFileSync } from "node:fs"
import * as Schema from "effect/Schema"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  ClusterControllerDefaults,
  ClusterInputSchema,
  clusterControllerConfig,
  transitions,
} from "../../core/cluster/index.ts"
import { explain } from "../../core/krtt/index.ts"
import { tables } from "../../spec/cluster/index.ts"
import { conformanceProperty, rowHits } from "../conformance.ts"
import { anyInput, arbitraries } from "./arbitraries.ts"

/** Configurations other than the defaults, to show that the tables follow their configuration. */
const configs = fc
  .record({
    missing: fc.integer({ min: 1, max: 120_000 }),
    deleting: fc.integer({ min: 1, max: 60_000 }),
    grace: fc.integer({ min: 1_000, max: 300_000 }),
    names: fc.integer({ min: 1, max: 10 }),
  })
  .map(({ missing, deleting, grace, names }) =>
    clusterControllerConfig({
      missingReferenceRequeueAfter: missing,
      deleteRequeueAfter: deleting,
      remoteConnectionGracePeriod: grace,
      maxNamesInMessage: names,
      maxNamesInDeletingMessage: names,
    }),
  )

/** The coverage report's run: 2,000 inputs per table with its fixed seed. */
const COVERAGE_RUNS = 2_000
const COVERAGE_SEED = 20_261_121

describe("Cluster controller tables conform to seed 001", () => {
  for (const spec of tables) {
    const id = spec.id as keyof typeof transitions
    const transition = transitions[id]
    const arb = arbitraries[id] as fc.Arbitrary<unknown>

    it(`${spec.id}: the documented row decides, with the documented defaults`, () => {
      fc.assert(conformanceProperty(spec, transition, arb, ClusterControllerDefaults), { numRuns: 2_000 })
    })

    it(`${spec.id}: the documented row decides, with other configurations`, () => {
      fc.assert(conformanceProperty(spec, transition, arb, configs), { numRuns: 500 })
    })

    it(`${spec.id}: the documented row decides for unbiased inputs too`, () => {
      fc.assert(conformanceProperty(spec, transition, anyInput, ClusterControllerDefaults), {
        numRuns: 1_000,
      })
    })

    it(`${spec.id}: every row, documented or derived, decides at least 50 of 2,000 generated inputs`, () => {
      for (const seed of [COVERAGE_SEED, 7, 42]) {
        const hits = rowHits(spec, transition, arb, ClusterControllerDefaults, COVERAGE_RUNS, seed)
        for (const row of spec.rows) {
          expect(
            hits.get(`${spec.id}#${row.n}`),
            `${spec.id}#${row.n} (seed ${seed})`,
          ).toBeGreaterThanOrEqual(50)
        }
      }
    })
  }

  it("every table has the documented number of rows", () => {
    const documented = Object.fromEntries(tables.map((t) => [t.id, t.rows.filter((r) => !r.derived).length]))
    expect(documented).toEqual({
      "cluster.normal": 13,
      "cluster.deletion": 8,
      "cluster.errors": 8,
      "cluster.infrastructure": 6,
      "cluster.controlplane": 6,
      "cluster.delete-flow": 12,
    })
    for (const t of tables) {
      expect(t.source).toBe("001_b44d46ad16131bfc.txt")
      expect([...t.priority].sort((a, b) => a - b)).toEqual(t.rows.map((r) => r.n))
      for (const r of t.rows) if (r.derived) expect(r.reason, `${t.id}#${r.n}`).toBeTruthy()
    }
  })
})

describe("docs/cluster-inputs.md", () => {
  it("every example is explained by its documented row, and the spec agrees", () => {
    const text = readFileSync(new URL("../../docs/cluster-inputs.md", import.meta.url), "utf8")
    const re = /Expected row: `([^`]+)`\s*```json\n([\s\S]*?)```/g
    let n = 0
    for (let m = re.exec(text); m !== null; m = re.exec(text)) {
      const row = m[1] as string
      const id = row.slice(0, row.indexOf("#")) as keyof typeof transitions
      const spec = tables.find((t) => t.id === id)
      if (spec === undefined) throw new Error(`no table ${id}`)
      const input = Schema.decodeUnknownSync(ClusterInputSchema)(JSON.parse(m[2] as string))
      const e = explain(spec, input, transitions[id](input), ClusterControllerDefaults)
      expect(e.row).toBe(row)
      expect(e.conforms, row).toBe(true)
      n++
    }
    expect(n).toBeGreaterThanOrEqual(6)
  })
})
