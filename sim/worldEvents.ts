/**
 * The world of the simulation: Clusters created and deleted, providers making progress, the
 * workload API servers' faults and a scenario's incidents, and the readiness deadline of
 * `provisioned-and-connected`. `dispatch` runs every event but a ClusterCache reconcile (which the
 * engine's loop runs itself); after one that changed the world it copies what the ClusterCache
 * reads into the slot's hot record and re-arms the readiness clock.
 *
 * Expected flow: `Engine.runUntil` takes an event, `dispatch` hands the controllers' events to
 * the reconcile methods of the layers above and applies the others to the slot here.
 *
 * @module
 */
import { rfc3339 } from "../core/cluster/conditions.ts"
import { ARG_MASK, Engine, Ev, FAULTS, NONE, W } from "./engine.ts"
import type { Slot } from "./world.ts"

export abstract class WorldEngine extends Engine {
  /** Runs one event of slot `s`; whatever changed in the world then reaches the hot record. */
  protected dispatch(s: Slot, kind: number, arg: number, now: number): void {
    const gen = s.gen & ARG_MASK
    switch (kind) {
      case Ev.CacheIo:
        this.resumeCache(s, now)
        break
      case Ev.ClusterReconcile:
        if (s.clDue !== now) return
        s.clDue = NONE
        this.reconcileCluster(s, now)
        break
      case Ev.Create:
        this.create(s, now)
        break
      case Ev.Delete:
        if (arg === gen) this.requestDelete(s, now, true)
        break
      case Ev.Fault:
        this.fault(s, arg, now)
        break
      case Ev.Scenario:
        this.incident(s, arg, now)
        break
      case Ev.ConnectedDeadline:
        this.connectedDeadline(s, arg, now)
        return
      case Ev.AccessorDeadline:
        if (arg === gen && !s.exists && this.accessors[this.li(s.index)] !== undefined)
          this.violation(
            s,
            "no-accessor-for-deleted-cluster",
            [],
            `the accessor still exists ${this.config.checks.accessorGoneWithin} ms after the Cluster was removed`,
          )
        return
      default:
        if (!this.progress(s, kind, arg, gen, now)) return
    }
    // Whatever changed in the world: what the ClusterCache reads of it, and the readiness clock.
    this.syncHot(s)
    this.touchReady(s, now)
  }

  /**
   * A provider's or the workload API server's progress (`Ev.InfraReady` to `Ev.KubeconfigFixed`);
   * `false` when the event is stale (an older generation or rotation) and changed nothing.
   */
  protected progress(s: Slot, kind: number, arg: number, gen: number, now: number): boolean {
    switch (kind) {
      case Ev.InfraReady:
        if (arg !== gen || !s.exists || !s.infraExists || s.infraDeleting) return false
        s.infraProvisioned = true
        this.world(s, W["infrastructure-provisioned"], 0)
        this.clusterAt(s, now)
        this.push(
          s.index,
          now + this.draw(s, this.config.providers.controlPlaneInitialize),
          Ev.ControlPlaneReady,
          gen,
        )
        return true
      case Ev.ControlPlaneReady:
        if (arg !== gen || !s.exists || !s.cpExists || s.cpDeleting) return false
        s.cpInitialized = true
        s.serverUp = true
        this.world(s, W["control-plane-initialized"], 0)
        if (!s.kubeconfig) {
          // The control-plane provider writes the kubeconfig Secret (the Cluster controller only
          // does without a controlPlaneRef).
          s.kubeconfig = true
          this.world(s, W["kubeconfig-created"], 0)
        }
        this.clusterAt(s, now)
        return true
      case Ev.WorkersGone: {
        if (arg >>> 4 !== (gen & (ARG_MASK >>> 4))) return false
        const w = s.workers[arg & 15]
        if (w === undefined || w.gone) return false
        w.gone = true
        this.world(s, W["descendant-gone"], arg & 15)
        this.clusterAt(s, now)
        return true
      }
      case Ev.ControlPlaneGone:
        if (arg !== gen || !s.cpExists) return false
        s.cpExists = false
        s.serverUp = false
        this.world(s, W["control-plane-gone"], 0)
        this.clusterAt(s, now)
        return true
      case Ev.InfraGone:
        if (arg !== gen || !s.infraExists) return false
        s.infraExists = false
        this.world(s, W["infrastructure-gone"], 0)
        this.clusterAt(s, now)
        return true
      case Ev.OutageEnd:
        s.down--
        this.world(s, W["apiserver-up"], 0)
        return true
      case Ev.SlowEnd:
        s.slow--
        this.world(s, W["apiserver-fast"], 0)
        return true
      case Ev.KubeconfigFixed:
        if (arg !== s.rotation || !s.credentialsRotated) return false
        s.credentialsRotated = false
        this.world(s, W["kubeconfig-fixed"], 0)
        return true
      default:
        return false
    }
  }

  // ---------------------------------------------------------------------------------------------
  // The world: Clusters come and go, providers make progress, faults strike.

  protected create(s: Slot, now: number): void {
    if (s.exists) return
    const c = this.config
    s.newCluster(s.gen + 1, now)
    const mds = Math.round(this.draw(s, c.churn.machineDeployments))
    for (let k = 0; k < mds && k < 16; k++) {
      const machines = Math.max(1, Math.round(this.draw(s, c.churn.machinesPerSet)))
      s.workers.push({ name: `${s.name}-md-${k}`, machines, deleting: false, gone: false })
    }
    s.rotation = (s.rotation + 1) & ARG_MASK
    s.recreate = true
    this.clusters++
    this.measurements.totals.clustersCreated++
    this.world(s, W.created, s.gen)
    if (s.rng.chance(c.providers.stuckFraction)) {
      s.infraStuck = true
      this.world(s, W["provider-stuck"], 0)
    } else this.push(s.index, now + this.draw(s, c.providers.infrastructureProvision), Ev.InfraReady, s.gen)
    if (c.churn.deletionRate > 0)
      this.push(s.index, now + this.gap(s, c.churn.deletionRate), Ev.Delete, s.gen)
    this.clusterChanged(s, now)
  }

