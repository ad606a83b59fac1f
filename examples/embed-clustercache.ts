/**
 * Embeds the ClusterCache core in a simulation of one's own, without the fleet simulator: three
 * workload clusters, a virtual clock, an event queue, and an API server per cluster that a
 * script takes down and brings back. Each reconcile runs the documented tables through the
 * core's synchronous driver; the program prints the rows that decided and what happened.
 *
 * Run it: `node examples/embed-clustercache.ts`
 */
import { clustercache, EventQueue } from "krtt/sim"

interface Cluster {
  readonly name: string
  accessor: clustercache.AccessorState | undefined
  up: boolean
  /** When the pending reconcile is due; requeues coalesce into the earliest. */
  due: number
}

const START = Date.UTC(2025, 0, 1)
const s = (seconds: number) => seconds * 1_000

/** Runs five virtual minutes; returns the log lines. */
export const simulate = (): Array<string> => {
  const log: Array<string> = []
  const clusters: Array<Cluster> = ["alpha", "beta", "gamma"].map((name) => ({
    name,
    accessor: undefined,
    up: true,
    due: Number.POSITIVE_INFINITY,
  }))
  const queue = new EventQueue()
  let seq = 0
  const RECONCILE = 0
  const TOGGLE = 1
  const at = (t: number, cluster: number, kind: number) => queue.push(t, cluster * 2 ** 32 + seq++, kind)
  const reconcileAt = (t: number, i: number) => {
    const c = clusters[i] as Cluster
    if (t < c.due) {
      c.due = t
      at(t, i, RECONCILE)
    }
  }
  clusters.forEach((_, i) => {
    reconcileAt(0, i)
  })
  // beta's API server goes down at 60 s and comes back at 180 s.
  at(s(60), 1, TOGGLE)
  at(s(180), 1, TOGGLE)
  const desired: clustercache.ReconcilerDesired = {
    cluster: { _tag: "Found", infrastructureProvisioned: true, deleting: false },
    sources: [{ name: "machine", probeFailureDurations: [] }],
  }
  while (queue.size > 0 && queue.peekTime() <= s(300)) {
    const t = queue.peekTime()
    const i = Math.floor(queue.peekOrder() / 2 ** 32)
    const kind = queue.peekPayload()
    queue.pop()
    const c = clusters[i] as Cluster
    if (kind === TOGGLE) {
      c.up = !c.up
      log.push(`${t / 1000}s ${c.name}: API server ${c.up ? "back" : "down"}`)
      continue
    }
    if (c.due !== t) continue
    c.due = Number.POSITIVE_INFINITY
    // The world answers the I/O the tables ask for, at once.
    const world: clustercache.SyncWorld = {
      connect: () =>
        c.up ? { ok: true } : { ok: false, step: "createConnection", error: "connection refused" },
      probe: () => (c.up ? "success" : "failure"),
    }
    const run = clustercache.runReconcile(c.accessor, desired, START + t, world)
    c.accessor = run.accessor
    if (run.probe !== "success" || run.connected || run.disconnected || run.connectAttempt !== "none")
      log.push(
        `${t / 1000}s ${c.name}: ${run.rows.join(" ")}${run.connected ? " -> connected" : ""}${run.disconnected ? " -> disconnected" : ""}${run.requeueAfter === undefined ? "" : ` (requeue ${run.requeueAfter / 1000}s)`}`,
      )
    if (run.requeueAfter !== undefined) reconcileAt(t + run.requeueAfter, i)
  }
  return log
}

if (import.meta.main) for (const line of simulate()) console.log(line)
