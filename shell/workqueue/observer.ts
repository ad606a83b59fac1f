/**
 * `WorkObserver`: an optional witness of a process's work, for checks that no work is lost
 * (the chaos campaign's liveness oracle, docs/reliability.md). A queue tells it every request it
 * accepts (`add` before shutdown, de-duplicated or not); a controller tells it when each
 * reconcile starts and finishes. Absent by default: then nothing is recorded and nothing changes.
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
}

/** The witness of the process's work; `undefined` (the default) records nothing. */
export const WorkObserver: Context.Reference<WorkObserverShape | undefined> = Context.Reference<
  WorkObserverShape | undefined
>("krtt/workqueue/WorkObserver", { defaultValue: () => undefined })
