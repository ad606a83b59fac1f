/**
 * The divergences found against the documented ones: those found but not documented, and those
 * documented but not found. A documented divergence marked intermittent matches any found on its
 * scenario and field, and is never missing.
 *
 * @module
 */
import type { Divergence } from "./compare.ts"
import type { Documented } from "./divergences.ts"

export interface Unexplained {
  readonly unexpected: ReadonlyArray<Divergence>
  readonly missing: ReadonlyArray<Documented>
}

const exact = (d: Divergence) => JSON.stringify([d.scenario, d.field, d.upstream, d.krtt])
const where = (d: Divergence) => JSON.stringify([d.scenario, d.field])

export const unexplained = (
  found: ReadonlyArray<Divergence>,
  documented: ReadonlyArray<Documented>,
): Unexplained => {
  const steady = new Set(documented.filter((d) => d.intermittent !== true).map(exact))
  const intermittent = new Set(documented.filter((d) => d.intermittent === true).map(where))
  const seen = new Set(found.map(exact))
  return {
    unexpected: found.filter((d) => !steady.has(exact(d)) && !intermittent.has(where(d))),
    missing: documented.filter((d) => d.intermittent !== true && !seen.has(exact(d))),
  }
}
