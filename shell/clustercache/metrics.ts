/**
 * The ClusterCache's metrics (seed 000, "Metrics"), under upstream's names and labels.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import type { MetricAction } from "../../core/clustercache/index.ts"

export const connectionUp = Metric.gauge("capi_cluster_cache_connection_up", {
  description: "Whether the connection to the cluster is up (1) or not (0).",
})
export const healthCheck = Metric.gauge("capi_cluster_cache_healthcheck", {
  description: "Whether the last health probe of the cluster succeeded (1) or not (0).",
})
export const healthChecksTotal = Metric.counter("capi_cluster_cache_healthchecks_total", {
  description: "Health probes of the cluster by result.",
  incremental: true,
})

/** Applies a metric action of the tables to the metrics of one cluster. */
export const applyMetric = (
  cluster: { readonly namespace: string; readonly name: string },
  action: MetricAction,
) => {
  const labels = { cluster_name: cluster.name, cluster_namespace: cluster.namespace }
  switch (action._tag) {
    case "SetConnectionUp":
      return Metric.update(connectionUp.pipe(Metric.withAttributes(labels)), action.value)
    case "SetHealthCheck":
      return Metric.update(healthCheck.pipe(Metric.withAttributes(labels)), action.value)
    case "IncHealthChecksTotal":
      return Metric.update(
        healthChecksTotal.pipe(Metric.withAttributes({ ...labels, status: action.status })),
        1,
      )
  }
}

export const applyMetrics = (
  cluster: { readonly namespace: string; readonly name: string },
  actions: ReadonlyArray<{ readonly _tag: string }>,
) =>
  Effect.forEach(
    actions.filter(
      (a): a is MetricAction =>
        a._tag === "SetConnectionUp" || a._tag === "SetHealthCheck" || a._tag === "IncHealthChecksTotal",
    ),
    (a) => applyMetric(cluster, a),
    { discard: true },
  )

/**
 * Removes every series of a cluster: once its Cluster is deleted (the accessor is deleted, seed
 * 000 ClusterCache Reconciler row 2) `capi_cluster_cache_connection_up 0` would otherwise stay
 * for ever, and alerts on it would never clear.
 */
export const removeClusterMetrics = (cluster: { readonly namespace: string; readonly name: string }) => {
  const labels = { cluster_name: cluster.name, cluster_namespace: cluster.namespace }
  return Effect.all(
    [
      Metric.remove(connectionUp.pipe(Metric.withAttributes(labels))),
      Metric.remove(healthCheck.pipe(Metric.withAttributes(labels))),
      Metric.remove(healthChecksTotal.pipe(Metric.withAttributes({ ...labels, status: "success" }))),
      Metric.remove(healthChecksTotal.pipe(Metric.withAttributes({ ...labels, status: "error" }))),
    ],
    { discard: true },
  )
}
