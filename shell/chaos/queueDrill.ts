/**
 * The queue drill: a user of the work queue and the controller beside the operator suite's
 * operator, in every process of its runs, on the run's virtual clock. It makes queues and
 * controllers of its own and drives them where the operator's controllers never go: a bucket spent
 * and filled again, reconciles that fail, die or interrupt themselves, a controller stopped with a
 * backlog, a queue used on its own and closed without a controller, bucket options refused
 * (`queueRetries.ts`, `queueStop.ts`). Each part checks the runtime's documented promises and
 * reports a broken one as a safety violation; each logs what it saw (in the run's digest), and
 * so do the drill's queues' metrics at the end.
 *
 * The drill's queues count in a metric registry of their own and without the harness's work
 * ledger (the stopped controller's backlog legitimately stays queued, and the queue used on its
 * own hands its requests to no reconcile, which the process's lost-work checks would report); the
 * terminal controller counts in the process's registry, witnessed by its work ledger.
 *
 * Guarantees: it touches no API server; everything it starts lives in its scope (the process's);
 * it takes about 10 s of virtual time from its start. A defect of the drill (a runtime that dies
 * under it) is reported too.
 *
 * @module
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import type * as Scope from "effect/Scope"
import { WorkObserver } from "../workqueue/observer.ts"
import { make as makeQueue } from "../workqueue/workQueue.ts"
import { metricLines } from "./metricLines.ts"
import { bucketDrill, type MakeQueue, type Report, terminalDrill } from "./queueRetries.ts"
import { backlogDrill, directDrill, refusedDrill } from "./queueStop.ts"

/** The drill's parts over the queues it makes with `make`, its own metrics logged at the end. */
const parts = (report: Report, make: MakeQueue): Effect.Effect<void, never, Scope.Scope> =>
  Effect.gen(function* () {
    yield* Effect.scoped(terminalDrill(report, make))
    const registry: Metric.MetricRegistry = new Map()
    yield* Effect.gen(function* () {
      yield* refusedDrill(report, make)
      yield* Effect.scoped(bucketDrill(report, make))
      yield* Effect.scoped(backlogDrill(report, make))
      yield* Effect.scoped(directDrill(report, make))
    }).pipe(
      Effect.provideService(Metric.MetricRegistry, registry),
      Effect.provideService(WorkObserver, undefined),
    )
    yield* Effect.logInfo("queue drill: its queues' metrics").pipe(
      Effect.annotateLogs({ metrics: yield* metricLines(registry) }),
    )
  })

/**
 * Runs the drill once, a second after it is called; `make` is the runtime's queue (a test passes
 * a broken one). Reports through `report`.
 */
export const runQueueDrill = (
  report: Report,
  make: MakeQueue = makeQueue,
): Effect.Effect<void, never, Scope.Scope> =>
  Effect.andThen(Effect.sleep("1 second"), parts(report, make)).pipe(
    Effect.catchCause((cause) =>
      Cause.hasInterruptsOnly(cause)
        ? Effect.void
        : Effect.sync(() => report(`queue drill: died: ${Cause.pretty(cause).split("\n", 1)[0]}`)),
    ),
  )
