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
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Metric from "effect/Metric"
import type * as Scope from "effect/Scope"
import type { BackoffOptions } from "../workqueue/backoff.ts"
import { WorkObserver } from "../workqueue/observer.ts"
import { formatRequest, type Request } from "../workqueue/request.ts"
import { runWorkers } from "../workqueue/workers.ts"
import { make as makeQueue, type WorkQueue } from "../workqueue/workQueue.ts"
import { forController, forControllerCluster, initialize as initializeMetrics } from "./metrics.ts"
import { type ReconcileResult, type ResultLabel, requeueAfterMillis, rowOf, TerminalError } from "./result.ts"
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

/** Makes a controller (its queue lives until the scope closes). */
export const make = <E, R>(
  options: ControllerOptions<E, R>,
): Effect.Effect<Controller<R>, never, Scope.Scope> =>
  Effect.gen(function* () {
    const { name, forKind } = options
    const queue = options.queue ?? (yield* makeQueue({ ...options, name }))
    const concurrency = Math.max(
      1,
      options.maxConcurrentReconciles ?? ControllerDefaults.maxConcurrentReconciles,
    )
    const grace = options.gracefulShutdownTimeout ?? ControllerDefaults.gracefulShutdownTimeout
    const metrics = forController(name)
    const observer = yield* WorkObserver
    let active = 0
    let serial = 0
    /**
     * The series a request's outcome is booked in: the controller's, or with `perClusterMetrics`
     * its cluster's instead (never both, so that sums over the series stay right).
     */
    const clusterSeries = new Map<string, ReturnType<typeof forControllerCluster>>()
    const seriesOf = (request: Request): ReturnType<typeof forControllerCluster> => {
      if (options.perClusterMetrics !== true) return metrics
      let m = clusterSeries.get(request.cluster)
      if (m === undefined) {
        m = forControllerCluster(name, request.cluster)
        clusterSeries.set(request.cluster, m)
      }
      return m
    }

    /** Books the outcome: requeue decision, metrics, log. */
    const settle = (request: Request, exit: Exit.Exit<ReconcileResult, E>): Effect.Effect<void> => {
      if (Exit.isSuccess(exit)) {
        const result = exit.value
        const after = requeueAfterMillis(result)
        const label: ResultLabel = after > 0 ? "requeue_after" : result.requeue ? "requeue" : "success"
        const requeue =
          after > 0
            ? Effect.andThen(queue.forget(request), queue.addAfter(request, after))
            : result.requeue
              ? queue.addRateLimited(request)
              : queue.forget(request)
        const log = Effect.logDebug("Reconcile done").pipe(
          Effect.annotateLogs({
            result: label,
            ...(after > 0 ? { requeueAfterMs: after } : {}),
          }),
        )
        return Effect.all([requeue, Metric.update(seriesOf(request).total(label), 1), log], {
          discard: true,
        }).pipe(result.row === undefined ? (e) => e : Effect.annotateLogs({ row: result.row }))
      }
      if (Cause.hasInterruptsOnly(exit.cause)) return Effect.void
      const error = exit.cause.reasons.find(Cause.isFailReason)?.error
      const terminal = error instanceof TerminalError
      const row = rowOf(error)
      const series = seriesOf(request)
      return Effect.all(
        [
          terminal ? queue.forget(request) : queue.addRateLimited(request),
          Metric.update(series.total("error"), 1),
          Metric.update(series.errors, 1),
          terminal ? Metric.update(series.terminal, 1) : Effect.void,
          Effect.logError("Reconciler error").pipe(
            Effect.annotateLogs({ terminal, error: Cause.pretty(exit.cause) }),
          ),
        ],
        { discard: true },
      ).pipe(row === undefined ? (e) => e : Effect.annotateLogs({ row }))
    }

    const handle = (request: Request): Effect.Effect<void, never, R> =>
      Effect.gen(function* () {
        const started = yield* Clock.currentTimeMillis
        const exit = yield* Effect.acquireUseRelease(
          Effect.suspend(() => {
            observer?.started(queue.name, request)
            return Metric.update(metrics.active, ++active)
          }),
          () => Effect.exit(Effect.suspend(() => options.reconcile(request))),
          () =>
            Effect.gen(function* () {
              observer?.finished(queue.name, request)
              yield* Metric.update(metrics.active, --active)
              yield* Metric.update(
                seriesOf(request).time,
                ((yield* Clock.currentTimeMillis) - started) / 1000,
              )
            }),
        )
        yield* settle(request, exit)
      }).pipe(
        Effect.annotateLogs({
          controller: name,
          ...(forKind === undefined
            ? {}
            : {
                controllerGroup: forKind.group,
                controllerKind: forKind.kind,
                [forKind.kind]: { name: request.name, namespace: request.namespace },
              }),
          request: formatRequest(request),
          cluster: request.cluster,
          namespace: request.namespace,
          name: request.name,
          reconcileID: `${name}-${++serial}`,
        }),
      )

    const start: Effect.Effect<void, never, Scope.Scope | R> = Effect.gen(function* () {
      yield* initializeMetrics(name, concurrency)
      yield* Effect.logInfo("Starting workers").pipe(
        Effect.annotateLogs({ controller: name, workerCount: concurrency }),
      )
      const workers = yield* Effect.forkScoped(runWorkers(queue, concurrency, handle))
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
      start,
      activeWorkers: Effect.sync(() => active),
    }
  })
