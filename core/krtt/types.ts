/**
 * The KRTT kernel's vocabulary: row ids, transition inputs and results.
 *
 * Every documented Kubernetes Reconciler Transition Table is a pure function
 * `(observed, desired, trigger, now) -> (actions, status, row)`. The shell interprets the
 * actions (API calls, timers, locks); nothing in `core/` performs I/O or reads a clock.
 *
 * @module
 */

/** `<table>#<n>`: n is the row's 1-based position in the seed's table (derived rows follow). */
export type RowId = `${string}#${number}`

/** The id of row `n` of `table`. */
export const rowId = (table: string, n: number): RowId => `${table}#${n}`

/** Splits a row id into its table and row number; `undefined` when it is not of the form. */
export const parseRowId = (id: string): { readonly table: string; readonly n: number } | undefined => {
  const at = id.lastIndexOf("#")
  if (at <= 0) return undefined
  const n = Number(id.slice(at + 1))
  return Number.isInteger(n) && n > 0 ? { table: id.slice(0, at), n } : undefined
}

/** What a transition sees: the world, what is asked for, why it runs, and the only clock. */
export interface TransitionInput<Observed, Desired, Trigger> {
  /** What the world looks like now (objects, accessor state). */
  readonly observed: Observed
  /** What the spec asks for. */
  readonly desired: Desired
  /** Why we are here (event, timer, call, result of an earlier action). */
  readonly trigger: Trigger
  /** Milliseconds since the epoch: the only clock core ever sees. */
  readonly now: number
}

/** What a transition decides. */
export interface TransitionResult<Action, Status> {
  /** Data for the shell to interpret, in order; each is idempotent. */
  readonly actions: ReadonlyArray<Action>
  /** The resulting status of the documented table. */
  readonly status: Status
  /** The documented row that decided, e.g. `clustercache.reconciler#10`. */
  readonly row: RowId
}

/** A documented table as a pure function. */
export type Transition<Observed, Desired, Trigger, Action, Status, Config = undefined> = (
  input: TransitionInput<Observed, Desired, Trigger>,
  config: Config,
) => TransitionResult<Action, Status>

/** Input of a transition, from its function type. */
export type InputOf<T> =
  T extends Transition<infer O, infer D, infer G, infer _A, infer _S, infer _C>
    ? TransitionInput<O, D, G>
    : never
