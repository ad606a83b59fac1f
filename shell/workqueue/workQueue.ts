/**
 * `WorkQueue`: the shared, cluster-fair, de-duplicating, delaying, rate-limited queue of
 * reconcile requests (client-go's workqueue, as controller-runtime uses it).
 *
 * # Expected flow
 * A source `add`s requests; a worker `take`s one, reconciles it, then calls `done`, and after
 * a success `forget` (reset its backoff), after an error `addRateLimited`, after a requested
 * delay `addAfter`.
 *
 * # Guarantees
 * - De-duplication and at most one worker per request; a request added while processing is
 *   processed again after `done` (see `FairQueue`).
 * - Round-robin across clusters with ready requests.
 * - `addAfter` keeps the earliest pending time when the same request is delayed twice.
 * - A rate-limited re-add waits the longer of its per-request exponential backoff (5 ms …
 *   1000 s, `BackoffOptions`) and its turn in one bucket shared by all requests (10 qps, burst
 *   100, `BucketOptions`): controller-runtime's default controller rate limiter.
 * - `shutdown` stops handing out work at once: waiting and later `take`s fail with
 *   `WorkQueueShutDown`; adds are ignored; `done` still works for requests in flight. Closing
 *   the queue's scope shuts it down and cancels pending delays.
 * - Metrics `workqueue_*` labelled `name`.
 *
 * @module
 */
import * as Clock from "effect/Clock"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FiberMap from "effect/FiberMap"
import * as Metric from "effect/Metric"
import * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"
import { type BackoffOptions, type BucketOptions, ItemBackoff, TokenBucket } from "./backoff.ts"
import { FairQueue } from "./fairQueue.ts"
import { forQueue, forQueueCluster } from "./metrics.ts"
import { WorkObserver } from "./observer.ts"
import { type Request, requestKey } from "./request.ts"

/** `take` on a queue that is shut down. */
export class WorkQueueShutDown extends Data.TaggedError("WorkQueueShutDown")<{ readonly queue: string }> {}

/** Options of a work queue. */
export interface WorkQueueOptions extends Partial<BackoffOptions> {
  /** The metrics label `name`; by convention the controller's name. */
  readonly name: string
  /**
   * Record the `workqueue_*` metrics per cluster (labels `name` and `cluster`) instead of per
   * queue only, for a multi-cluster controller. Default false.
   */
  readonly perClusterMetrics?: boolean | undefined
  /** The bucket all rate-limited re-adds share. Default 10 qps, burst 100 (`BucketDefaults`). */
  readonly bucket?: Partial<BucketOptions> | undefined
}

/** The queue's operations; all are safe to call from any fiber. */
export interface WorkQueue {
  readonly name: string
  /** Queues a request now (de-duplicated). */
  readonly add: (request: Request) => Effect.Effect<void>
  /** Queues a request after `delay` (now when `delay` ≤ 0). */
  readonly addAfter: (request: Request, delay: Duration.Input) => Effect.Effect<void>
  /** Queues a request after its backoff (or its turn in the shared bucket, if later) and counts a retry. */
  readonly addRateLimited: (request: Request) => Effect.Effect<void>
  /** Resets a request's backoff. */
  readonly forget: (request: Request) => Effect.Effect<void>
  /** How often a request was rate-limited since it was last forgotten. */
  readonly numRequeues: (request: Request) => Effect.Effect<number>
  /** Waits for the next ready request (round-robin over clusters) and marks it as processing. */
  readonly take: Effect.Effect<Request, WorkQueueShutDown>
  /** Ends processing of a request; re-queues it if it was added meanwhile. */
  readonly done: (request: Request) => Effect.Effect<void>
  /** Ready requests (not counting delayed or processing ones). */
  readonly length: Effect.Effect<number>
  /** Requests being processed. */
  readonly processing: Effect.Effect<number>
  /** Stops handing out work (see the module doc). */
  readonly shutdown: Effect.Effect<void>
  readonly isShutDown: Effect.Effect<boolean>
}

