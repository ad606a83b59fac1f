/**
 * Conformance of a pure transition to its documented table: for a generated input, the spec's
 * rows decide (one applies, or the recorded priority picks among several), the transition names
 * that row, and the row's `holds` accepts the result.
 *
 * @module
 */
import fc from "fast-check"
import { type AnyTableSpec, decide, idOf, type TransitionResult } from "../core/krtt/index.ts"

export interface Verdict {
  readonly ok: boolean
  readonly message: string
}

/** Checks one input; the message says what went wrong. */
export const conforms = (
  spec: AnyTableSpec,
  // biome-ignore lint/suspicious/noExplicitAny: works over any table's input
  transition: (input: any, config: any) => TransitionResult<unknown, unknown>,
  input: unknown,
  config: unknown,
): Verdict => {
  const { applicable, decided } = decide(spec, input, config)
  if (decided === undefined)
    return { ok: false, message: `no row of ${spec.id} applies to ${JSON.stringify(input)}` }
  if (applicable.length > 1 && !spec.priority.includes(decided.n)) {
    const rows = applicable.map((r) => r.n).join(", ")
    return { ok: false, message: `rows ${rows} of ${spec.id} overlap and no recorded priority resolves it` }
  }
  const result = transition(input, config)
  const expected = idOf(spec, decided)
  if (result.row !== expected) {
    return {
      ok: false,
      message: `core decided ${result.row}, the spec says ${expected} for ${JSON.stringify(input)}`,
    }
  }
  if (!decided.holds(input, result, config)) {
    return {
      ok: false,
      message: `${expected} does not hold for ${JSON.stringify(input)} → ${JSON.stringify({ actions: result.actions, status: result.status })}`,
    }
  }
  return { ok: true, message: expected }
}

/** A fast-check property asserting conformance for every generated input. */
export const conformanceProperty = (
  spec: AnyTableSpec,
  // biome-ignore lint/suspicious/noExplicitAny: works over any table's input
  transition: (input: any, config: any) => TransitionResult<unknown, unknown>,
  inputs: fc.Arbitrary<unknown>,
  config: fc.Arbitrary<unknown> | unknown,
) => {
  const configs = config instanceof fc.Arbitrary ? (config as fc.Arbitrary<unknown>) : fc.constant(config)
  return fc.property(inputs, configs, (input, c) => {
    const v = conforms(spec, transition, input, c)
    if (!v.ok) throw new Error(v.message)
  })
}

/** Counts, for `runs` inputs generated with `seed`, how many each row decided. */
export const rowHits = (
  spec: AnyTableSpec,
  // biome-ignore lint/suspicious/noExplicitAny: works over any table's input
  transition: (input: any, config: any) => TransitionResult<unknown, unknown>,
  inputs: fc.Arbitrary<unknown>,
  config: unknown,
  runs: number,
  seed: number,
): Map<string, number> => {
  const hits = new Map<string, number>(spec.rows.map((r) => [idOf(spec, r), 0]))
  for (const input of fc.sample(inputs, { numRuns: runs, seed })) {
    const row = transition(input, config).row
    hits.set(row, (hits.get(row) ?? 0) + 1)
  }
  return hits
}
