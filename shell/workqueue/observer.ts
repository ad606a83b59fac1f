/**
 * `WorkObserver`: an optional witness of a process's work, for checks that no work is lost
 * (the chaos campaign's liveness oracles, docs/reliability.md). A queue tells it every request it
 * accepts (`add` before shutdown, de-duplicated or not) and every rate-limited retry with its
 * delay; a controller tells it when each reconcile starts and finishes, and how it booked it.
 * Absent by default: then nothing is recorded and nothing changes.
 *
 * Provide it (`Effect.provideService(WorkObserver, …)`) around the code that makes the queues
 * and controllers: each reads it once, when it is made.
 *
 * @module
 */
import * as Context from "effect/Context"
import type { Request } from "./request.ts"

export interface WorkObserverShape {
  /** Queue `queue` accepted `request` (it must be reconciled after this). */
  readonly added: (queue: string, request: Request) => void
  /** A reconcile of `request` started on the controller whose queue is `queue`. */
  readonly started: (queue: string, request: Request) => void
  /** That reconcile ended (success, failure, defect or interruption). */
  readonly finished: (queue: string, request: Request) => void
  /**
   * How the controller booked that reconcile (an interrupted one is not booked): `success`,
   * `requeue_after` and `terminal` reset the request's backoff, `requeue` and `error` retry it
   * rate-limited.
   */
  readonly booked?: (queue: string, request: Request, outcome: BookedOutcome) => void
  /** The queue will add `request` again after `delayMillis`: a rate-limited retry. */
  readonly retried?: (queue: string, request: Request, delayMillis: number) => void
}

export type BookedOutcome = "success" | "requeue" | "requeue_after" | "error" | "terminal"

/** The witness of the process's work; `undefined` (the default) records nothing. */
export const WorkObserver: Context.Reference<WorkObserverShape | undefined> = Context.Reference<
  WorkObserverShape | undefined
>("krtt/workqueue/WorkObserver", { defaultValue: () => undefined })
