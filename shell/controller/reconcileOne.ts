/**
 * One reconcile of a controller (controller.ts): run the reconcile function for a request, then
 * book its outcome: the requeue decision, the metrics and the log.
 *
 * # Expected flow
 * `handle` counts the worker active, runs the reconcile, counts it inactive and records its time,
 * then `settle`s the exit: success → `forget`, `requeueAfter` → `forget` + `addAfter`, `requeue`
 * → `addRateLimited`; failure → `addRateLimited`, or `forget` for a `TerminalError`; an
 * interruption books nothing.
 *
 * # Guarantees
 * - Every log of the reconcile carries `controller`, `request`, `cluster`, `namespace`, `name`,
 *   `reconcileID` and, when the outcome names one, the KRTT `row`.
 *
 * @module
 */
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Metric from "effect/Metric"
import type { WorkObserverShape } from "../workqueue/observer.ts"
import { formatRequest, type Request } from "../workqueue/request.ts"
import type { WorkQueue } from "../workqueue/workQueue.ts"
import { type forController, forControllerCluster } from "./metrics.ts"
import { type ReconcileResult, type ResultLabel, requeueAfterMillis, rowOf, TerminalError } from "./result.ts"

type Series = ReturnType<typeof forControllerCluster>

/** What one controller holds while it runs; only this module and controller.ts change it. */
export interface ControllerState<E, R> {
  readonly name: string
  readonly forKind: { readonly group: string; readonly kind: string } | undefined
  readonly reconcile: (request: Request) => Effect.Effect<ReconcileResult, E, R>
  readonly perClusterMetrics: boolean
  readonly queue: WorkQueue
  readonly metrics: ReturnType<typeof forController>
  readonly observer: WorkObserverShape | undefined
  /** The per-cluster series already made (with `perClusterMetrics`). */
  readonly clusterSeries: Map<string, Series>
  /** Reconciles running now. */
  active: number
  /** The last reconcile's number, for `reconcileID`. */
  serial: number
}

/**
 * The series a request's outcome is booked in: the controller's, or with `perClusterMetrics`
 * its cluster's instead (never both, so that sums over the series stay right).
 */
const seriesOf = <E, R>(s: ControllerState<E, R>, request: Request): Series => {
  if (!s.perClusterMetrics) return s.metrics
  let m = s.clusterSeries.get(request.cluster)
  if (m === undefined) {
    m = forControllerCluster(s.name, request.cluster)
    s.clusterSeries.set(request.cluster, m)
  }
  return m
}

const withRow =
  (row: string | undefined) =>
  <A, E2, R2>(effect: Effect.Effect<A, E2, R2>): Effect.Effect<A, E2, R2> =>
    row === undefined ? effect : Effect.annotateLogs(effect, { row })

/** Books a reconcile that returned a result. */
const settleResult = <E, R>(
  s: ControllerState<E, R>,
  request: Request,
  result: ReconcileResult,
): Effect.Effect<void> => {
  const { queue } = s
  const after = requeueAfterMillis(result)
  const label: ResultLabel = after > 0 ? "requeue_after" : result.requeue ? "requeue" : "success"
  s.observer?.booked?.(queue.name, request, label)
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
  return Effect.all([requeue, Metric.update(seriesOf(s, request).total(label), 1), log], {
    discard: true,
  }).pipe(withRow(result.row))
}

/** Books a reconcile that failed (or died); an interrupted one books nothing. */
const settleFailure = <E, R>(
  s: ControllerState<E, R>,
  request: Request,
  cause: Cause.Cause<E>,
): Effect.Effect<void> => {
  if (Cause.hasInterruptsOnly(cause)) return Effect.void
  const error = cause.reasons.find(Cause.isFailReason)?.error
  const terminal = error instanceof TerminalError
  const series = seriesOf(s, request)
  s.observer?.booked?.(s.queue.name, request, terminal ? "terminal" : "error")
  return Effect.all(
    [
      terminal ? s.queue.forget(request) : s.queue.addRateLimited(request),
      Metric.update(series.total("error"), 1),
      Metric.update(series.errors, 1),
      terminal ? Metric.update(series.terminal, 1) : Effect.void,
      Effect.logError("Reconciler error").pipe(Effect.annotateLogs({ terminal, error: Cause.pretty(cause) })),
    ],
    { discard: true },
  ).pipe(withRow(rowOf(error)))
}

/** Books the outcome: requeue decision, metrics, log. */
const settle = <E, R>(
  s: ControllerState<E, R>,
  request: Request,
  exit: Exit.Exit<ReconcileResult, E>,
): Effect.Effect<void> =>
  Exit.isSuccess(exit) ? settleResult(s, request, exit.value) : settleFailure(s, request, exit.cause)

/** The log annotations of one reconcile (and a fresh `reconcileID`). */
const annotations = <E, R>(s: ControllerState<E, R>, request: Request): Record<string, unknown> => ({
  controller: s.name,
  ...(s.forKind === undefined
    ? {}
    : {
        controllerGroup: s.forKind.group,
        controllerKind: s.forKind.kind,
        [s.forKind.kind]: { name: request.name, namespace: request.namespace },
      }),
  request: formatRequest(request),
  cluster: request.cluster,
  namespace: request.namespace,
  name: request.name,
  reconcileID: `${s.name}-${++s.serial}`,
})

/** Reconciles one request taken from the queue and books its outcome. */
export const handle = <E, R>(s: ControllerState<E, R>, request: Request): Effect.Effect<void, never, R> =>
  Effect.gen(function* () {
    const started = yield* Clock.currentTimeMillis
    const exit = yield* Effect.acquireUseRelease(
      Effect.suspend(() => {
        s.observer?.started(s.queue.name, request)
        return Metric.update(s.metrics.active, ++s.active)
      }),
      () => Effect.exit(Effect.suspend(() => s.reconcile(request))),
      () =>
        Effect.gen(function* () {
          s.observer?.finished(s.queue.name, request)
          yield* Metric.update(s.metrics.active, --s.active)
          yield* Metric.update(seriesOf(s, request).time, ((yield* Clock.currentTimeMillis) - started) / 1000)
        }),
    )
    yield* settle(s, request, exit)
  }).pipe(Effect.annotateLogs(annotations(s, request)))
