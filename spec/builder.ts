/**
 * Helpers to transcribe a documented table: the column texts of a row in the seed's order,
 * plus the predicates written from the document.
 *
 * @module
 */
import type { RowSpec } from "../core/krtt/index.ts"

export interface Predicates<Input, Result, Config> {
  readonly applies: (input: Input, config: Config) => boolean
  readonly holds: (input: Input, result: Result, config: Config) => boolean
  /** How an overlap with another row is resolved, when there is one. */
  readonly reason?: string
}

/** A row builder for a table with the given columns. */
export const rowsFor = <Input, Result, Config>(columns: ReadonlyArray<string>) => {
  const cellsOf = (texts: ReadonlyArray<string>): Record<string, string> => {
    if (texts.length !== columns.length) {
      throw new Error(`a row needs ${columns.length} cells (${columns.join(", ")}), got ${texts.length}`)
    }
    return Object.fromEntries(columns.map((c, i) => [c, texts[i] as string]))
  }
  /** A documented row, n being its 1-based position in the seed's table. */
  const doc = (
    n: number,
    texts: ReadonlyArray<string>,
    p: Predicates<Input, Result, Config>,
  ): RowSpec<Input, Result, Config> => ({
    n,
    cells: cellsOf(texts),
    derived: false,
    ...(p.reason === undefined ? {} : { reason: p.reason }),
    applies: p.applies,
    holds: p.holds,
  })
  /** A row that the seed does not have, resolving a gap; `reason` says why it exists. */
  const derived = (
    n: number,
    texts: ReadonlyArray<string>,
    p: Predicates<Input, Result, Config> & { readonly reason: string },
  ): RowSpec<Input, Result, Config> => ({
    n,
    cells: cellsOf(texts),
    derived: true,
    reason: p.reason,
    applies: p.applies,
    holds: p.holds,
  })
  return { doc, derived }
}

/** The five columns of seed 000's and seed 001's KRTT tables. */
export const KRTT_COLUMNS = [
  "Observed Status",
  "Desired Spec",
  "Trigger / Condition",
  "Reconciliation Action",
  "Resulting Status",
] as const

/** Whether an action list has an action with the tag (and matching fields). */
export const has = <A extends { readonly _tag: string }>(
  actions: ReadonlyArray<A>,
  tag: A["_tag"],
  match: (a: A) => boolean = () => true,
): boolean => actions.some((a) => a._tag === tag && match(a))

/** Number of actions with the tag. */
export const count = <A extends { readonly _tag: string }>(
  actions: ReadonlyArray<A>,
  tag: A["_tag"],
): number => actions.reduce((n, a) => (a._tag === tag ? n + 1 : n), 0)
