/**
 * What the IPAM controller observes: the Cluster of a request and its ClusterConfigs, read fresh
 * from the API server for each reconcile, and the watch events of Clusters and ClusterConfigs as
 * the trigger table (`ipam.trigger`) reads them.
 *
 * # Guarantees
 * - A reconcile reads from the API server, not from a cache, which could still miss the previous
 *   reconcile's writes; a Cluster that is gone is read as `undefined`.
 * - ClusterConfigs whose controller owner reference names another uid than the live Cluster's
 *   belong to an earlier Cluster of the same name: they are observed apart (`earlier`), to be
 *   released as a gone Cluster's (`ipam.reconcile#1`).
 * - A ClusterConfig first seen with its deletion timestamp set counts as that timestamp arriving
 *   (`ipam.trigger#5`).
 *
 * @module
 */
import * as Effect from "effect/Effect"
import {
  CLUSTER_TARGET_LABEL,
  type ClusterConfigView,
  type IpamEvent,
  MANAGED_PURPOSE,
  MANAGED_PURPOSE_LABEL,
} from "../../core/ipam/index.ts"
import type { KubeClientShape } from "../kube/client.ts"
import type { KubeError } from "../kube/errors.ts"
import type { KubeObject } from "../kube/resource.ts"
import type { ReflectorEvent } from "../reflector/reflector.ts"
import { ClusterConfigResource, clusterConfigView, clusterView, OpenmcpClusterResource } from "./resources.ts"

/** One reconcile's reads: the Cluster and its ClusterConfigs, split by the Cluster they belong to. */
export interface ClusterObserved {
  /** The Cluster, or `undefined` when the API server says NotFound. */
  readonly cluster: KubeObject | undefined
  /** The ClusterConfigs of this Cluster (or of no Cluster by uid). */
  readonly current: ReadonlyArray<KubeObject>
  /** The ClusterConfigs of an earlier Cluster of the same name. */
  readonly earlier: ReadonlyArray<KubeObject>
}

/** A ClusterConfig's controller owner reference of kind Cluster names another uid than the live Cluster's. */
const fromEarlierCluster = (cc: KubeObject, uid: string | undefined): boolean =>
  uid !== undefined &&
  (cc.metadata.ownerReferences ?? []).some(
    (r) => r.controller === true && r.kind === "Cluster" && r.uid !== uid,
  )

/** Reads the Cluster `key` and the ClusterConfigs labelled for it. */
export const observeCluster = (
  client: KubeClientShape,
  key: { readonly namespace: string; readonly name: string },
): Effect.Effect<ClusterObserved, KubeError> =>
  Effect.gen(function* () {
    const cluster = yield* client
      .get(OpenmcpClusterResource, key)
      .pipe(Effect.catchTag("NotFound", () => Effect.succeed(undefined)))
    const list = yield* client.listAll(ClusterConfigResource, {
      namespace: key.namespace,
      labelSelector: `${MANAGED_PURPOSE_LABEL}=${MANAGED_PURPOSE},${CLUSTER_TARGET_LABEL}=${key.name}`,
    })
    const earlier = list.items.filter((cc) => fromEarlierCluster(cc, cluster?.metadata.uid))
    return { cluster, current: list.items.filter((cc) => !earlier.includes(cc)), earlier }
  })

/** A watch event of a Cluster, for the trigger table. */
export const clusterEvent = (e: ReflectorEvent<KubeObject>): IpamEvent =>
  e._tag === "Added"
    ? { _tag: "ClusterCreated", cluster: clusterView(e.object) }
    : e._tag === "Deleted"
      ? { _tag: "ClusterDeleted", cluster: clusterView(e.object) }
      : { _tag: "ClusterUpdated", old: clusterView(e.old), cluster: clusterView(e.object) }

/**
 * A watch event of a ClusterConfig, for the trigger table. One first seen with its deletion
 * timestamp already set (the list after a restart, when the garbage collector took it while the
 * controller was down) is the news of that timestamp, which the watch would otherwise have
 * brought as an update: it is handed on as one (`ipam.trigger#5`), so the gone Cluster's CIDRs
 * are released.
 */
export const clusterConfigEvent = (e: ReflectorEvent<KubeObject>): IpamEvent => {
  const view = (o: KubeObject): ClusterConfigView => clusterConfigView(o)
  if (e._tag === "Added" && e.object.metadata.deletionTimestamp !== undefined) {
    const cc = view(e.object)
    return { _tag: "ClusterConfigUpdated", old: { ...cc, deletionTimestamp: undefined }, clusterConfig: cc }
  }
  return e._tag === "Added"
    ? { _tag: "ClusterConfigCreated", clusterConfig: view(e.object) }
    : e._tag === "Deleted"
      ? { _tag: "ClusterConfigDeleted", clusterConfig: view(e.object) }
      : { _tag: "ClusterConfigUpdated", old: view(e.old), clusterConfig: view(e.object) }
}
