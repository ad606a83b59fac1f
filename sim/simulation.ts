/**
 * The simulation: a fleet of Cluster slots in a discrete-event world with a virtual clock. It
 * plays the part the shell plays for real: it feeds each controller's table what the world looks
 * like and `now`, and applies the actions to the world, requeues becoming timers in its event
 * queue. Nothing waits for real time; a day of a large fleet runs in seconds.
 *
 * Expected flow of one slot: a Cluster is created with its InfraCluster, control plane and
 * MachineDeployments; the Cluster controller adds its finalizer, adopts the provider objects and
 * follows their progress into `Provisioned`; the ClusterCache connects once the infrastructure is
 * provisioned (failing, and retrying every 30 s, until the control plane serves) and probes the
 * workload API server every 10 s. Faults strike at random (outages, slow periods, credential
 * rotations) or as a scenario says; the controllers handle them as their tables say, and the
 * invariants (`invariants.ts`) are checked at every step. Deletions arrive over time; the Cluster
 * controller deletes in the documented order, the ClusterCache drops the accessor, and the slot
 * gets a new Cluster a while later.
 *
 * Assumptions: the controllers' work queues have no latency (a reconcile runs at the instant it
 * is due) and coalesce a request with a pending one, the earliest time winning; one reconcile per
 * Cluster and controller at a time (a request during a reconcile waits for its end); management
 * API calls succeed at once; a Connect() or a probe takes virtual time only when the API server
 * is slow or a connection succeeds (cache sync), and its outcome is decided when it starts; the
 * cores keep no reference to their input (the simulation reuses input objects).
 *
 * Guarantees: slots do not interact, and each slot draws from its own random stream and orders
 * its events by its own counter, so a slot's history depends only on the seed, the configuration
 * and its index: a run is reproducible byte for byte, and the fleet can be split between workers
 * without changing the trace.
 *
 * Caveat (performance): with thousands of slots every reconcile finds its slot's state out of the
 * CPU caches, so what each ClusterCache reconcile reads and writes besides the accessor is kept in
 * one cache line per slot (`hot`), and the slot object is only touched on the rarer paths.
 *
 * @module
 */

import type { ClusterAction, ClusterInput, ClusterStatus, ClusterTrigger } from "../core/cluster/index.ts"
import type { RowId } from "../core/krtt/index.ts"
import { ClusterCacheSimulation } from "./clustercache.ts"
import { ARG_MASK, Ev, W } from "./engine.ts"
import { observeCluster } from "./observeCluster.ts"
import { recordTimeToProvisioned } from "./stats.ts"
import { RecordKind, rowCode, UNKNOWN_ROW } from "./trace.ts"
import { deepEqual, type Slot } from "./world.ts"

export { CLUSTER_SOURCE, type SimResult, type SimulationOptions } from "./engine.ts"

const CLUSTER_RECONCILE: ClusterTrigger = { _tag: "Reconcile" }

/**
 * A simulated fleet: the world of `engine.ts`, the ClusterCache of `clustercache.ts`, and here the
 * Cluster controller: one reconcile of `core/cluster` on what the world shows, its actions
 * applied to the world, the deletion order checked.
 */
export class Simulation extends ClusterCacheSimulation {
  protected reconcileCluster(s: Slot, now: number): void {
    if (this.stormAt(s, now)) return
    const epochNow = this.epoch + now
    const input: ClusterInput = {
      observed: observeCluster(s, this.accessors[this.li(s.index)], this.epoch, epochNow),
      desired: s.spec,
      trigger: CLUSTER_RECONCILE,
      now: epochNow,
    }
    const step = this.cores.cluster(input, this.clConfig)
    const totals = this.measurements.totals
    totals.transitions++
    totals.clusterReconciles++
    const cr = this.measurements.series.clusterReconciles
    cr[this.bucket] = (cr[this.bucket] as number) + 1
    this.traceClusterRows(s, now, step.rows)
    let changed = false
    let requeue = -1
    let error = false
    for (const a of step.actions) {
      if (a._tag === "Requeue") requeue = a.after
      else if (a._tag === "ReturnError") error = true
      else if (this.applyClusterAction(s, a, step.rows, now)) changed = true
    }
    if (s.exists && s.deleting && s.finalizers.length === 0) this.removeCluster(s, now)
    else if (changed) this.clusterChanged(s, now)
    if (error) {
      // controller-runtime's per-item exponential backoff: 5 ms doubling up to 1000 s.
      s.clFailures++
      this.clusterAt(s, now + Math.min(1_000_000, 5 * 2 ** (s.clFailures - 1)))
    } else {
      s.clFailures = 0
      if (requeue > 0) this.clusterAt(s, now + requeue)
      else if (requeue === 0) {
        // Loops fail, never hang: a requeue of 0 ms asks for the same instant again.
        this.violation(s, "no-reconcile-storm", step.rows, "requeued after 0 ms")
        this.clusterAt(s, now + 1_000)
      }
    }
    this.syncHot(s)
    this.touchReady(s, now)
  }

  /**
   * Counts the reconciles of one instant; past the bound, reports the storm once and lets time
   * pass instead of reconciling (`true`: this reconcile does not run).
   */
  protected stormAt(s: Slot, now: number): boolean {
    const checks = this.config.checks
    if (s.clInstant === now) {
      if (++s.clInstantCount > checks.maxReconcilesPerInstant) {
        if (s.clInstantCount === checks.maxReconcilesPerInstant + 1)
          this.violation(
            s,
            "no-reconcile-storm",
            [],
            `reconciled more than ${checks.maxReconcilesPerInstant} times at one instant`,
          )
        // Let time pass rather than loop forever.
        this.clusterAt(s, now + 1_000)
        return true
      }
    } else {
      s.clInstant = now
      s.clInstantCount = 1
    }
    return false
  }

