/**
 * The simulated world of one Cluster slot: the management cluster's objects (the Cluster, its
 * InfraCluster, its control plane, its MachineDeployments with their MachineSets and Machines,
 * the kubeconfig Secret), the workload cluster's API server, and what the two controllers keep
 * for it (the ClusterCache's accessor, each controller's place in its work queue).
 *
 * A slot holds one Cluster at a time; when its Cluster is gone it may get a new one, a new
 * generation with a new name and uid. Everything here is plain mutable state; the simulation
 * changes it, and `observeCluster.ts` builds from it what the Cluster controller reads.
 *
 * @module
 */

// The modules themselves, not the index: the index re-exports the input schemas, which load
// effect (250 modules, ~60 MiB) in every worker for nothing.
import type { ClusterSpec, ClusterStatus, ObjectMeta } from "../core/cluster/types.ts"
import type { ClusterView, ReconcilerDesired } from "../core/clustercache/index.ts"
import type { RowId } from "../core/krtt/index.ts"
import { Rng } from "./random.ts"
import { rowOfCode, UNKNOWN_ROW } from "./trace.ts"

export const NAMESPACE = "fleet"
export const INFRA_GROUP = "infrastructure.cluster.x-k8s.io"
export const INFRA_KIND = "SimCluster"
export const CONTROL_PLANE_GROUP = "controlplane.cluster.x-k8s.io"
export const CONTROL_PLANE_KIND = "SimControlPlane"

/** One MachineDeployment with its MachineSet and Machines. */
export interface WorkerGroup {
  readonly name: string
  readonly machines: number
  deleting: boolean
  gone: boolean
}

/** The most rows one ClusterCache reconcile records. */
export const MAX_ROWS = 96

/** The state of one ClusterCache reconcile, kept while it waits for I/O. */
export class CacheRun {
  /** Rows that decided, in order, and their trace codes: the first `n` entries. */
  readonly rows: Array<RowId> = new Array(MAX_ROWS).fill("")
  readonly codes = new Int32Array(MAX_ROWS)
  n = 0
  /** Index of the first row not yet written to the trace. */
  traced = 0
  desired: ReconcilerDesired | undefined = undefined
  /** 0 none, 1 started, 2 succeeded, 3 failed. */
  connect = 0
  /** -1 none, else the index of the outcome in `success | failure | unauthorized`. */
  probe = -1
  disconnected = false
  connectEvents = 0
  disconnectEvents = 0
  requeueAfter = -1
  /** The I/O the reconcile waits for: 0 none, 1 connect, 2 probe. */
  io = 0
  /** For a connect: the step that fails (-1: none) and the error; for a probe: the outcome. */
  ioResult = 0
  ioError = ""
  /** When the reconcile started (virtual ms). */
  startedAt = 0

  /**
   * Records a row; rows past {@link MAX_ROWS} are dropped (the reconcile is cut off before).
   * Only the code is kept, and the id too when the code does not tell it.
   */
  push(row: RowId, code: number): void {
    if (this.n === MAX_ROWS) return
    if (code === UNKNOWN_ROW) this.rows[this.n] = row
    this.codes[this.n++] = code
  }

  /** Copies another run (to keep it while it waits for I/O, or to take it up again). */
  copyFrom(o: CacheRun): this {
    for (let i = 0; i < o.n; i++) {
      this.rows[i] = o.rows[i] as RowId
      this.codes[i] = o.codes[i] as number
    }
    this.n = o.n
    this.traced = o.traced
    this.desired = o.desired
    this.connect = o.connect
    this.probe = o.probe
    this.disconnected = o.disconnected
    this.connectEvents = o.connectEvents
    this.disconnectEvents = o.disconnectEvents
    this.requeueAfter = o.requeueAfter
    this.io = o.io
    this.ioResult = o.ioResult
    this.ioError = o.ioError
    this.startedAt = o.startedAt
    return this
  }

  /** The rows so far, as a new array. */
  rowList(): ReadonlyArray<RowId> {
    const out: Array<RowId> = []
    for (let i = 0; i < this.n; i++) out.push(rowOfCode(this.codes[i] as number) ?? (this.rows[i] as RowId))
    return out
  }

  reset(now: number): void {
    this.n = 0
    this.traced = 0
    this.desired = undefined
    this.connect = 0
    this.probe = -1
    this.disconnected = false
    this.connectEvents = 0
    this.disconnectEvents = 0
    this.requeueAfter = -1
    this.io = 0
    this.ioResult = 0
    this.ioError = ""
    this.startedAt = now
  }
}

/** One Cluster slot of the fleet. */
export class Slot {
  readonly rng: Rng
  /** The generation of the slot's current (or last) Cluster; -1 before the first. */
  gen = -1
  name = ""
  uid = ""
  /** Whether a new Cluster follows when this one is gone. */
  recreate = true

