/**
 * The IPAM world's numbers (`IpamWorldSettings`, each documented, with their defaults) and the
 * counts it keeps (`IpamStats`). `ipamWorld.ts` re-exports them.
 *
 * @module
 */
import { type ControllerIdentity, reconcileCluster } from "../core/ipam/index.ts"

/** The world's numbers, each documented and configurable. */
export interface IpamWorldSettings {
  readonly identity: ControllerIdentity
  /** Namespace of the simulated Clusters. */
  readonly namespace: string
  /** Virtual ms from a trigger to its reconcile (the work queue's latency). Default 0. */
  readonly reconcileDelay: number
  /** Virtual ms from a Cluster's removal to the garbage collector deleting its ClusterConfigs. Default 2 s. */
  readonly gcDelay: number
  /** Virtual ms between state refreshes (rebuild and compare); 0: never. Default 1 h. */
  readonly refreshEvery: number
  /** The reconcile to run; the unmodified core by default (tests pass broken ones to prove the checks). */
  readonly reconcile: typeof reconcileCluster
}

export const IpamWorldDefaults: IpamWorldSettings = {
  identity: { managedBy: "ipam", environment: "sim" },
  namespace: "default",
  reconcileDelay: 0,
  gcDelay: 2_000,
  refreshEvery: 3_600_000,
  reconcile: reconcileCluster,
}

export interface IpamStats {
  reconciles: number
  triggers: number
  acquired: number
  released: number
  exhaustedEvents: number
  refreshes: number
  peakAllocated: number
  readonly rows: Record<string, number>
}
