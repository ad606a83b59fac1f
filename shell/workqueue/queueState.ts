/**
 * The work queue's state and the operations that change it: the mutable record one `make`
 * (workQueue.ts) owns, and module functions over it. `workQueue.ts` states the guarantees; this
 * module keeps them.
 *
 * # Expected flow
 * `add` books a request in the `FairQueue` and offers a token on `signal` when it became ready;
 * `take` waits for a token, pops the next request and marks it processing; `done` ends it and
 * offers a token again when it was added meanwhile. `addAfter` runs one timer fiber per request
 * in `delayed`; `shutdown` fails `signal` (waking every taker) and cancels the timers.
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
import type { ItemBackoff, TokenBucket } from "./backoff.ts"
import type { FairQueue } from "./fairQueue.ts"
import { type forQueue, forQueueCluster } from "./metrics.ts"
import type { WorkObserverShape } from "./observer.ts"
import { type Request, requestKey } from "./request.ts"

/** `take` on a queue that is shut down. */
export class WorkQueueShutDownError extends Data.TaggedError("WorkQueueShutDownError")<{
  readonly queue: string
}> {}

type Series = ReturnType<typeof forQueueCluster>

/** Everything one queue holds; only the functions of this module change it. */
export interface QueueState {
  readonly name: string
  readonly perClusterMetrics: boolean
  readonly observer: WorkObserverShape | undefined
  readonly metrics: ReturnType<typeof forQueue>
  readonly fair: FairQueue
  readonly backoff: ItemBackoff
  readonly bucket: TokenBucket
  /** One token per ready request; takers wait on it. Failing it wakes every taker on shutdown. */
  readonly signal: Queue.Queue<void, WorkQueueShutDownError>
  readonly delayed: FiberMap.FiberMap<string>
  readonly pendingAt: Map<string, number>
  readonly addedAt: Map<string, number>
  readonly startedAt: Map<string, number>
  /** The per-cluster series already made (with `perClusterMetrics`). */
  readonly clusterSeries: Map<string, Series>
  down: boolean
}

/**
 * The series a request is booked in: the queue's, or with `perClusterMetrics` its cluster's
 * instead (never both, so that sums over the series stay right).
 */
const seriesOf = (q: QueueState, request: Request): Series => {
  if (!q.perClusterMetrics) return q.metrics
  let m = q.clusterSeries.get(request.cluster)
  // Stryker disable next-line ConditionalExpression
  if (m === undefined) {
    m = forQueueCluster(q.name, request.cluster)
    // Stryker disable next-line CallExpression
    q.clusterSeries.set(request.cluster, m)
  }
  return m
}

const setDepth = (q: QueueState, request: Request) =>
  Effect.suspend(() =>
    q.perClusterMetrics
      ? Metric.update(seriesOf(q, request).depth, q.fair.clusterLength(request.cluster))
      : Metric.update(q.metrics.depth, q.fair.length),
  )

/** Queues a request now (de-duplicated); ignored after shutdown. */
export const add = (q: QueueState, request: Request): Effect.Effect<void> =>
  Effect.flatMap(Clock.currentTimeMillis, (now) => {
    if (q.down) return Effect.void
    q.observer?.added(q.name, request)
    const outcome = q.fair.add(request)
    if (outcome === "deduplicated") return Effect.void
    // The queue time counts from the first add (client-go's addTimes).
    if (!q.addedAt.has(requestKey(request))) q.addedAt.set(requestKey(request), now)
    // Stryker disable next-line ConditionalExpression
    if (outcome === "queued") Queue.offerUnsafe(q.signal, undefined)
    return Effect.andThen(Metric.update(seriesOf(q, request).adds, 1), setDepth(q, request))
  })

/** Queues a request after `delay`, keeping the earlier timer when one is pending. */
export const addAfter = (q: QueueState, request: Request, delay: Duration.Input): Effect.Effect<void> =>
  Effect.flatMap(Clock.currentTimeMillis, (now) => {
    const ms = Duration.toMillis(Duration.fromInputUnsafe(delay))
    // Stryker disable next-line ConditionalExpression
    if (q.down) return Effect.void
    // Stryker disable next-line ConditionalExpression,EqualityOperator
    if (ms <= 0) return add(q, request)
    const key = requestKey(request)
    const at = now + ms
    const pending = q.pendingAt.get(key)
    // Stryker disable next-line ConditionalExpression,EqualityOperator
    if (pending !== undefined && pending <= at) return Effect.void
    q.pendingAt.set(key, at)
    const fire = Effect.andThen(
      Effect.sleep(ms),
      Effect.suspend(() => {
        q.pendingAt.delete(key)
        return add(q, request)
      }),
    )
    return Effect.asVoid(FiberMap.run(q.delayed, key, fire))
  })

/** Queues a request after the longer of its backoff and its turn in the bucket; counts a retry. */
export const addRateLimited = (q: QueueState, request: Request): Effect.Effect<void> =>
  Effect.flatMap(Clock.currentTimeMillis, (now) => {
    const delay = Math.max(q.backoff.when(requestKey(request)), q.bucket.reserve(now))
    q.observer?.retried?.(q.name, request, delay)
    return Effect.andThen(Metric.update(seriesOf(q, request).retries, 1), addAfter(q, request, delay))
  })

/** Waiting is interruptible; once a token is taken, popping and bookkeeping are not. */
export const take = (q: QueueState): Effect.Effect<Request, WorkQueueShutDownError> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.gen(function* () {
      while (true) {
        yield* restore(Queue.take(q.signal))
        if (q.down) return yield* new WorkQueueShutDownError({ queue: q.name })
        const request = q.fair.pop()
        // Stryker disable next-line ConditionalExpression
        if (request === undefined) continue
        const now = yield* Clock.currentTimeMillis
        const key = requestKey(request)
        // Every request handed out was added, and add records its time.
        const since = q.addedAt.get(key) as number
        q.addedAt.delete(key)
        q.startedAt.set(key, now)
        yield* Metric.update(seriesOf(q, request).queueDuration, (now - since) / 1000)
        yield* setDepth(q, request)
        return request
      }
    }),
  )

/** Ends processing of a request; offers it again when it was added meanwhile. */
export const done = (q: QueueState, request: Request): Effect.Effect<void> =>
  Effect.flatMap(Clock.currentTimeMillis, (now) => {
    const key = requestKey(request)
    const started = q.startedAt.get(key)
    q.startedAt.delete(key)
    const again = q.fair.done(request)
    // Stryker disable next-line ConditionalExpression,LogicalOperator
    if (again && !q.down) Queue.offerUnsafe(q.signal, undefined)
    const observe =
      started === undefined
        ? Effect.void
        : Metric.update(seriesOf(q, request).workDuration, (now - started) / 1000)
    return Effect.andThen(observe, setDepth(q, request))
  })

/** Stops handing out work: fails the signal and cancels pending delays. */
export const shutdown = (q: QueueState): Effect.Effect<void> =>
  Effect.suspend(() => {
    // Stryker disable next-line ConditionalExpression
    if (q.down) return Effect.void
    q.down = true
    return Effect.andThen(
      Queue.fail(q.signal, new WorkQueueShutDownError({ queue: q.name })),
      FiberMap.clear(q.delayed),
    )
  })
