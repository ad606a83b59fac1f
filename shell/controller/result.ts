/**
 * What a reconcile returns, and the error that says "do not retry".
 *
 * Outcomes, as controller-runtime treats them:
 * - success, nothing asked → `forget` (reset the backoff);
 * - `requeueAfter` > 0 → `forget`, then `addAfter(requeueAfter)`;
 * - `requeue: true` → `addRateLimited` (backoff);
 * - a failure → `addRateLimited`, except `TerminalError`, which is logged and forgotten.
 *
 * @module
 */
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"

/** The result of one reconcile. */
export interface ReconcileResult {
  /** Reconcile again after this long (takes precedence over `requeue`). */
  readonly requeueAfter?: Duration.Input | undefined
  /** Reconcile again after the request's backoff. */
  readonly requeue?: boolean | undefined
  /** The KRTT row that decided (e.g. `clustercache.reconciler#10`); logged with the outcome. */
  readonly row?: string | undefined
}

/** Nothing more to do. */
export const done = (row?: string): ReconcileResult => (row === undefined ? {} : { row })

/** Reconcile again after `delay`. */
export const requeueAfter = (delay: Duration.Input, row?: string): ReconcileResult =>
  row === undefined ? { requeueAfter: delay } : { requeueAfter: delay, row }

/** Reconcile again after the backoff. */
export const requeue = (row?: string): ReconcileResult =>
  row === undefined ? { requeue: true } : { requeue: true, row }

/**
 * The KRTT row a reconcile's failure names: the table controllers' errors carry the row that
 * decided in a `row` field, logged with the failure. A user's own error may be anything.
 */
export const rowOf = (error: unknown): string | undefined =>
  typeof error === "object" && error !== null && "row" in error && typeof error.row === "string"
    ? error.row
    : undefined

/** A failure that retrying will not fix: logged, counted, and not requeued. */
export class TerminalError extends Data.TaggedError("TerminalError")<{
  readonly message: string
  readonly cause?: unknown
  readonly row?: string | undefined
}> {}

/** How a reconcile ended, as the `result` label of `controller_runtime_reconcile_total`. */
export type ResultLabel = "success" | "error" | "requeue" | "requeue_after"

/** The requeue delay in milliseconds, 0 when none is asked. */
export const requeueAfterMillis = (result: ReconcileResult): number =>
  result.requeueAfter === undefined
    ? 0
    : Math.max(0, Duration.toMillis(Duration.fromInputUnsafe(result.requeueAfter)))