  // The Cluster object.
  exists = false
  deletionTimestamp: string | undefined = undefined
  finalizers: ReadonlyArray<string> = []
  status: ClusterStatus | undefined = undefined
  spec: ClusterSpec = {}
  metaCache: ObjectMeta | undefined = undefined

  // The InfraCluster.
  infraExists = false
  infraOwned = false
  infraProvisioned = false
  infraDeleting = false
  infraStuck = false
  // The control-plane object.
  cpExists = false
  cpOwned = false
  cpInitialized = false
  cpDeleting = false
  workers: Array<WorkerGroup> = []
  kubeconfig = false

  // The workload cluster's API server.
  serverUp = false
  /** Outages and slow periods in progress (they may overlap). */
  down = 0
  slow = 0
  slowLatency = 0
  /** The credentials were rotated and the kubeconfig Secret still has the old ones. */
  credentialsRotated = false
  rotation = 0

  // The ClusterCache (its hot state, read by every reconcile, is kept by the simulation).
  /** A reconcile that waits for I/O (connect or probe). */
  waiting: CacheRun | undefined = undefined

  // The Cluster controller.
  clDue = Number.POSITIVE_INFINITY
  clFailures = 0
  clInstant = -1
  clInstantCount = 0

  // What the checks remember (virtual ms; -1 for never).
  lastFailedConnectAt = -1
  createdAt = -1
  provisionedAt = -1
  readySince = -1
  readyToken = 0

  readonly index: number

  constructor(index: number, seed: number) {
    this.index = index
    this.rng = new Rng(seed, index)
  }

  /** Whether the Cluster is being deleted. */
  get deleting(): boolean {
    return this.deletionTimestamp !== undefined
  }

  /** Whether the Cluster's descendants (MachineDeployments and what they own) are all gone. */
  get descendantsGone(): boolean {
    for (const w of this.workers) if (!w.gone) return false
    return true
  }

  /**
   * What the ClusterCache's `client.Get()` of the Cluster returns, as an index into
   * {@link CLUSTER_VIEWS}: one of five shared values, so that reconciles allocate nothing for it.
   */
  clusterView(): number {
    if (!this.exists) return 4
    const provisioned = this.status?.initialization?.infrastructureProvisioned === true
    return (provisioned ? 1 : 0) + (this.deletionTimestamp !== undefined ? 2 : 0)
  }

  /** Forgets the cached metadata after a change to it. */
  touchMeta(): void {
    this.metaCache = undefined
  }

  /** Sets the slot up for a new Cluster, generation `gen`, created at virtual time `now`. */
  newCluster(gen: number, now: number): void {
    this.gen = gen
    this.name = gen === 0 ? slotName(this.index) : `${slotName(this.index)}-${gen}`
    this.uid = `uid-${this.index}-${gen}`
    this.exists = true
    this.deletionTimestamp = undefined
    this.finalizers = []
    this.status = undefined
    this.spec = {
      infrastructureRef: { apiGroup: INFRA_GROUP, kind: INFRA_KIND, name: this.name },
      controlPlaneRef: { apiGroup: CONTROL_PLANE_GROUP, kind: CONTROL_PLANE_KIND, name: this.name },
    }
    this.touchMeta()
    this.infraExists = true
    this.infraOwned = false
    this.infraProvisioned = false
    this.infraDeleting = false
    this.infraStuck = false
    this.cpExists = true
    this.cpOwned = false
    this.cpInitialized = false
    this.cpDeleting = false
    this.workers = []
    this.kubeconfig = false
    this.serverUp = false
    this.credentialsRotated = false
    this.createdAt = now
    this.provisionedAt = -1
    this.readySince = -1
    this.clFailures = 0
  }
}

/** The five views of a Cluster the ClusterCache distinguishes, by {@link Slot.clusterView}. */
export const CLUSTER_VIEWS: ReadonlyArray<ClusterView> = [
  { _tag: "Found", infrastructureProvisioned: false, deleting: false },
  { _tag: "Found", infrastructureProvisioned: true, deleting: false },
  { _tag: "Found", infrastructureProvisioned: false, deleting: true },
  { _tag: "Found", infrastructureProvisioned: true, deleting: true },
  { _tag: "NotFound" },
]

/** `cluster-00042`: the name of a slot's first Cluster (later ones add `-<generation>`). */
export const slotName = (index: number): string => `cluster-${String(index).padStart(5, "0")}`

/** Structural equality of JSON-like values (statuses), without allocating. */
export const deepEqual = (a: unknown, b: unknown): boolean => {
  if (a === b) return true
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false
    return true
  }
  if (Array.isArray(b)) return false
  const x = a as Record<string, unknown>
  const y = b as Record<string, unknown>
  let n = 0
  for (const k in x) {
    if (!Object.hasOwn(y, k) || !deepEqual(x[k], y[k])) return false
    n++
  }
  for (const _ in y) n--
  return n === 0
}
