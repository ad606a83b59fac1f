/**
 * `ipam.reconcile#1`: the Cluster is gone (seed 004: "We can only release the CIDRs after the
 * `Cluster` has been fully deleted"), so the ClusterConfigs it had give their CIDRs back.
 *
 * Expected flow: for each ClusterConfig of the Cluster, in name order: the CIDR finalizer is
 * removed, then its CIDRs are released, then the ClusterConfig is deleted (unless it is being
 * deleted already).
 *
 * Guarantees: a `ReleaseCidrs` action always follows the `RemoveFinalizer` of the same
 * ClusterConfig, and the shell applies it only when that removal succeeded; a ClusterConfig
 * without the finalizer holds no CIDRs and releases none.
 *
 * @module
 */
import { emptyStatus, keyOf, type ReconcileAction, type ReconcileResult, ReconcileRow } from "./actions.ts"
import type { IpamState } from "./allocator.ts"
import { CIDR_FINALIZER } from "./constants.ts"
import type { ClusterConfigView } from "./objects.ts"

/** The CIDR texts a ClusterConfig's `add` patches carry. */
export const cidrsOfClusterConfig = (cc: ClusterConfigView): ReadonlyArray<string> =>
  cc.patches.flatMap((p) => (typeof p.value === "string" ? [p.value] : []))

/** Row 1: the answer for a gone Cluster whose ClusterConfigs are `ccs` (in name order). */
export const releaseGone = (ccs: ReadonlyArray<ClusterConfigView>, ipam: IpamState): ReconcileResult => {
  const actions: Array<ReconcileAction> = []
  const released: Array<string> = []
  for (const cc of ccs) {
    const key = keyOf(cc)
    if (cc.finalizers.includes(CIDR_FINALIZER)) {
      const cidrs = cidrsOfClusterConfig(cc)
      actions.push({ _tag: "RemoveFinalizer", clusterConfig: key, finalizer: CIDR_FINALIZER })
      actions.push({ _tag: "ReleaseCidrs", clusterConfig: key, cidrs })
      released.push(...cidrs)
    }
    if (cc.deletionTimestamp === undefined) actions.push({ _tag: "DeleteClusterConfig", clusterConfig: key })
  }
  return { actions, status: { ...emptyStatus("Released"), released }, row: ReconcileRow.released, ipam }
}