/** A work queue that lives until the scope closes. */
export const make = (options: WorkQueueOptions): Effect.Effect<WorkQueue, never, Scope.Scope> =>
  Effect.gen(function* () {
    const { name } = options
    const observer = yield* WorkObserver
    const metrics = forQueue(name)
    const state = new FairQueue()
    const backoff = new ItemBackoff(options)
    const bucket = new TokenBucket(options.bucket)
    /** One token per ready request; takers wait on it. Failing it wakes every taker on shutdown. */
    const signal = yield* Queue.unbounded<void, WorkQueueShutDown>()
    const delayed = yield* FiberMap.make<string>()
    const pendingAt = new Map<string, number>()
    const addedAt = new Map<string, number>()
    const startedAt = new Map<string, number>()
    let down = false

    /**
     * The series a request is booked in: the queue's, or with `perClusterMetrics` its cluster's
     * instead (never both, so that sums over the series stay right).
     */
    const clusterSeries = new Map<string, ReturnType<typeof forQueueCluster>>()
    const seriesOf = (request: Request): ReturnType<typeof forQueueCluster> => {
      if (options.perClusterMetrics !== true) return metrics
      let m = clusterSeries.get(request.cluster)
      // Stryker disable next-line ConditionalExpression
      if (m === undefined) {
        m = forQueueCluster(name, request.cluster)
        // Stryker disable next-line CallExpression
        clusterSeries.set(request.cluster, m)
      }
      return m
    }
    const setDepth = (request: Request) =>
      Effect.suspend(() =>
        options.perClusterMetrics === true
          ? Metric.update(seriesOf(request).depth, state.clusterLength(request.cluster))
          : Metric.update(metrics.depth, state.length),
      )

    const add = (request: Request): Effect.Effect<void> =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        if (down) return Effect.void
        observer?.added(name, request)
        const outcome = state.add(request)
        if (outcome === "deduplicated") return Effect.void
        // The queue time counts from the first add (client-go's addTimes).
        if (!addedAt.has(requestKey(request))) addedAt.set(requestKey(request), now)
        // Stryker disable next-line ConditionalExpression
        if (outcome === "queued") Queue.offerUnsafe(signal, undefined)
        return Effect.andThen(Metric.update(seriesOf(request).adds, 1), setDepth(request))
      })

    const addAfter = (request: Request, delay: Duration.Input): Effect.Effect<void> =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const ms = Duration.toMillis(Duration.fromInputUnsafe(delay))
        // Stryker disable next-line ConditionalExpression
        if (down) return Effect.void
        // Stryker disable next-line ConditionalExpression,EqualityOperator
        if (ms <= 0) return add(request)
        const key = requestKey(request)
        const at = now + ms
        const pending = pendingAt.get(key)
        // Stryker disable next-line ConditionalExpression,EqualityOperator
        if (pending !== undefined && pending <= at) return Effect.void
        pendingAt.set(key, at)
        const fire = Effect.andThen(
          Effect.sleep(ms),
          Effect.suspend(() => {
            pendingAt.delete(key)
            return add(request)
          }),
        )
        return Effect.asVoid(FiberMap.run(delayed, key, fire))
      })

    /** Waiting is interruptible; once a token is taken, popping and bookkeeping are not. */
    const take: Effect.Effect<Request, WorkQueueShutDown> = Effect.uninterruptibleMask((restore) =>
      Effect.gen(function* () {
        while (true) {
          yield* restore(Queue.take(signal))
          if (down) return yield* new WorkQueueShutDown({ queue: name })
          const request = state.pop()
          // Stryker disable next-line ConditionalExpression
          if (request === undefined) continue
          const now = yield* Clock.currentTimeMillis
          const key = requestKey(request)
          // Every request handed out was added, and add records its time.
          const since = addedAt.get(key) as number
          addedAt.delete(key)
          startedAt.set(key, now)
          yield* Metric.update(seriesOf(request).queueDuration, (now - since) / 1000)
          yield* setDepth(request)
          return request
        }
      }),
    )

    const done = (request: Request): Effect.Effect<void> =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const key = requestKey(request)
        const started = startedAt.get(key)
        startedAt.delete(key)
        const again = state.done(request)
        // Stryker disable next-line ConditionalExpression,LogicalOperator
        if (again && !down) Queue.offerUnsafe(signal, undefined)
        const observe =
          started === undefined
            ? Effect.void
            : Metric.update(seriesOf(request).workDuration, (now - started) / 1000)
        return Effect.andThen(observe, setDepth(request))
      })

    const shutdown = Effect.suspend(() => {
      // Stryker disable next-line ConditionalExpression
      if (down) return Effect.void
      down = true
      return Effect.andThen(
        Queue.fail(signal, new WorkQueueShutDown({ queue: name })),
        FiberMap.clear(delayed),
      )
    })
    yield* Effect.addFinalizer(() => shutdown)

    return {
      name,
      add,
      addAfter,
      addRateLimited: (request) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) => {
          const delay = Math.max(backoff.when(requestKey(request)), bucket.reserve(now))
          return Effect.andThen(Metric.update(seriesOf(request).retries, 1), addAfter(request, delay))
        }),
      forget: (request) => Effect.sync(() => backoff.forget(requestKey(request))),
      numRequeues: (request) => Effect.sync(() => backoff.retries(requestKey(request))),
      take,
      done,
      length: Effect.sync(() => state.length),
      processing: Effect.sync(() => state.processingCount),
      shutdown,
      isShutDown: Effect.sync(() => down),
    }
  })
