/**
 * Documented tables as data: the columns' text for every row plus two predicates written from
 * the document, `applies(input)` and `holds(input, result)`. Tables live in `spec/`, transcribed
 * from the seeds independently of `core/`; this module holds their shape and the operations that
 * every table shares: deciding which row governs an input, and explaining a decision.
 *
 * @module
 */
import { type RowId, rowId, type TransitionResult } from "./types.ts"

/** One row of a documented table. */
export interface RowSpec<Input, Result, Config> {
  /** 1-based position in the seed's table; derived rows are numbered after the documented ones. */
  readonly n: number
  /** The documented text of every column, keyed by the table's column names. */
  readonly cells: Readonly<Record<string, string>>
  /** `true` for a row that is not in the seed but resolves a gap in it; `reason` says why. */
  readonly derived: boolean
  /** Why a derived row exists, or how an overlap with another row is resolved. */
  readonly reason?: string
  /** Whether this row governs the input (written from the document, not from core). */
  readonly applies: (input: Input, config: Config) => boolean
  /** Whether a result satisfies what the row promises for that input. */
  readonly holds: (input: Input, result: Result, config: Config) => boolean
}

/** A documented table: where it comes from, its columns, its rows, and how overlaps resolve. */
export interface TableSpec<Input, Result, Config> {
  /** e.g. `clustercache.reconciler`. */
  readonly id: string
  /** The seed file it is transcribed from. */
  readonly source: string
  /** The table's heading in the seed. */
  readonly title: string
  /** Column names, in the seed's order. */
  readonly columns: ReadonlyArray<string>
  readonly rows: ReadonlyArray<RowSpec<Input, Result, Config>>
  /**
   * Row numbers from strongest to weakest: when several rows apply, the first listed wins.
   * Rows not listed rank after the listed ones, in table order. Each entry of `resolutions`
   * explains one such choice.
   */
  readonly priority: ReadonlyArray<number>
  /** Recorded resolutions of overlaps, ambiguities and gaps, in words. */
  readonly resolutions: ReadonlyArray<string>
}

/** Any table, for registries and reports. */
// biome-ignore lint/suspicious/noExplicitAny: a registry holds tables of every input type
export type AnyTableSpec = TableSpec<any, any, any>

/** The outcome of evaluating a table for an input. */
export interface Decision<Input, Result, Config> {
  /** Every row whose `applies` holds, in table order. */
  readonly applicable: ReadonlyArray<RowSpec<Input, Result, Config>>
  /** The row that governs after the priority is applied, if any applies. */
  readonly decided: RowSpec<Input, Result, Config> | undefined
}

const rank = (priority: ReadonlyArray<number>, n: number): number => {
  const i = priority.indexOf(n)
  return i === -1 ? priority.length + n : i
}

/** Evaluates a table: which rows apply to the input and which one decides. */
export const decide = <Input, Result, Config>(
  table: TableSpec<Input, Result, Config>,
  input: Input,
  config: Config,
): Decision<Input, Result, Config> => {
  const applicable = table.rows.filter((r) => r.applies(input, config))
  const decided = applicable.toSorted((a, b) => rank(table.priority, a.n) - rank(table.priority, b.n))[0]
  return { applicable, decided }
}

/** Looks a row up by its id or number. */
export const findRow = <Input, Result, Config>(
  table: TableSpec<Input, Result, Config>,
  row: RowId | number,
): RowSpec<Input, Result, Config> | undefined => {
  const n = typeof row === "number" ? row : Number(row.slice(row.lastIndexOf("#") + 1))
  return table.rows.find((r) => r.n === n)
}

/** The id of a row of a table. */
export const idOf = (table: { readonly id: string }, row: { readonly n: number }): RowId =>
  rowId(table.id, row.n)

/** An explanation of one decision: the row, its documented text, and what was decided. */
export interface Explanation<Action, Status> {
  readonly table: string
  readonly row: RowId
  readonly derived: boolean
  /** The documented text of the deciding row, column by column. */
  readonly text: Readonly<Record<string, string>>
  readonly reason: string | undefined
  readonly actions: ReadonlyArray<Action>
  readonly status: Status
  /** Whether the spec agrees: the spec's deciding row is the same and its `holds` is true. */
  readonly conforms: boolean
}

/** Explains a transition's result against its documented table. */
export const explain = <Input, Action, Status, Config>(
  table: TableSpec<Input, TransitionResult<Action, Status>, Config>,
  input: Input,
  result: TransitionResult<Action, Status>,
  config: Config,
): Explanation<Action, Status> => {
  const row = findRow(table, result.row)
  if (row === undefined) throw new Error(`row ${result.row} is not in table ${table.id}`)
  const { decided } = decide(table, input, config)
  return {
    table: table.id,
    row: result.row,
    derived: row.derived,
    text: row.cells,
    reason: row.reason,
    actions: result.actions,
    status: result.status,
    conforms: decided?.n === row.n && row.holds(input, result, config),
  }
}
