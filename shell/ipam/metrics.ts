/**
 * The IPAM controller's metrics: allocated and free addresses per parent CIDR, and how many
 * times each documented row decided.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import type { ParentUsage } from "../../core/ipam/index.ts"

export const allocatedAddresses = Metric.gauge("krtt_ipam_allocated_addresses", {
  description: "Addresses of a parent CIDR allocated to Clusters (directly sliced from it).",
})
export const freeAddresses = Metric.gauge("krtt_ipam_free_addresses", {
  description: "Addresses of a parent CIDR still free.",
})
export const decisions = Metric.counter("krtt_ipam_decisions_total", {
  description: "Decisions of the IPAM controller by documented row (ipam.trigger#n, ipam.reconcile#n).",
  incremental: true,
})
export const stateRestores = Metric.counter("krtt_ipam_state_restores_total", {
  description: "Times the allocator state was rebuilt from the cluster (start and refresh cycles).",
  incremental: true,
})

/** Sets the per-parent gauges (IPv6 sizes beyond 2^53 are rounded). */
export const recordUsage = (usage: ReadonlyArray<ParentUsage>): Effect.Effect<void> =>
  Effect.forEach(
    usage,
    (u) =>
      Effect.andThen(
        Metric.update(
          allocatedAddresses.pipe(Metric.withAttributes({ parent: u.parent })),
          Number(u.allocated),
        ),
        Metric.update(freeAddresses.pipe(Metric.withAttributes({ parent: u.parent })), Number(u.free)),
      ),
    { discard: true },
  )

/** Counts one decision of a row. */
export const recordDecision = (row: string): Effect.Effect<void> =>
  Metric.update(decisions.pipe(Metric.withAttributes({ row })), 1)
