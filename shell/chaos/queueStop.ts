/**
 * The queue drill's stops and direct use (`queueDrill.ts`), each against the runtime's documented
 * promises:
 *
 * - a controller stopped while requests wait behind an in-flight reconcile: no reconcile starts
 *   once its queue is shut down, the in-flight one finishes, the waiting ones stay counted in
 *   `length`, adds are ignored, every later `take` fails at once naming the queue; a repeated add
 *   of a waiting request is not counted in `workqueue_adds_total`, and a stray `done` (twice, or
 *   for a request never handed out) records no work duration. Its observer implements only
 *   what a `WorkObserver` must (no `booked`, no `retried`);
 * - a queue used on its own: requests handed out round-robin over clusters, FIFO within one, told
 *   apart by cluster, namespace and name (`requestEquals`); closing its scope shuts it down;
 * - bucket options that are not a positive rate or a whole burst of at least 1 are refused with a
 *   `RangeError` naming the field.
 *
 * @module
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Metric from "effect/Metric"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import { make as makeController } from "../controller/controller.ts"
import { done, type ReconcileResult } from "../controller/result.ts"
import type { BucketOptions } from "../workqueue/backoff.ts"
import { WorkObserver, type WorkObserverShape } from "../workqueue/observer.ts"
import { ClusterName, formatRequest, makeRequest, type Request, requestEquals } from "../workqueue/request.ts"
import type { WorkQueue } from "../workqueue/workQueue.ts"
import { DrillFailure, type MakeQueue, type Report } from "./queueRetries.ts"

const BACKLOG_QUEUE = "chaos-drill-backlog"
const DIRECT_QUEUE = "chaos-drill-direct"

/** A `take` that must not wait: what it gave, or `waited` when nothing came within a second. */
const takeAtOnce = (queue: WorkQueue): Effect.Effect<string> =>
  Effect.map(Effect.timeoutOption(Effect.result(queue.take), "1 second"), (o) =>
    Option.isNone(o)
      ? "waited"
      : o.value._tag === "Success"
        ? `handed out ${formatRequest(o.value.success)}`
        : `${o.value.failure._tag} of queue ${o.value.failure.queue}`,
  )

/** The count of the series `id` of queue `name` in the current registry (a counter's or a histogram's). */
const countOf = (id: string, name: string): Effect.Effect<number> =>
  Effect.map(Metric.snapshot, (snapshots) => {
    const m = snapshots.find((s) => s.id === id && s.attributes?.name === name)
    if (m === undefined) return 0
    return m.type === "Counter" || m.type === "Histogram" ? Number(m.state.count) : Number.NaN
  })

/** Reports each figure that is not what it must be. */
const expect = (
  report: Report,
  what: string,
  figures: Record<string, unknown>,
  want: Record<string, unknown>,
) => {
  for (const [k, v] of Object.entries(want))
    if (figures[k] !== v)
      report(`queue drill: ${what}: ${k} is ${String(figures[k])}, where it must be ${String(v)}`)
}

/** The backlog controller's reconcile: `flaky` fails once, `blocker` takes 2 s, the rest succeed. */
const backlogReconcile = (failed: Set<string>) => (request: Request) =>
  Effect.suspend((): Effect.Effect<ReconcileResult, DrillFailure> => {
    if (request.name === "flaky" && !failed.has("flaky")) {
      failed.add("flaky")
      return Effect.fail(new DrillFailure({ message: "the drill's flaky request fails once" }))
    }
    return request.name === "blocker" ? Effect.as(Effect.sleep("2 seconds"), done()) : Effect.succeed(done())
  })

/** A controller stopped while three requests wait behind its in-flight reconcile. */
export const backlogDrill = (report: Report, make: MakeQueue): Effect.Effect<void, never, Scope.Scope> =>
  Effect.gen(function* () {
    const started: Array<string> = []
    const observer: WorkObserverShape = {
      added: () => undefined,
      started: (_queue, request) => {
        started.push(request.name)
      },
      finished: () => undefined,
    }
    const { queue, controller } = yield* Effect.gen(function* () {
      const queue = yield* make({ name: BACKLOG_QUEUE })
      const controller = yield* makeController({
        name: BACKLOG_QUEUE,
        queue,
        reconcile: backlogReconcile(new Set()),
      })
      return { queue, controller }
    }).pipe(Effect.provideService(WorkObserver, observer))
    const scope = yield* Scope.fork(yield* Effect.scope, "sequential")
    yield* Scope.provide(controller.start, scope)
    const req = (name: string) => makeRequest({ name })
    yield* controller.enqueue(req("flaky"))
    yield* Effect.sleep("1 second")
    yield* controller.enqueue(req("blocker"))
    yield* Effect.sleep("500 millis")
    for (const name of ["backlog-1", "backlog-2", "backlog-1", "backlog-3"])
      yield* controller.enqueue(req(name))
    const during = { length: yield* queue.length, processing: yield* queue.processing }
    yield* Effect.sleep("500 millis")
    const before = started.join(",")
    // The controller stops as its scope closes: the queue shuts down, the blocker finishes.
    yield* Scope.close(scope, Exit.void)
    const after = {
      startedBefore: before,
      startedAfter: started.join(","),
      isShutDown: yield* queue.isShutDown,
      length: yield* queue.length,
      processing: yield* queue.processing,
    }
    yield* queue.done(req("blocker"))
    yield* queue.done(req("backlog-1"))
    yield* queue.add(req("too-late"))
    const late = {
      lengthAfterAdd: yield* queue.length,
      takes: (yield* Effect.all([1, 2, 3].map(() => takeAtOnce(queue)))).join("; "),
    }
    const metrics = {
      adds: yield* countOf("workqueue_adds_total", BACKLOG_QUEUE),
      workDurations: yield* countOf("workqueue_work_duration_seconds", BACKLOG_QUEUE),
    }
    const refused = `WorkQueueShutDownError of queue ${BACKLOG_QUEUE}`
    expect(report, "while the blocker runs with three waiting", during, { length: 3, processing: 1 })
    expect(report, "once stopped with a backlog", after, {
      startedBefore: "flaky,flaky,blocker",
      startedAfter: "flaky,flaky,blocker",
      isShutDown: true,
      length: 3,
      processing: 0,
    })
    expect(report, "after shutdown", late, {
      lengthAfterAdd: 3,
      takes: [refused, refused, refused].join("; "),
    })
    // flaky twice (its retry is an add), blocker, three distinct waiting ones; three reconciles.
    expect(report, "its metrics", metrics, { adds: 6, workDurations: 3 })
    yield* Effect.logInfo("queue drill: stopped with a backlog").pipe(
      Effect.annotateLogs({ during, after, late, metrics }),
    )
  })

