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
 *   `WorkQueueShutDownError`; adds are ignored; `done` still works for requests in flight. Closing
 *   the queue's scope shuts it down and cancels pending delays.
 * - Metrics `workqueue_*` labelled `name`.
 *
 * @module
 */
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FiberMap from "effect/FiberMap"
import * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"
import { type BackoffOptions, type BucketOptions, ItemBackoff, TokenBucket } from "./backoff.ts"
import { FairQueue } from "./fairQueue.ts"
import { forQueue } from "./metrics.ts"
import { WorkObserver } from "./observer.ts"
import * as Q from "./queueState.ts"
import { WorkQueueShutDownError } from "./queueState.ts"
import { type Request, requestKey } from "./request.ts"

export { WorkQueueShutDownError }

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
  readonly take: Effect.Effect<Request, WorkQueueShutDownError>
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
    const q: Q.QueueState = {
      name: options.name,
      perClusterMetrics: options.perClusterMetrics === true,
      observer: yield* WorkObserver,
      metrics: forQueue(options.name),
      fair: new FairQueue(),
      backoff: new ItemBackoff(options),
      bucket: new TokenBucket(options.bucket),
      signal: yield* Queue.unbounded<void, WorkQueueShutDownError>(),
      delayed: yield* FiberMap.make<string>(),
      pendingAt: new Map(),
      addedAt: new Map(),
      startedAt: new Map(),
      clusterSeries: new Map(),
      down: false,
    }
    yield* Effect.addFinalizer(() => Q.shutdown(q))
    return {
      name: q.name,
      add: (request) => Q.add(q, request),
      addAfter: (request, delay) => Q.addAfter(q, request, delay),
      addRateLimited: (request) => Q.addRateLimited(q, request),
      forget: (request) => Effect.sync(() => q.backoff.forget(requestKey(request))),
      numRequeues: (request) => Effect.sync(() => q.backoff.retries(requestKey(request))),
      take: Q.take(q),
      done: (request) => Q.done(q, request),
      length: Effect.sync(() => q.fair.length),
      processing: Effect.sync(() => q.fair.processingCount),
      shutdown: Q.shutdown(q),
      isShutDown: Effect.sync(() => q.down),
    }
  })