  protected requestDelete(s: Slot, now: number, recreate: boolean): void {
    if (!s.exists || s.deleting) return
    s.recreate = recreate
    s.deletionTimestamp = rfc3339(this.epoch + now)
    s.touchMeta()
    this.world(s, W["delete-requested"], 0)
    if (s.finalizers.length === 0) this.removeCluster(s, now)
    else this.clusterChanged(s, now)
  }

  /** The API server removes a deleting Cluster whose finalizers are gone. */
  protected removeCluster(s: Slot, now: number): void {
    s.exists = false
    if (s.status?.phase === "Provisioned") this.provisioned--
    s.kubeconfig = false
    this.clusters--
    this.measurements.totals.clustersDeleted++
    this.world(s, W["cluster-removed"], 0)
    this.clusterChanged(s, now)
    this.push(s.index, now + this.config.checks.accessorGoneWithin, Ev.AccessorDeadline, s.gen)
    if (s.recreate) this.push(s.index, now + this.draw(s, this.config.churn.recreateAfter), Ev.Create)
  }

  protected fault(s: Slot, which: number, now: number): void {
    const c = this.config
    const kind = FAULTS[which] as (typeof FAULTS)[number]
    this.push(s.index, now + this.gap(s, c.faults[kind]), Ev.Fault, which)
    // A fault needs a workload cluster to strike.
    if (!s.exists || !s.serverUp) return
    const a = c.apiServer
    if (kind === "outage") this.outage(s, now, this.draw(s, a.outageDuration))
    else if (kind === "slow") this.slowdown(s, now, this.draw(s, a.slowDuration))
    else this.rotate(s, now, this.draw(s, a.kubeconfigFixAfter))
  }

  protected incident(s: Slot, index: number, now: number): void {
    const incident = this.config.scenario[index]
    if (incident === undefined) return
    this.measurements.totals.scenarioIncidents++
    const a = this.config.apiServer
    switch (incident.incident) {
      case "apiserver-down":
        this.outage(s, now, incident.for ?? this.draw(s, a.outageDuration))
        break
      case "apiserver-slow":
        this.slowdown(s, now, incident.for ?? this.draw(s, a.slowDuration))
        break
      case "rotate-credentials":
        if (s.exists) this.rotate(s, now, incident.fixAfter ?? this.draw(s, a.kubeconfigFixAfter))
        break
      case "delete-cluster":
        this.requestDelete(s, now, false)
        break
    }
  }

  protected outage(s: Slot, now: number, duration: number): void {
    s.down++
    this.measurements.totals.outages++
    this.world(s, W["apiserver-down"], Math.round(duration / 1000))
    this.push(s.index, now + Math.max(1, Math.round(duration)), Ev.OutageEnd)
  }

  protected slowdown(s: Slot, now: number, duration: number): void {
    s.slow++
    s.slowLatency = this.draw(s, this.config.apiServer.slowLatency)
    this.measurements.totals.slowPeriods++
    this.world(s, W["apiserver-slow"], Math.round(duration / 1000))
    this.push(s.index, now + Math.max(1, Math.round(duration)), Ev.SlowEnd)
  }

  protected rotate(s: Slot, now: number, fixAfter: number): void {
    s.credentialsRotated = true
    s.rotation = (s.rotation + 1) & ARG_MASK
    this.measurements.totals.rotations++
    this.world(s, W["credentials-rotated"], Math.round(fixAfter / 1000))
    this.push(s.index, now + Math.max(1, Math.round(fixAfter)), Ev.KubeconfigFixed, s.rotation)
  }

  /**
   * Whether the world lets the Cluster be Provisioned and connected: providers done, kubeconfig
   * valid, API server healthy. When it becomes so, the deadline of `provisioned-and-connected`
   * starts.
   */
  protected touchReady(s: Slot, now: number): void {
    const ready =
      s.exists &&
      !s.deleting &&
      s.infraProvisioned &&
      s.cpInitialized &&
      s.kubeconfig &&
      s.serverUp &&
      s.down === 0 &&
      s.slow === 0 &&
      !s.credentialsRotated
    if (!ready) {
      s.readySince = -1
      return
    }
    if (s.readySince >= 0) return
    s.readySince = now
    // Stryker disable next-line ArithmeticOperator
    s.readyToken = (s.readyToken + 1) & ARG_MASK
    this.push(s.index, now + this.config.checks.connectedWithin, Ev.ConnectedDeadline, s.readyToken)
  }

  protected connectedDeadline(s: Slot, token: number, now: number): void {
    if (token !== s.readyToken || s.readySince < 0) return
    const phase = s.status?.phase
    const connected = this.isConnected(s.index)
    if (phase === "Provisioned" && connected) return
    this.violation(
      s,
      "provisioned-and-connected",
      [],
      `ready since t=${(s.readySince / 1000).toFixed(3)}s, yet ${(now - s.readySince) / 1000} s later the phase is ${phase ?? "unset"} and the accessor is ${connected ? "connected" : "not connected"}`,
    )
  }
}
