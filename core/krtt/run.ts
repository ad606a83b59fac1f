/**
 * The table runner's loop, written once for every documented table and every place that runs
 * one (the operator's controllers, simulations, model-based tests).
 *
 * One run answers one trigger: the table decides, the actions of its answer are carried out in
 * order, and an action whose outcome is a trigger (a finished connect, a probe's answer, a
 * refused API call) sends the run back to the table with it. The run ends when an answer names
 * no next trigger, or fails with `TableLoopError` past a bound.
 *
 * The loop is a generator that yields what it needs and is resumed with the answer, so it holds
 * no I/O, no clock and no Effect: the shell steps it with Effects (shell/controller/table.ts),
 * simulations step it synchronously (`runTableSync`).
 *
 * @module
 */
import * as Data from "effect/Data"
import type { RowId, TransitionResult } from "./types.ts"

/** What carrying out one action tells the run. */
export type Outcome<Trigger, Failure> =
  /** Carried out; go on with the next action. */
  | { readonly _tag: "Done" }
  /** Carried out; once this answer's actions are done, ask the table again with `trigger`. */
  | { readonly _tag: "Next"; readonly trigger: Trigger }
  /** Carried out; reconcile this request again after `after` ms (the shortest asked wins). */
  | { readonly _tag: "Requeue"; readonly after: number }
  /**
   * Refused: the rest of this answer is skipped and the table is asked again with `trigger`.
   * The table hears of one failure per run; a second one ends the run at once. A run with a
   * failure ends in it unless an action asked for a requeue.
   */
  | { readonly _tag: "Failed"; readonly trigger: Trigger; readonly failure: Failure }

export const Outcome = {
  done: { _tag: "Done" } as { readonly _tag: "Done" },
  next: <Trigger>(trigger: Trigger) => ({ _tag: "Next", trigger }) as const,
  requeue: (after: number) => ({ _tag: "Requeue", after }) as const,
  failed: <Trigger, Failure>(trigger: Trigger, failure: Failure) =>
    ({ _tag: "Failed", trigger, failure }) as const,
}

/** What the loop asks of its driver: a decision for a trigger, or an action carried out. */
export type Need<Trigger, Action, Status> =
  | { readonly _tag: "Decide"; readonly trigger: Trigger }
  | { readonly _tag: "Run"; readonly action: Action; readonly decided: TransitionResult<Action, Status> }

/** How a run ended. */
export interface TableRun<Action, Status, Failure> {
  /** Every row that decided, in order. */
  readonly rows: ReadonlyArray<RowId>
  /** The last answer of the table: its row is the run's row. */
  readonly last: TransitionResult<Action, Status>
  /** The shortest requeue an action asked for. */
  readonly requeueAfter: number | undefined
  /** The failure the table was told of, or the one that ended the run. */
  readonly failure: Failure | undefined
}

/** A run that did not end within its bound: the table loops. */
export class TableLoopError extends Data.TaggedError("TableLoopError")<{
  readonly table: string
  readonly bound: number
  readonly rows: ReadonlyArray<RowId>
}> {
  override get message(): string {
    return `${this.table}: a run did not end within ${this.bound} transitions (the table loops); rows ${this.rows.join(" ")}`
  }
}

/** A table as the loop sees it: its name (for errors) and the bound of one run. */
export interface TableBound {
  readonly table: string
  readonly maxTransitions: number
}

/** The answers the driver resumes the loop with: a `Decide` with a result, a `Run` with an outcome. */
export type Answer<Action, Status, Trigger, Failure> =
  | TransitionResult<Action, Status>
  | Outcome<Trigger, Failure>

/**
 * The loop. Yields `Decide` (resume with the table's result) and `Run` (resume with the
 * action's outcome); returns the run, or a `TableLoopError` past the bound.
 */
export function* tableLoop<Trigger, Action, Status, Failure>(
  bound: TableBound,
  first: Trigger,
): Generator<
  Need<Trigger, Action, Status>,
  TableRun<Action, Status, Failure> | TableLoopError,
  Answer<Action, Status, Trigger, Failure>
> {
  const rows: Array<RowId> = []
  let trigger = first
  let requeueAfter: number | undefined
  let failure: Failure | undefined
  for (;;) {
    if (rows.length === bound.maxTransitions)
      return new TableLoopError({ table: bound.table, bound: bound.maxTransitions, rows })
    const decided = (yield { _tag: "Decide", trigger }) as TransitionResult<Action, Status>
    rows.push(decided.row)
    let next: Trigger | undefined
    for (const action of decided.actions) {
      const outcome = (yield { _tag: "Run", action, decided }) as Outcome<Trigger, Failure>
      if (outcome._tag === "Next") next = outcome.trigger
      else if (outcome._tag === "Requeue")
        requeueAfter = requeueAfter === undefined ? outcome.after : Math.min(requeueAfter, outcome.after)
      else if (outcome._tag === "Failed") {
        const told = failure !== undefined
        failure = outcome.failure
        if (told) return { rows, last: decided, requeueAfter, failure }
        next = outcome.trigger
        break
      }
    }
    if (next === undefined) return { rows, last: decided, requeueAfter, failure }
    trigger = next
  }
}

/** A table with synchronous answers: for simulations and model-based tests. */
export interface SyncTable<Trigger, Action, Status, Failure> extends TableBound {
  readonly decide: (trigger: Trigger) => TransitionResult<Action, Status>
  readonly run: (action: Action, decided: TransitionResult<Action, Status>) => Outcome<Trigger, Failure>
}

/** Runs the loop with synchronous answers; throws `TableLoopError` past the bound. */
export const runTableSync = <Trigger, Action, Status, Failure>(
  table: SyncTable<Trigger, Action, Status, Failure>,
  first: Trigger,
): TableRun<Action, Status, Failure> => {
  const loop = tableLoop<Trigger, Action, Status, Failure>(table, first)
  let step = loop.next(undefined as never)
  while (step.done !== true) {
    const need = step.value
    step = loop.next(
      need._tag === "Decide" ? table.decide(need.trigger) : table.run(need.action, need.decided),
    )
  }
  if (step.value instanceof TableLoopError) throw step.value
  return step.value
}
