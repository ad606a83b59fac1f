/**
 * The table runner's rules, written once for every documented table and every place that runs
 * one (the operator's controllers, simulations, model-based tests).
 *
 * One run answers one trigger: the table decides, the actions of its answer are carried out in
 * order, and an action whose outcome is a trigger (a finished connect, a probe's answer, a
 * refused API call) sends the run back to the table with it. The run ends when an answer names
 * no next trigger, or fails with `TableLoopError` past a bound.
 *
 * The rules of a run (the bound, a failure told once, the shortest requeue, when it ends) live in
 * `TableRunState`, which holds no I/O, no clock and no Effect; two drivers of a few lines step
 * it: `runTableSync` here for simulations and model-based tests, `runTable`
 * (shell/controller/table.ts) with Effects for the operator.
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

/**
 * One run's bookkeeping, shared by both drivers so that the rules live once: the bound, the
 * rows, the shortest requeue, a failure told to the table once, and when the run ends. A driver
 * asks `admit` before each decision, `record`s the table's answer, `apply`s each action's
 * outcome (`true`: the rest of this answer is skipped), and after the answer asks the table
 * again with `next`, or ends the run when it is `undefined`.
 */
export class TableRunState<Trigger, Failure> {
  readonly rows: Array<RowId> = []
  next: Trigger | undefined = undefined
  requeueAfter: number | undefined = undefined
  failure: Failure | undefined = undefined
  readonly bound: TableBound

  constructor(bound: TableBound) {
    this.bound = bound
  }

  /** `undefined` while another decision is allowed; past the bound, the run's error. */
  admit(): TableLoopError | undefined {
    return this.rows.length === this.bound.maxTransitions
      ? new TableLoopError({ table: this.bound.table, bound: this.bound.maxTransitions, rows: this.rows })
      : undefined
  }

  record(row: RowId): void {
    this.rows.push(row)
    this.next = undefined
  }

  /** Books an action's outcome; `true` when the rest of the answer is skipped (a refusal). */
  apply(outcome: Outcome<Trigger, Failure>): boolean {
    switch (outcome._tag) {
      case "Next":
        this.next = outcome.trigger
        return false
      case "Requeue":
        this.requeueAfter =
          this.requeueAfter === undefined ? outcome.after : Math.min(this.requeueAfter, outcome.after)
        return false
      case "Failed": {
        // Told once: a second refusal leaves no next trigger, and the run ends with it.
        this.next = this.failure === undefined ? outcome.trigger : undefined
        this.failure = outcome.failure
        return true
      }
    }
    // Done: nothing to book.
    return false
  }

  result<Action, Status>(last: TransitionResult<Action, Status>): TableRun<Action, Status, Failure> {
    return { rows: this.rows, last, requeueAfter: this.requeueAfter, failure: this.failure }
  }
}

/** A table with synchronous answers: for simulations and model-based tests. */
export interface SyncTable<Trigger, Action, Status, Failure> extends TableBound {
  readonly decide: (trigger: Trigger) => TransitionResult<Action, Status>
  readonly run: (action: Action, decided: TransitionResult<Action, Status>) => Outcome<Trigger, Failure>
}

/** Runs a table with synchronous answers; throws `TableLoopError` past the bound. */
export const runTableSync = <Trigger, Action, Status, Failure>(
  table: SyncTable<Trigger, Action, Status, Failure>,
  first: Trigger,
): TableRun<Action, Status, Failure> => {
  const state = new TableRunState<Trigger, Failure>(table)
  let trigger = first
  for (;;) {
    const loop = state.admit()
    if (loop !== undefined) throw loop
    const decided = table.decide(trigger)
    state.record(decided.row)
    for (const action of decided.actions) if (state.apply(table.run(action, decided))) break
    if (state.next === undefined) return state.result(decided)
    trigger = state.next
  }
}
