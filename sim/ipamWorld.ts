/**
 * The IPAM controller in a simulated world: Clusters and ClusterConfigs as plain objects, a
 * work queue in virtual time, the garbage collector, and the controller's steps run on the pure
 * core (`core/ipam`): every watch event goes through `triggerTransition`, every reconcile
 * through `reconcileCluster`, and the actions are applied to the world as the real shell applies
 * them to the API server (the allocator state committed first, `ReleaseCidrs` applied after the
 * finalizer is gone).
 *
 * After every step the world is checked, independently of the allocator: the CIDRs recorded for
 * different Clusters (annotations and ClusterConfigs) never overlap, each lies within a parent
 * of the config (or within another CIDR of the same Cluster, for nested injections), and each is
 * allocated in the controller's state (nothing lost). At every state refresh the state rebuilt
 * from annotations and ClusterConfigs alone must hold exactly the same CIDRs (nothing lost,
 * nothing changed, nothing leaked).
 *
 * Used by the fleet simulator (`sim/ipam.ts`) and by the property tests, which drive it with
 * `fc.commands`. The checks themselves are in `ipamChecks.ts`, the settings in `ipamSettings.ts`.
 *
 * This file stays a little over 400 lines: what is left is one job, the world's steps (events,
 * the work queue, the garbage collector, a reconcile and its actions, the refresh), which share
 * the world's private state (the queue, the ClusterConfigs by Cluster) step by step.
 *
 * @module
 */
import {
  APPLIED_RULES_ANNOTATION,
  type Cidr,
  CLUSTER_TARGET_LABEL,
  type ClusterConfigView,
  type ClusterView,
  emptyIpam,
  type IpamConfigSpec,
  type IpamEvent,
  type IpamState,
  OPERATION_ANNOTATION,
  parentCidrsOf,
  type ReconcileResult,
  reconfigure,
  releaseAll,
  restoreIpam,
  triggerTransition,
} from "../core/ipam/index.ts"
import { HeldBlocks, type IpamCheck, recordedCidrs, restoreDifference } from "./ipamChecks.ts"
import { type IpamStats, IpamWorldDefaults, type IpamWorldSettings } from "./ipamSettings.ts"

export { type IpamCheck, IpamChecks } from "./ipamChecks.ts"
export { type IpamStats, IpamWorldDefaults, type IpamWorldSettings } from "./ipamSettings.ts"

type Pending =
  | { readonly at: number; readonly seq: number; readonly kind: "reconcile"; readonly name: string }
  | { readonly at: number; readonly seq: number; readonly kind: "gc"; readonly uid: string }

/** The simulated world of the IPAM controller. Mutable; every method is one step. */
export class IpamWorld {
  readonly settings: IpamWorldSettings
  /** The last valid IPAMConfig. */
  config: IpamConfigSpec
  readonly clusters = new Map<string, ClusterView>()
  readonly clusterConfigs = new Map<string, ClusterConfigView>()
  ipam: IpamState
  now = 0
  readonly stats: IpamStats = {
    reconciles: 0,
    triggers: 0,
    acquired: 0,
    released: 0,
    exhaustedEvents: 0,
    refreshes: 0,
    peakAllocated: 0,
    rows: {},
  }
  private readonly queue: Array<Pending> = []
  /** Names with a reconcile in the queue (the work queue coalesces). */
  private readonly queued = new Set<string>()
  /** ClusterConfigs by the Cluster name of their label, for the reconcile's list. */
  private readonly ccsByCluster = new Map<string, Map<string, ClusterConfigView>>()
  private seq = 0
  private nextRefresh: number
  /** Maximal recorded blocks of every Cluster, for the disjointness check. */
  private readonly ledger: HeldBlocks
  /** Every parent CIDR of every config so far: CIDRs of a removed parent stay where they were. */
  private parents: ReadonlyArray<Cidr>
  private readonly report: (cluster: string, check: IpamCheck, message: string) => void

  constructor(
    config: IpamConfigSpec,
    report: (cluster: string, check: IpamCheck, message: string) => void,
    settings: Partial<IpamWorldSettings> = {},
  ) {
    this.config = config
    this.settings = { ...IpamWorldDefaults, ...settings }
    this.report = report
    this.ledger = new HeldBlocks(report)
    this.parents = parentCidrsOf(config)
    this.ipam = reconfigure(emptyIpam, this.parents)
    this.nextRefresh = this.settings.refreshEvery > 0 ? this.settings.refreshEvery : Number.POSITIVE_INFINITY
    this.fire({ _tag: "Started" })
  }

