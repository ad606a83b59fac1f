/**
 * `Controller`: runs a reconcile function over a work queue fed by sources, like
 * controller-runtime's controller.
 *
 * # Expected flow
 * `make` a controller, `watch` its sources (reflector handlers, owner mapping, map functions,
 * streams), wait for the reflectors to sync, then `start` it: `maxConcurrentReconciles` workers
 * (default 1) take requests, one worker per request at a time, round-robin across clusters.
 *
 * # Guarantees
 * - After a reconcile: failure → `addRateLimited` (5 ms … 1000 s per request); `TerminalError`
 *   → logged and forgotten; `requeueAfter` → `forget` + `addAfter`; `requeue` →
 *   `addRateLimited`; success → `forget`. Defects count as failures.
 * - Logs are annotated with `controller`, `request` (`cluster://…`), `cluster`, `namespace`,
 *   `name`, `reconcileID`, and `row` when the reconcile names the KRTT row that decided.
 * - Metrics `controller_runtime_reconcile_total{controller,result}`,
 *   `…_reconcile_errors_total`, `…_reconcile_time_seconds`, `…_active_workers`.
 * - Graceful stop: when the scope of `start` closes, the queue stops handing out work and the
 *   in-flight reconciles finish (up to `gracefulShutdownTimeout`, default 30 s, then they are
 *   interrupted).
 *
 * @module
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import type * as Scope from "effect/Scope"
import type { BackoffOptions, BucketOptions } from "../workqueue/backoff.ts"
import { WorkObserver } from "../workqueue/observer.ts"
import type { Request } from "../workqueue/request.ts"
import { runWorkers } from "../workqueue/workers.ts"
import { make as makeQueue, type WorkQueue } from "../workqueue/workQueue.ts"
import { forController, initialize as initializeMetrics } from "./metrics.ts"
import { type ControllerState, handle } from "./reconcileOne.ts"
import type { ReconcileResult } from "./result.ts"
import type { Source } from "./source.ts"

/** A controller's options; every field but `name` and `reconcile` has a default. */
export interface ControllerOptions<E, R> extends Partial<BackoffOptions> {
  /** Names the controller in logs and metrics (and its queue, when it makes one). */
  readonly name: string
  /** Reconciles one request. */
  readonly reconcile: (request: Request) => Effect.Effect<ReconcileResult, E, R>
  /** Workers. Default 1 (controller-runtime's MaxConcurrentReconciles). */
  readonly maxConcurrentReconciles?: number | undefined
  /** A queue to use; default: a new queue named after the controller, with the backoff options. */
  readonly queue?: WorkQueue | undefined
  /**
   * The token bucket its new queue's retries share. Default 10 qps, burst 100 (`BucketDefaults`,
   * client-go's). Not used with `queue`.
   */
  readonly bucket?: Partial<BucketOptions> | undefined
  /** How long a stop waits for in-flight reconciles. Default 30 s (controller-runtime's). */
  readonly gracefulShutdownTimeout?: Duration.Input | undefined
  /**
   * Record the reconcile metrics per cluster (labels `controller` and `cluster`) instead of per
   * controller only, for a multi-cluster controller. Default false. Active and max workers stay
   * per controller.
   */
  readonly perClusterMetrics?: boolean | undefined
  /**
   * The kind the controller reconciles, for its logs: each reconcile's entries then carry
   * `controllerGroup`, `controllerKind` and the object under its kind's name
   * (`"Cluster":{"name","namespace"}`), as controller-runtime's do.
   */
  readonly forKind?: { readonly group: string; readonly kind: string } | undefined
}

/** controller-runtime's defaults. */
export const ControllerDefaults = {
  maxConcurrentReconciles: 1,
  gracefulShutdownTimeout: "30 seconds",
} as const

/** A controller. */
export interface Controller<R> {
  readonly name: string
  readonly queue: WorkQueue
  /** Adds a request now. */
  readonly enqueue: (request: Request) => Effect.Effect<void>
  /** Starts a source feeding this controller until the scope closes. */
  readonly watch: (source: Source) => Effect.Effect<void, never, Scope.Scope>
  /** Starts the workers until the scope closes (then stops gracefully). Call once. */
  readonly start: Effect.Effect<void, never, Scope.Scope | R>
  /** Reconciles running now. */
  readonly activeWorkers: Effect.Effect<number>
}

/**
 * Starts `concurrency` workers until the scope closes; then shuts the queue and waits up to
 * `grace` for the in-flight reconciles before interrupting them.
 */
const startWorkers = <E, R>(
  s: ControllerState<E, R>,
  concurrency: number,
  grace: Duration.Input,
): Effect.Effect<void, never, Scope.Scope | R> =>
  Effect.gen(function* () {
    const { name, queue } = s
    yield* initializeMetrics(name, concurrency)
    yield* Effect.logInfo("Starting workers").pipe(
      Effect.annotateLogs({ controller: name, workerCount: concurrency }),
    )
    const workers = yield* Effect.forkScoped(runWorkers(queue, concurrency, (request) => handle(s, request)))
    yield* Effect.addFinalizer(() =>
      Effect.gen(function* () {
        yield* Effect.logInfo("Stopping workers; waiting for in-flight reconciles").pipe(
          Effect.annotateLogs({ controller: name }),
        )
        yield* queue.shutdown
        const finished = yield* Effect.timeoutOption(Fiber.await(workers), grace)
        if (finished._tag === "None") {
          yield* Effect.logWarning("In-flight reconciles did not finish in time; interrupting").pipe(
            Effect.annotateLogs({
              controller: name,
              timeoutMs: Duration.toMillis(Duration.fromInputUnsafe(grace)),
            }),
          )
          yield* Fiber.interrupt(workers)
        }
      }),
    )
  })

/** Makes a controller (its queue lives until the scope closes). */
export const make = <E, R>(
  options: ControllerOptions<E, R>,
): Effect.Effect<Controller<R>, never, Scope.Scope> =>
  Effect.gen(function* () {
    const { name } = options
    const queue = options.queue ?? (yield* makeQueue({ ...options, name }))
    const concurrency = Math.max(
      1,
      options.maxConcurrentReconciles ?? ControllerDefaults.maxConcurrentReconciles,
    )
    const grace = options.gracefulShutdownTimeout ?? ControllerDefaults.gracefulShutdownTimeout
    const s: ControllerState<E, R> = {
      name,
      forKind: options.forKind,
      reconcile: options.reconcile,
      perClusterMetrics: options.perClusterMetrics === true,
      queue,
      metrics: forController(name),
      observer: yield* WorkObserver,
      clusterSeries: new Map(),
      active: 0,
      serial: 0,
    }
    return {
      name,
      queue,
      enqueue: queue.add,
      watch: (source) =>
        Effect.andThen(
          source.start(queue.add),
          Effect.logDebug("Source started").pipe(
            Effect.annotateLogs({ controller: name, source: source.description }),
          ),
        ),
      start: startWorkers(s, concurrency, grace),
      activeWorkers: Effect.sync(() => s.active),
    }
  })
