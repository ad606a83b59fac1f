/**
 * The table runner of every controller: a reconcile is one run of its documented table.
 *
 * # Expected flow
 * `runTable(table, first)`: the table decides (`decide` observes what it needs, reads the clock
 * and calls the core's transition), each action of the answer is carried out by `run` in order,
 * and an action whose outcome is a trigger sends the run back to the table (core/krtt/run.ts
 * holds the rules of a run). Every row that decided is logged at debug level; `reconcileResult` turns the run
 * into the controller's result with the deciding row, or into the run's failure.
 *
 * # Guarantees
 * - The rules are the core's `TableRunState`, the same for the operator and for simulations.
 * - A run past `maxTransitions` fails with `TableLoopError` naming its rows, instead of hanging.
 * - `decide` and `run` are the only I/O; no lock is held by the runner.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import {
  type Outcome,
  type TableBound,
  type TableLoopError,
  type TableRun,
  TableRunState,
} from "../../core/krtt/run.ts"
import type { TransitionResult } from "../../core/krtt/types.ts"
import { done, type ReconcileResult, requeueAfter } from "./result.ts"

/** A documented table with its I/O: how it decides and how it carries out an action. */
export interface Table<Trigger, Action, Status, Failure, E, R> extends TableBound {
  /** Observes what the table reads, and asks it for `trigger` at the current time. */
  readonly decide: (trigger: Trigger) => Effect.Effect<TransitionResult<Action, Status>, E, R>
  /** Carries out one action of `decided`; a refusal the table hears of is an `Outcome.failed`. */
  readonly run: (
    action: Action,
    decided: TransitionResult<Action, Status>,
  ) => Effect.Effect<Outcome<Trigger, Failure>, E, R>
}

/** Runs the table for one trigger to its end. */
export const runTable = <Trigger, Action, Status, Failure, E, R>(
  table: Table<Trigger, Action, Status, Failure, E, R>,
  first: Trigger,
): Effect.Effect<TableRun<Action, Status, Failure>, E | TableLoopError, R> =>
  Effect.gen(function* () {
    const state = new TableRunState<Trigger, Failure>(table)
    let trigger = first
    for (;;) {
      const loop = state.admit()
      if (loop !== undefined) return yield* loop
      const decided = yield* table.decide(trigger)
      yield* Effect.logDebug("table decided").pipe(Effect.annotateLogs({ row: decided.row }))
      state.record(decided.row)
      for (const action of decided.actions) if (state.apply(yield* table.run(action, decided))) break
      if (state.next === undefined) return state.result(decided)
      trigger = state.next
    }
  })

/**
 * The controller's result of a run: a requeue when an action asked for one, else the run's
 * failure (made an error by `toError`, with the deciding row), else done; the row is the run's.
 */
export const reconcileResult = <Action, Status, Failure, E>(
  run: TableRun<Action, Status, Failure>,
  toError: (failure: Failure, row: string) => E,
): Effect.Effect<ReconcileResult, E> => {
  const row = run.last.row
  if (run.requeueAfter !== undefined) return Effect.succeed(requeueAfter(run.requeueAfter, row))
  if (run.failure !== undefined) return Effect.fail(toError(run.failure, row))
  return Effect.succeed(done(row))
}
