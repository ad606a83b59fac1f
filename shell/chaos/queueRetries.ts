/**
 * The queue drill's retries (`queueDrill.ts`): a controller over a queue with a small bucket of its
 * own, whose reconciles fail, die or interrupt themselves once, and one whose reconcile fails for
 * good. What each must get, by the runtime's documented promises:
 *
 * - a failure or a defect is retried after the longer of the request's backoff (5 ms at first)
 *   and its turn in the bucket: `qps` tokens a second, `burst` saved up; once the saved tokens
 *   are spent, the n-th retry more waits n/qps seconds, and tokens come back at `qps` a second
 *   (Go's `rate.Limiter.Reserve`, as controller-runtime's default limiter);
 * - a reconcile that ends interrupted on its own books nothing and is not retried;
 * - a `TerminalError` is not retried, and the request's backoff is forgotten;
 * - during a reconcile its queue counts it processing, its controller one active worker, and
 *   `numRequeues` how often the request was retried since it last succeeded; after a success, 0.
 *
 * The bucket controller runs without a `WorkObserver`, as every process outside the campaign
 * does; the terminal one with the process's own (the harness's work ledger and metrics).
 *
 * @module
 */
import * as Clock from "effect/Clock"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { type Controller, make as makeController } from "../controller/controller.ts"
import { done, type ReconcileResult, TerminalError } from "../controller/result.ts"
import { WorkObserver } from "../workqueue/observer.ts"
import { makeRequest, type Request } from "../workqueue/request.ts"
import type { make as makeQueue, WorkQueue } from "../workqueue/workQueue.ts"

/** How the drill makes its queues (the runtime's `make`; a test passes a broken one). */
export type MakeQueue = typeof makeQueue

/** Where the drill reports a broken promise (the run's safety violations). */
export type Report = (message: string) => void

/** The drill's own failure of a reconcile. */
export class DrillFailure extends Data.TaggedError("DrillFailure")<{ readonly message: string }> {}

/** The bucket of the drill's queue: a token every 500 ms, 3 saved up. */
export const DRILL_BUCKET = { qps: 2, burst: 3 } as const

/** How a request's first reconcile ends. */
type FirstEnd = "fail" | "die" | "interrupt"

/**
 * The requests of the bucket drill, when they are added (ms after the drill's start), how their
 * first reconcile ends, and after how long (ms) their retry must start (none: never retried).
 * At 0 five first reconciles fail at once: the first three take saved tokens and wait only their
 * 5 ms backoff; the fourth and fifth wait for the tokens due in 500 and 1000 ms. At 100 ms 0.2
 * token has come back and 2.8 are owed: 1400 ms. At 5000 ms the bucket is full again: 5 ms.
 */
const REQUESTS: ReadonlyArray<
  readonly [name: string, at: number, end: FirstEnd, retryAfter: number | undefined]
> = [
  ["fails-0", 0, "fail", 5],
  ["fails-1", 0, "fail", 5],
  ["interrupted", 0, "interrupt", undefined],
  ["fails-2", 0, "fail", 5],
  ["fails-3", 0, "fail", 500],
  ["dies", 0, "die", 1000],
  ["late", 100, "fail", 1400],
  ["refilled", 5000, "fail", 5],
]

/** When the bucket drill stops its controller (ms after its start): every retry is done. */
const STOP_AT = 6000

const BUCKET_QUEUE = "chaos-drill-bucket"

/** Ends a first reconcile as `end` says. */
const firstEnd = (name: string, end: FirstEnd): Effect.Effect<ReconcileResult, DrillFailure> =>
  end === "fail"
    ? Effect.fail(new DrillFailure({ message: `the drill's ${name} fails once` }))
    : end === "die"
      ? Effect.die(new Error(`the drill's ${name} dies once`))
      : Effect.interrupt

/**
 * The bucket drill's reconcile: records when each attempt starts and checks what the queue and
 * the controller say meanwhile; the first attempt ends as its request says, the second succeeds.
 */
const attempt =
  (report: Report, queue: WorkQueue, starts: Map<string, Array<number>>, self: { c?: Controller<never> }) =>
  (request: Request): Effect.Effect<ReconcileResult, DrillFailure> =>
    Effect.gen(function* () {
      const seen = [...(starts.get(request.name) ?? []), yield* Clock.currentTimeMillis]
      starts.set(request.name, seen)
      const requeues = yield* queue.numRequeues(request)
      const processing = yield* queue.processing
      const active = self.c === undefined ? undefined : yield* self.c.activeWorkers
      if (requeues !== seen.length - 1 || processing !== 1 || active !== 1)
        report(
          `queue drill: during attempt ${seen.length} of ${request.name}, numRequeues is ${requeues} (want ${seen.length - 1}), processing ${processing} and activeWorkers ${active} (want 1 each)`,
        )
      const end = REQUESTS.find(([name]) => name === request.name)?.[2] ?? "fail"
      return seen.length > 1 ? done() : yield* firstEnd(request.name, end)
    })

