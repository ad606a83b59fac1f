/**
 * `krtt inventory`'s metrics: the table's decisions by row, the clusters in the ConfigMap by
 * state, the ConfigMap's writes by result.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import { entryKey } from "../../../core/inventory/index.ts"
import { storedCluster } from "./observe.ts"

/** Decisions of `inventory.entry` that asked for something, by row. */
export const inventoryDecisions = Metric.counter("krtt_inventory_decisions_total", {
  description:
    "Decisions of the inventory table that asked for an action, by documented row (inventory.entry#n).",
  incremental: true,
})
/** Clusters in the ConfigMap after the last reconcile, by `state` (`reachable`, `unreachable`). */
export const inventoryClusters = Metric.gauge("krtt_inventory_clusters", {
  description: "Clusters in the krtt-inventory ConfigMap after the last reconcile, by state.",
})
/** Writes of the ConfigMap, by `result` (`written`, `conflict`). */
export const inventoryWrites = Metric.counter("krtt_inventory_writes_total", {
  description:
    "Writes of the krtt-inventory ConfigMap, by result (written, conflict: read and decided again).",
  incremental: true,
})

/** Counts the clusters of the ConfigMap's data by reachability into `inventoryClusters`. */
export const countClusters = (data: Readonly<Record<string, string>>): Effect.Effect<void> =>
  Effect.gen(function* () {
    let reachable = 0
    let unreachable = 0
    for (const [key, value] of Object.entries(data)) {
      const named = storedCluster(value)
      if (named === undefined || entryKey(named) !== key) continue
      if ((JSON.parse(value) as { reachable?: unknown }).reachable === true) reachable++
      else unreachable++
    }
    yield* Metric.update(inventoryClusters.pipe(Metric.withAttributes({ state: "reachable" })), reachable)
    yield* Metric.update(inventoryClusters.pipe(Metric.withAttributes({ state: "unreachable" })), unreachable)
  })
