/**
 * The controller's Prometheus metrics, with controller-runtime's names, labels and buckets.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import type { ResultLabel } from "./result.ts"

/** Reconciles by controller and result (`success`, `error`, `requeue`, `requeue_after`). */
export const reconcileTotal = Metric.counter("controller_runtime_reconcile_total", {
  description: "Total number of reconciliations per controller",
  incremental: true,
})

/** Failed reconciles by controller. */
export const reconcileErrors = Metric.counter("controller_runtime_reconcile_errors_total", {
  description: "Total number of reconciliation errors per controller",
  incremental: true,
})

/** Failed reconciles that will not be retried, by controller. */
export const terminalErrors = Metric.counter("controller_runtime_terminal_reconcile_errors_total", {
  description: "Total number of terminal reconciliation errors per controller",
  incremental: true,
})

/** controller-runtime's buckets for reconcile time, in seconds. */
export const reconcileTimeBuckets: ReadonlyArray<number> = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.25,
  1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
]

/** Seconds per reconcile, by controller. */
export const reconcileTime = Metric.histogram("controller_runtime_reconcile_time_seconds", {
  description: "Length of time per reconciliation per controller",
  boundaries: Metric.boundariesFromIterable(reconcileTimeBuckets),
})

/** Workers reconciling right now, by controller. */
export const activeWorkers = Metric.gauge("controller_runtime_active_workers", {
  description: "Number of currently used workers per controller",
})

/** The configured concurrency, by controller. */
export const maxConcurrentReconciles = Metric.gauge("controller_runtime_max_concurrent_reconciles", {
  description: "Maximum number of concurrent reconciles per controller",
})

/** The metrics of one controller, labelled `controller`. */
export const forController = (controller: string) => {
  const label = Metric.withAttributes({ controller })
  return {
    total: (result: ResultLabel) => reconcileTotal.pipe(Metric.withAttributes({ controller, result })),
    errors: label(reconcileErrors),
    terminal: label(terminalErrors),
    time: label(reconcileTime),
    active: label(activeWorkers),
    max: label(maxConcurrentReconciles),
  }
}

/** The metrics of one controller for one cluster's requests: labels `controller` and `cluster` (multi-cluster controllers). */
export const forControllerCluster = (controller: string, cluster: string) => {
  const label = Metric.withAttributes({ controller, cluster })
  return {
    total: (result: ResultLabel) =>
      reconcileTotal.pipe(Metric.withAttributes({ controller, cluster, result })),
    errors: label(reconcileErrors),
    terminal: label(terminalErrors),
    time: label(reconcileTime),
  }
}

const RESULTS: ReadonlyArray<ResultLabel> = ["success", "error", "requeue", "requeue_after"]

/**
 * A starting controller's series, as controller-runtime sets them before its workers start:
 * every result count and both error counts at zero, no worker active, the concurrency. A
 * dashboard or an alert on errors then sees a controller that has not failed yet, not none.
 */
export const initialize = (controller: string, concurrency: number): Effect.Effect<void> => {
  const m = forController(controller)
  return Effect.all(
    [
      ...RESULTS.map((r) => Metric.update(m.total(r), 0)),
      Metric.update(m.errors, 0),
      Metric.update(m.terminal, 0),
      Metric.update(m.active, 0),
      Metric.update(m.max, concurrency),
    ],
    { discard: true },
  )
}
