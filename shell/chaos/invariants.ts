/**
 * The operator suite's safety invariants, checked on every committed write of the management
 * server (seed 001, "Deletion Reconciliation" rows 6 to 8: the control plane is deleted first, the
 * infrastructure once it is gone, the finalizer last), and the foreign-condition check every suite
 * whose third party writes a condition shares (`foreignConditionLost`; with it, the third party's
 * finalizer, `heldFinalizerLost` of `hold.ts`).
 *
 * Guarantees: a check runs synchronously inside the commit (`FakeApiServer.onCommit`), so no
 * write of the operator escapes it, whatever the perturbation.
 *
 * @module
 */

import { ClusterFinalizer } from "../../core/cluster/contract.ts"
import type { FakeApiServer } from "../apiserver/server.ts"
import { ClusterResource } from "../clustercache/service.ts"
import type { KubeObject, ResourceRef } from "../kube/resource.ts"
import { heldFinalizerLost } from "./hold.ts"
import { CONTROL_PLANE, INFRA } from "./scenarios.ts"
import { conditionsOf, FOREIGN_CONDITION } from "./thirdParty.ts"

const gr = (r: ResourceRef) => `${r.group}/${r.resource}`

/** Whether a committed write lost the third party's condition (what it says, or undefined). */
export const foreignConditionLost = (
  type: string,
  old: KubeObject | undefined,
  object: KubeObject,
): string | undefined => {
  if (type === "DELETED" || old === undefined) return undefined
  const before = conditionsOf(old).find((c) => c.type === FOREIGN_CONDITION)
  const after = conditionsOf(object).find((c) => c.type === FOREIGN_CONDITION)
  return before !== undefined && after === undefined
    ? `another writer's condition ${FOREIGN_CONDITION} lost`
    : undefined
}

/**
 * The safety invariants, checked on every committed write of the management server:
 * a provider object is never deleted before its Cluster is deleting; the infrastructure is never
 * deleted while the control plane exists; the Cluster's finalizer is never removed while its
 * provider objects exist; a foreign condition is never lost.
 */
export const watchInvariants = (mgmt: FakeApiServer, violations: Array<string>): (() => void) =>
  mgmt.onCommit(({ resource, type, object, old }) => {
    const ns = object.metadata.namespace ?? ""
    const name = object.metadata.name ?? ""
    const find = (ref: ResourceRef) =>
      mgmt.objects(ref).find((o) => o.metadata.namespace === ns && o.metadata.name === name)
    const startsDeletion =
      type === "DELETED" ||
      (object.metadata.deletionTimestamp !== undefined && old?.metadata.deletionTimestamp === undefined)
    if ((resource === gr(INFRA) || resource === gr(CONTROL_PLANE)) && startsDeletion && old !== undefined) {
      const cluster = find(ClusterResource)
      if (cluster !== undefined && cluster.metadata.deletionTimestamp === undefined)
        violations.push(
          `${object.kind ?? resource} ${ns}/${name} deleted before its Cluster was deleting (rv ${object.metadata.resourceVersion})`,
        )
      if (resource === gr(INFRA) && type !== "DELETED" && find(CONTROL_PLANE) !== undefined)
        violations.push(
          `infrastructure ${ns}/${name} deleted while the control plane exists (rv ${object.metadata.resourceVersion})`,
        )
    }
    if (resource === gr(ClusterResource) && old !== undefined) {
      const had = old.metadata.finalizers?.includes(ClusterFinalizer) === true
      const has = object.metadata.finalizers?.includes(ClusterFinalizer) === true
      if (had && (!has || type === "DELETED")) {
        const children = [INFRA, CONTROL_PLANE].filter((r) => find(r) !== undefined).map((r) => r.kind)
        if (children.length > 0)
          violations.push(
            `Cluster ${ns}/${name}: finalizer removed while ${children.join(" and ")} exist (rv ${object.metadata.resourceVersion})`,
          )
      }
      for (const lost of [foreignConditionLost(type, old, object), heldFinalizerLost(old, object)])
        if (lost !== undefined)
          violations.push(`Cluster ${ns}/${name}: ${lost} (rv ${object.metadata.resourceVersion})`)
    }
  })