  /** Applies one action of a Cluster controller reconcile to the world; `true` when the Cluster changed. */
  protected applyClusterAction(
    s: Slot,
    a: Exclude<ClusterAction, { readonly _tag: "Requeue" | "ReturnError" }>,
    rows: ReadonlyArray<RowId>,
    now: number,
  ): boolean {
    switch (a._tag) {
      case "AddFinalizer":
        if (s.exists && !s.deleting && !s.finalizers.includes(a.finalizer)) {
          s.finalizers = [...s.finalizers, a.finalizer]
          s.touchMeta()
          return true
        }
        return false
      case "RemoveFinalizer":
        this.checkFinalizerLast(s, rows)
        if (s.finalizers.includes(a.finalizer)) {
          s.finalizers = s.finalizers.filter((f) => f !== a.finalizer)
          s.touchMeta()
          return true
        }
        return false
      case "PatchExternal":
        if (a.role === "infrastructure" && s.infraExists && !s.infraOwned) {
          s.infraOwned = true
          this.clusterAt(s, now)
        } else if (a.role === "controlPlane" && s.cpExists && !s.cpOwned) {
          s.cpOwned = true
          this.clusterAt(s, now)
        }
        return false
      case "SetControlPlaneEndpoint":
        s.spec = { ...s.spec, controlPlaneEndpoint: a.endpoint }
        return true
      case "CreateKubeconfigSecret":
        if (!s.kubeconfig) {
          s.kubeconfig = true
          this.world(s, W["kubeconfig-created"], 0)
        }
        return false
      case "DeleteObject":
        this.deleteObject(s, a, rows, now)
        return false
      case "PatchStatus":
        if (s.exists && !deepEqual(a.status, s.status)) {
          this.setStatus(s, a.status, now)
          return true
        }
        return false
      case "Event":
        return false
    }
  }

  protected traceClusterRows(s: Slot, now: number, rows: ReadonlyArray<RowId>): void {
    const codes = this.codes
    codes.length = 0
    const counts = this.measurements.rowCodes
    for (const row of rows) {
      const code = rowCode(row)
      codes.push(code)
      if (code === UNKNOWN_ROW) this.countOther(row)
      else counts[code] = (counts[code] as number) + 1
    }
    if (codes.length > 0) this.writer.rows(now, s.index, RecordKind.Cluster, codes, 0, codes.length)
  }

  protected setStatus(s: Slot, status: ClusterStatus, now: number): void {
    const was = s.status?.phase === "Provisioned"
    const is = status.phase === "Provisioned"
    s.status = status
    if (was !== is) this.provisioned += is ? 1 : -1
    if (is && s.provisionedAt < 0) {
      s.provisionedAt = now
      recordTimeToProvisioned(this.measurements, now - s.createdAt)
    }
  }

  protected checkFinalizerLast(s: Slot, rows: ReadonlyArray<RowId>): void {
    const remaining: Array<string> = []
    if (!s.descendantsGone) remaining.push("descendants")
    if (s.cpExists) remaining.push("the control plane")
    if (s.infraExists) remaining.push("the infrastructure")
    if (remaining.length > 0)
      this.violation(s, "finalizer-last", rows, `finalizer removed while ${remaining.join(", ")} remain`)
  }

  protected deleteObject(
    s: Slot,
    a: Extract<ClusterAction, { _tag: "DeleteObject" }>,
    rows: ReadonlyArray<RowId>,
    now: number,
  ): void {
    const p = this.config.providers
    switch (a.role) {
      case "descendant": {
        const k = s.workers.findIndex((w) => w.name === a.ref.name)
        const w = s.workers[k]
        if (a.ref.kind !== "MachineDeployment" || w === undefined || w.gone || w.deleting) return
        w.deleting = true
        const arg = ((s.gen & (ARG_MASK >>> 4)) << 4) | k
        this.push(s.index, now + this.draw(s, p.workerDelete), Ev.WorkersGone, arg)
        this.clusterAt(s, now)
        return
      }
      case "controlPlane":
        if (!s.descendantsGone)
          this.violation(
            s,
            "delete-after-descendants",
            rows,
            "the control plane was deleted while descendants remain",
          )
        if (!s.cpExists || s.cpDeleting) return
        s.cpDeleting = true
        this.push(s.index, now + this.draw(s, p.controlPlaneDelete), Ev.ControlPlaneGone, s.gen)
        this.clusterAt(s, now)
        return
      case "infrastructure":
        if (!s.descendantsGone)
          this.violation(
            s,
            "delete-after-descendants",
            rows,
            "the infrastructure was deleted while descendants remain",
          )
        if (s.cpExists)
          this.violation(
            s,
            "infrastructure-after-control-plane",
            rows,
            "the infrastructure was deleted while the control-plane object exists",
          )
        if (!s.infraExists || s.infraDeleting) return
        s.infraDeleting = true
        this.push(s.index, now + this.draw(s, p.infrastructureDelete), Ev.InfraGone, s.gen)
        this.clusterAt(s, now)
        return
    }
  }
}
