/**
 * The work queue's Prometheus metrics, with client-go's names, label `name` (the controller's
 * name) and buckets (seconds, 10 ns … 1000 s by factors of 10).
 *
 * @module
 */
import * as Metric from "effect/Metric"

const durationBuckets = Metric.exponentialBoundaries({ start: 1e-8, factor: 10, count: 12 })

/** Ready items waiting in the queue. */
export const depth = Metric.gauge("workqueue_depth", { description: "Current depth of workqueue" })

/** Items added (de-duplicated adds do not count). */
export const adds = Metric.counter("workqueue_adds_total", {
  description: "Total number of adds handled by workqueue",
  incremental: true,
})

/** Seconds an item waited in the queue before a worker took it. */
export const queueDuration = Metric.histogram("workqueue_queue_duration_seconds", {
  description: "How long in seconds an item stays in workqueue before being requested",
  boundaries: durationBuckets,
})

/** Seconds a worker spent on an item (take to done). */
export const workDuration = Metric.histogram("workqueue_work_duration_seconds", {
  description: "How long in seconds processing an item from workqueue takes",
  boundaries: durationBuckets,
})

/** Rate-limited re-adds. */
export const retries = Metric.counter("workqueue_retries_total", {
  description: "Total number of retries handled by workqueue",
  incremental: true,
})

/** The metrics of one queue, labelled with its name. */
export const forQueue = (name: string) => {
  const label = Metric.withAttributes({ name })
  return {
    depth: label(depth),
    adds: label(adds),
    queueDuration: label(queueDuration),
    workDuration: label(workDuration),
    retries: label(retries),
  }
}

/** The metrics of one queue for one cluster's requests: labels `name` and `cluster` (multi-cluster controllers). */
export const forQueueCluster = (name: string, cluster: string) => {
  const label = Metric.withAttributes({ name, cluster })
  return {
    depth: label(depth),
    adds: label(adds),
    queueDuration: label(queueDuration),
    workDuration: label(workDuration),
    retries: label(retries),
  }
}