/** Four requests that differ in one of cluster, namespace and name, in the order the queue hands them out. */
const ROUND_ROBIN: ReadonlyArray<Request> = [
  makeRequest({ name: "x" }),
  makeRequest({ name: "x" }, ClusterName("drill-east")),
  makeRequest({ namespace: "drill", name: "x" }),
  makeRequest({ name: "y" }),
]

/** A queue used on its own: four requests added, handed out, done; then its scope closed. */
export const directDrill = (report: Report, make: MakeQueue): Effect.Effect<void, never, Scope.Scope> =>
  Effect.gen(function* () {
    const scope = yield* Scope.fork(yield* Effect.scope, "sequential")
    const queue = yield* Scope.provide(make({ name: DIRECT_QUEUE }), scope)
    const [hubX, eastX, drillX, hubY] = ROUND_ROBIN as [Request, Request, Request, Request]
    // The hub's three first (FIFO there), the east cluster's between; the first one again.
    for (const r of [hubX, drillX, eastX, hubY, makeRequest({ name: "x" })]) yield* queue.add(r)
    const ready = yield* queue.length
    const taken: Array<Request> = []
    for (let i = 0; i < ROUND_ROBIN.length; i++) {
      const next = yield* Effect.timeoutOption(Effect.result(queue.take), "1 second")
      if (Option.isSome(next) && next.value._tag === "Success") taken.push(next.value.success)
    }
    const order = taken.map((t) => ROUND_ROBIN.findIndex((r) => requestEquals(r, t)))
    const processing = yield* queue.processing
    for (const t of taken) yield* queue.done(t)
    const settled = { length: yield* queue.length, processing: yield* queue.processing }
    const closed = yield* Effect.exit(Scope.close(scope, Exit.void))
    yield* queue.add(hubX)
    const afterClose = {
      closed: Exit.isSuccess(closed) ? "closed" : Cause.pretty(closed.cause).split("\n", 1)[0],
      isShutDown: yield* queue.isShutDown,
      length: yield* queue.length,
      take: yield* takeAtOnce(queue),
    }
    expect(
      report,
      "a queue used on its own",
      { ready, order: order.join(","), processing },
      {
        ready: 4,
        order: "0,1,2,3",
        processing: 4,
      },
    )
    expect(report, "once its four requests are done", settled, { length: 0, processing: 0 })
    expect(report, "once its scope closed", afterClose, {
      closed: "closed",
      isShutDown: true,
      length: 0,
      take: `WorkQueueShutDownError of queue ${DIRECT_QUEUE}`,
    })
    yield* Effect.logInfo("queue drill: a queue used on its own").pipe(
      Effect.annotateLogs({ handedOut: taken.map(formatRequest), afterClose }),
    )
  })

/** Bucket options, and the field a queue made with them must name in its refusal (none: accepted). */
const BUCKETS: ReadonlyArray<readonly [string, Partial<BucketOptions>, string | undefined]> = [
  ["qps 0", { qps: 0 }, "bucket.qps"],
  ["qps Infinity", { qps: Number.POSITIVE_INFINITY }, "bucket.qps"],
  ["burst 0", { burst: 0 }, "bucket.burst"],
  ["burst 1.5", { burst: 1.5 }, "bucket.burst"],
  ["qps 1, burst 1", { qps: 1, burst: 1 }, undefined],
]

/** Queues made with each of `BUCKETS`: refused with a `RangeError` naming the field, or made. */
export const refusedDrill = (report: Report, make: MakeQueue): Effect.Effect<void> =>
  Effect.gen(function* () {
    const answers: Record<string, string> = {}
    for (const [what, bucket, field] of BUCKETS) {
      const exit = yield* Effect.exit(Effect.scoped(make({ name: "chaos-drill-refused", bucket })))
      const defect = Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined
      const answer = Exit.isSuccess(exit)
        ? "made"
        : defect instanceof RangeError
          ? defect.message
          : String(defect)
      answers[what] = answer
      const right =
        field === undefined
          ? answer === "made"
          : defect instanceof RangeError && answer.startsWith(`${field} `)
      if (!right)
        report(
          `queue drill: a queue with bucket ${what} is answered "${answer}", where it must be ${field === undefined ? "made" : `refused with a RangeError naming ${field}`}`,
        )
    }
    yield* Effect.logInfo("queue drill: bucket options").pipe(Effect.annotateLogs({ answers }))
  })