  // ---- the world's events ---------------------------------------------------------------------

  /** A Cluster is created. */
  createCluster(
    name: string,
    uid: string,
    purposes: ReadonlyArray<string>,
    labels: Readonly<Record<string, string>>,
    at: number,
  ): void {
    this.advance(at)
    const c: ClusterView = {
      namespace: this.settings.namespace,
      name,
      uid,
      labels,
      annotations: {},
      purposes,
    }
    this.clusters.set(name, c)
    this.fire({ _tag: "ClusterCreated", cluster: c })
    this.advance(at)
  }

  /** A Cluster gets its deletion timestamp (its own finalizers hold it). */
  requestDelete(name: string, at: number): void {
    this.advance(at)
    const c = this.clusters.get(name)
    if (c === undefined || c.deletionTimestamp !== undefined) return
    this.updateCluster(c, { ...c, deletionTimestamp: `t${at}` })
    this.advance(at)
  }

  /** The API server removes a Cluster; the garbage collector follows after `gcDelay`. */
  removeCluster(name: string, at: number): void {
    this.advance(at)
    const c = this.clusters.get(name)
    if (c === undefined) return
    this.clusters.delete(name)
    this.fire({ _tag: "ClusterDeleted", cluster: c })
    this.push({ at: at + this.settings.gcDelay, seq: this.seq++, kind: "gc", uid: c.uid ?? "" })
    this.advance(at)
  }

  /** The user asks for a reconcile with `openmcp.cloud/operation: reconcile`. */
  annotateReconcile(name: string, at: number): void {
    this.advance(at)
    const c = this.clusters.get(name)
    if (c === undefined) return
    this.updateCluster(c, { ...c, annotations: { ...c.annotations, [OPERATION_ANNOTATION]: "reconcile" } })
    this.advance(at)
  }

  /**
   * The IPAMConfig changes: new parents are registered (allocations of removed ones stay, parentless)
   * and, when the injection rules changed, every selected Cluster is reconciled (ipam.trigger#6).
   */
  changeConfig(config: IpamConfigSpec, at: number): void {
    this.advance(at)
    const old = this.config
    this.config = config
    const next = parentCidrsOf(config)
    this.parents = [
      ...this.parents,
      ...next.filter(
        (p) => !this.parents.some((q) => q.family === p.family && q.base === p.base && q.prefix === p.prefix),
      ),
    ]
    this.ipam = reconfigure(this.ipam, next)
    this.fire({ _tag: "ConfigChanged", old })
    this.advance(at)
  }

  /** The operator restarts: its state is rebuilt from the cluster alone, then every Cluster is reconciled. */
  restart(at: number): void {
    this.advance(at)
    this.refresh("restart")
    this.advance(at)
  }

  /** Runs everything due up to `until`, refreshes included. */
  advance(until: number): void {
    for (;;) {
      const next = this.queue[0]
      const refreshFirst = this.nextRefresh <= until && (next === undefined || this.nextRefresh < next.at)
      if (refreshFirst) {
        this.now = this.nextRefresh
        this.nextRefresh += this.settings.refreshEvery
        this.refresh("refresh")
        continue
      }
      if (next === undefined || next.at > until) break
      this.queue.shift()
      if (next.kind === "reconcile") this.queued.delete(next.name)
      this.now = next.at
      if (next.kind === "gc") this.collect(next.uid)
      else this.reconcile(next.name)
    }
    if (until > this.now) this.now = until
  }

  /** Every CIDR recorded in the world (annotations and ClusterConfigs), sorted. */
  recorded(): ReadonlyArray<string> {
    const all = new Set<string>()
    for (const owner of new Set([...this.clusters.keys(), ...this.ccOwners()]))
      for (const t of this.recordedFor(owner)) all.add(t)
    return [...all].sort()
  }

  // ---- the controller -------------------------------------------------------------------------

  private push(p: Pending): void {
    let i = this.queue.length
    while (
      i > 0 &&
      ((this.queue[i - 1] as Pending).at > p.at ||
        ((this.queue[i - 1] as Pending).at === p.at && (this.queue[i - 1] as Pending).seq > p.seq))
    )
      i--
    this.queue.splice(i, 0, p)
  }

