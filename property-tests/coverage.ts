/**
 * `npm run --silent krtt:coverage`: one JSON document on stdout with, for every documented
 * table, how many of the generated inputs each row decided.
 *
 * The inputs are the property tests' generators, sampled with a fixed seed: the report is the
 * same on every run.
 *
 * @module
 */
import { idOf } from "../core/krtt/index.ts"
import { bindings } from "../shell/krtt/registry.ts"
import { arbitraries } from "./arbitraries.ts"
import { rowHits } from "./conformance.ts"

export const COVERAGE_RUNS = 2_000
export const COVERAGE_SEED = 20_261_121

export interface CoverageReport {
  readonly tables: ReadonlyArray<{
    readonly id: string
    readonly source: string
    readonly title: string
    readonly rows: ReadonlyArray<{ readonly id: string; readonly hits: number; readonly derived: boolean }>
  }>
}

export const coverage = (runs = COVERAGE_RUNS, seed = COVERAGE_SEED): CoverageReport => ({
  tables: bindings.map(({ spec, transition, config }) => {
    const inputs = arbitraries[spec.id]
    if (inputs === undefined) throw new Error(`no input generator for table ${spec.id}`)
    const hits = rowHits(spec, transition, inputs, config, runs, seed)
    return {
      id: spec.id,
      source: spec.source,
      title: spec.title,
      rows: spec.rows.map((r) => ({
        id: idOf(spec, r),
        hits: hits.get(idOf(spec, r)) ?? 0,
        derived: r.derived,
      })),
    }
  }),
})

if (import.meta.main) {
  process.stdout.write(`${JSON.stringify(coverage())}\n`)
}
