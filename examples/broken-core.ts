/**
 * Uses the fleet simulator as a library: a custom configuration, a scenario, and a deliberately
 * broken ClusterCache core (its Reconciler ignores the 30 s retry interval after a failed
 * connect). The `retry-interval` invariant catches it, naming the Cluster, the virtual time and
 * the rows that decided; the unmodified core runs the same fleet without a violation.
 *
 * Run it: `node examples/broken-core.ts`
 */
import { clustercache, formatViolation, type SimCores, Simulation, simConfig } from "krtt/sim"

/** The Reconciler with row 5 ("not connected, recent error: wait") replaced by an immediate connect. */
export const impatientReconciler: SimCores["reconciler"] = (input, config) => {
  const r = clustercache.reconcilerTransition(input, config)
  if (r.row !== "clustercache.reconciler#5") return r
  return {
    actions: [{ _tag: "Connect" }],
    status: { ...r.status, done: false },
    row: "clustercache.reconciler#4",
  }
}

export const config = simConfig({
  clusters: 25,
  hours: 1,
  seed: 42,
  // An outage of five minutes on the first ten clusters, forty minutes in.
  scenario: [{ at: 40 * 60_000, clusters: [[0, 9]], incident: "apiserver-down", for: 5 * 60_000 }],
})

/** Runs the fleet with the broken core and with the real one. */
export const compare = () => {
  const broken = new Simulation({ config, cores: { reconciler: impatientReconciler } }).runToEnd()
  const real = new Simulation({ config }).runToEnd()
  return { broken, real }
}

if (import.meta.main) {
  const { broken, real } = compare()
  console.log(`broken core: ${broken.violations.counts["retry-interval"]} retry-interval violations, e.g.`)
  for (const v of broken.violations.examples.slice(0, 3)) console.log(`  ${formatViolation(v)}`)
  console.log(`real core: ${real.violations.total} violations; trace ${real.traceHash}`)
}