  private fire(event: IpamEvent): void {
    // only a config change, a start and a refresh read the list of Clusters
    const all = event._tag === "Started" || event._tag === "StateRefreshed" || event._tag === "ConfigChanged"
    const r = triggerTransition({
      observed: { config: this.config, clusters: all ? [...this.clusters.values()] : [] },
      desired: this.settings.identity,
      trigger: event,
      now: this.now,
    })
    this.stats.triggers++
    this.stats.rows[r.row] = (this.stats.rows[r.row] ?? 0) + 1
    for (const a of r.actions) {
      const pending = this.queue.some((q) => q.kind === "reconcile" && q.name === a.name)
      if (!pending)
        this.push({
          at: this.now + this.settings.reconcileDelay,
          seq: this.seq++,
          kind: "reconcile",
          name: a.name,
        })
    }
  }

  private updateCluster(old: ClusterView, next: ClusterView): void {
    this.clusters.set(next.name, next)
    this.fire({ _tag: "ClusterUpdated", old, cluster: next })
  }

  private ccKey(namespace: string, name: string) {
    return `${namespace}/${name}`
  }

  private index(cc: ClusterConfigView, present: boolean): void {
    const owner = cc.labels[CLUSTER_TARGET_LABEL] ?? ""
    let m = this.ccsByCluster.get(owner)
    if (m === undefined) {
      m = new Map()
      this.ccsByCluster.set(owner, m)
    }
    if (present) m.set(this.ccKey(cc.namespace, cc.name), cc)
    else {
      m.delete(this.ccKey(cc.namespace, cc.name))
      if (m.size === 0) this.ccsByCluster.delete(owner)
    }
  }

  private setCc(next: ClusterConfigView | undefined, old: ClusterConfigView | undefined): void {
    if (old !== undefined) this.index(old, false)
    if (next !== undefined) this.index(next, true)
    if (next === undefined) {
      if (old === undefined) return
      this.clusterConfigs.delete(this.ccKey(old.namespace, old.name))
      this.fire({ _tag: "ClusterConfigDeleted", clusterConfig: old })
      return
    }
    this.clusterConfigs.set(this.ccKey(next.namespace, next.name), next)
    if (old === undefined) this.fire({ _tag: "ClusterConfigCreated", clusterConfig: next })
    else this.fire({ _tag: "ClusterConfigUpdated", old, clusterConfig: next })
  }

  /** The garbage collector deletes the ClusterConfigs owned by a Cluster that is gone. */
  private collect(uid: string): void {
    for (const cc of [...this.clusterConfigs.values()]) {
      if (!cc.ownerReferences.some((o) => o.uid === uid) || cc.deletionTimestamp !== undefined) continue
      if (cc.finalizers.length === 0) this.setCc(undefined, cc)
      else this.setCc({ ...cc, deletionTimestamp: `t${this.now}` }, cc)
    }
  }

  /** One reconcile of one Cluster on the pure core, its actions applied to the world. */
  reconcile(name: string): ReconcileResult {
    const ns = this.settings.namespace
    const ccs = [...(this.ccsByCluster.get(name)?.values() ?? [])].filter((cc) => cc.namespace === ns)
    const result = this.settings.reconcile({
      observed: { cluster: this.clusters.get(name), clusterConfigs: ccs },
      desired: { config: this.config, identity: this.settings.identity },
      trigger: { _tag: "Reconcile", namespace: ns, name },
      ipam: this.ipam,
    })
    this.stats.reconciles++
    this.stats.rows[result.row] = (this.stats.rows[result.row] ?? 0) + 1
    this.stats.acquired += result.status.acquired.length
    // decide, commit, then act (the shell's order)
    this.ipam = result.ipam
    const finalizerRemoved = new Set<string>()
    for (const a of result.actions) this.apply(name, a, finalizerRemoved)
    const n = this.ipam.allocated.size
    if (n > this.stats.peakAllocated) this.stats.peakAllocated = n
    this.check(name)
    return result
  }