/** Adds each later request at its time (ms after `t0`). */
const feed = (queue: WorkQueue, t0: number) =>
  Effect.forEach(
    REQUESTS.filter(([, at]) => at > 0),
    ([name, at]) =>
      Effect.andThen(
        Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.sleep(Math.max(0, t0 + at - now))),
        queue.add(makeRequest({ name })),
      ),
    { discard: true },
  )

/** What became of a request, from the times its attempts started. */
const outcome = (seen: ReadonlyArray<number>) =>
  seen.length === 2
    ? `retried after ${(seen[1] ?? 0) - (seen[0] ?? 0)} ms`
    : seen.length === 1
      ? "not retried"
      : `${seen.length} attempts`

/** The retries each request got, against what the bucket promises. */
const judge = (
  report: Report,
  starts: ReadonlyMap<string, ReadonlyArray<number>>,
  requeues: ReadonlyArray<number>,
) => {
  const outcomes: Record<string, string> = {}
  for (const [i, [name, , , want]] of REQUESTS.entries()) {
    const got = outcome(starts.get(name) ?? [])
    outcomes[name] = got
    const wanted = want === undefined ? "not retried" : `retried after ${want} ms`
    if (got !== wanted)
      report(
        `queue drill: ${name} was ${got}, where with the bucket ${JSON.stringify(DRILL_BUCKET)} it is ${wanted}`,
      )
    if (requeues[i] !== 0)
      report(
        `queue drill: numRequeues of ${name} is ${requeues[i]} once it is done, where it is forgotten (0)`,
      )
  }
  return outcomes
}

/** A controller over a queue with `DRILL_BUCKET`, its requests failing once as `REQUESTS` say. */
export const bucketDrill = (report: Report, make: MakeQueue): Effect.Effect<void, never, Scope.Scope> =>
  Effect.gen(function* () {
    const queue = yield* make({ name: BUCKET_QUEUE, bucket: DRILL_BUCKET })
    const starts = new Map<string, Array<number>>()
    const self: { c?: Controller<never> } = {}
    const controller = yield* makeController({
      name: BUCKET_QUEUE,
      queue,
      reconcile: attempt(report, queue, starts, self),
    })
    self.c = controller
    const t0 = yield* Clock.currentTimeMillis
    // The first ones wait in the queue before the workers start, so that they fail at one
    // instant, in this order.
    yield* Effect.forEach(
      REQUESTS.filter(([, at]) => at === 0),
      ([name]) => queue.add(makeRequest({ name })),
      { discard: true },
    )
    const scope = yield* Scope.fork(yield* Effect.scope, "sequential")
    yield* Scope.provide(controller.start, scope)
    yield* feed(queue, t0)
    yield* Effect.sleep(Math.max(0, t0 + STOP_AT - (yield* Clock.currentTimeMillis)))
    yield* Scope.close(scope, Exit.void)
    const requeues = yield* Effect.forEach(REQUESTS, ([name]) => queue.numRequeues(makeRequest({ name })))
    const outcomes = judge(report, starts, requeues)
    yield* Effect.logInfo("queue drill: retries after the bucket").pipe(
      Effect.annotateLogs({ bucket: DRILL_BUCKET, outcomes }),
    )
  }).pipe(Effect.provideService(WorkObserver, undefined))

/** A controller whose one reconcile fails with a `TerminalError`: never retried, its backoff forgotten. */
export const terminalDrill = (report: Report, make: MakeQueue): Effect.Effect<void, never, Scope.Scope> =>
  Effect.gen(function* () {
    const name = "chaos-drill-terminal"
    const request = makeRequest({ name: "doomed" })
    let attempts = 0
    const controller = yield* makeController({
      name,
      queue: yield* make({ name }),
      reconcile: () =>
        Effect.suspend(() => {
          attempts++
          return Effect.fail(new TerminalError({ message: "the drill's doomed request cannot succeed" }))
        }),
    })
    yield* controller.enqueue(request)
    const scope = yield* Scope.fork(yield* Effect.scope, "sequential")
    yield* Scope.provide(controller.start, scope)
    yield* Effect.sleep("1 second")
    yield* Scope.close(scope, Exit.void)
    const requeues = yield* controller.queue.numRequeues(request)
    if (attempts !== 1 || requeues !== 0)
      report(
        `queue drill: a reconcile that failed with a TerminalError ran ${attempts} times and numRequeues is ${requeues}, where it runs once and is forgotten (0)`,
      )
  })