  /**
   * Applies one action of a reconcile of Cluster `name` to the world; `finalizerRemoved` holds the
   * ClusterConfigs whose finalizer an earlier action of the same reconcile removed.
   */
  private apply(name: string, a: ReconcileResult["actions"][number], finalizerRemoved: Set<string>): void {
    switch (a._tag) {
      case "RemoveOperationAnnotation": {
        const c = this.clusters.get(name)
        if (c === undefined) break
        const { [OPERATION_ANNOTATION]: _, ...rest } = c.annotations
        this.updateCluster(c, { ...c, annotations: rest })
        break
      }
      case "SetAppliedRules": {
        const c = this.clusters.get(name)
        if (c === undefined) break
        this.updateCluster(c, {
          ...c,
          annotations: { ...c.annotations, [APPLIED_RULES_ANNOTATION]: a.value },
        })
        break
      }
      case "CreateClusterConfig": {
        const m = a.object.metadata
        if (this.clusterConfigs.has(this.ccKey(m.namespace, m.name))) break // AlreadyExists
        this.setCc(
          {
            namespace: m.namespace,
            name: m.name,
            labels: m.labels,
            annotations: {},
            finalizers: m.finalizers,
            ownerReferences: m.ownerReferences,
            patches: a.object.spec.patches,
          },
          undefined,
        )
        break
      }
      case "AddPatches": {
        const old = this.clusterConfigs.get(this.ccKey(a.clusterConfig.namespace, a.clusterConfig.name))
        if (old !== undefined) this.setCc({ ...old, patches: [...old.patches, ...a.patches] }, old)
        break
      }
      case "AddFinalizer": {
        const old = this.clusterConfigs.get(this.ccKey(a.clusterConfig.namespace, a.clusterConfig.name))
        if (old !== undefined && !old.finalizers.includes(a.finalizer))
          this.setCc({ ...old, finalizers: [...old.finalizers, a.finalizer] }, old)
        break
      }
      case "RemoveFinalizer": {
        const k = this.ccKey(a.clusterConfig.namespace, a.clusterConfig.name)
        const old = this.clusterConfigs.get(k)
        if (old === undefined) break
        const next = { ...old, finalizers: old.finalizers.filter((f) => f !== a.finalizer) }
        finalizerRemoved.add(k)
        // a deleting object whose last finalizer goes is removed by the API server
        this.setCc(
          next.deletionTimestamp !== undefined && next.finalizers.length === 0 ? undefined : next,
          old,
        )
        break
      }
      case "ReleaseCidrs":
        if (finalizerRemoved.has(this.ccKey(a.clusterConfig.namespace, a.clusterConfig.name))) {
          this.ipam = releaseAll(this.ipam, a.cidrs)
          this.stats.released += a.cidrs.length
        }
        break
      case "DeleteClusterConfig": {
        const old = this.clusterConfigs.get(this.ccKey(a.clusterConfig.namespace, a.clusterConfig.name))
        if (old === undefined) break
        this.setCc(
          old.finalizers.length === 0 ? undefined : { ...old, deletionTimestamp: `t${this.now}` },
          old,
        )
        break
      }
      case "Event":
        if (a.type === "Warning" && a.action === "CIDRGeneration") this.stats.exhaustedEvents++
        break
    }
  }

  /** Rebuilds the state from annotations and ClusterConfigs and compares it with the live one. */
  private refresh(why: "refresh" | "restart"): void {
    this.stats.refreshes++
    const restored = restoreIpam({
      config: this.config,
      clusters: [...this.clusters.values()],
      clusterConfigs: [...this.clusterConfigs.values()],
      identity: this.settings.identity,
    })
    const differs = restoreDifference(why, this.ipam, restored)
    if (differs !== undefined) this.report("", "ipam-restore", differs)
    this.ipam = restored.ipam
    this.fire({ _tag: why === "restart" ? "Started" : "StateRefreshed" })
  }

  // ---- the checks -----------------------------------------------------------------------------

  private ccOwners(): ReadonlyArray<string> {
    return [...this.ccsByCluster.keys()]
  }

  /** CIDRs recorded for one Cluster name: its annotation and its ClusterConfigs. */
  private recordedFor(owner: string): ReadonlyArray<string> {
    return recordedCidrs(this.clusters.get(owner), this.ccsByCluster.get(owner)?.values() ?? [])
  }

  private check(owner: string): void {
    this.ledger.check(owner, this.recordedFor(owner), this.ipam.allocated, this.parents)
  }

  /** Sanity for tests: the keys of the held blocks (one per maximal block). */
  heldKeys(): ReadonlyArray<string> {
    return this.ledger.keys()
  }
}
