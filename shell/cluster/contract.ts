/**
 * Resolving a contract reference (`{apiGroup, kind, name}`, no version) to a resource, as
 * Cluster API does: the kind's CRD carries the label `cluster.x-k8s.io/v1beta2` whose value lists
 * the CRD's versions that follow that contract, `_`-separated; the last served one is used.
 * A CRD without it that carries `cluster.x-k8s.io/v1beta1` follows the v1beta1 contract (upstream
 * v1.13 still accepts it): its objects are read at the v1beta1 field paths (`status.ready`,
 * `status.initialized`, `status.failureReason`/`failureMessage`, `spec.controlPlaneEndpoint`).
 * A reference that does not resolve is a `ContractError`, whose message is meant for a condition.
 *
 * @module
 */
import * as Data from "effect/Data"
import * as Result from "effect/Result"
import { ContractLabel, V1Beta1ContractLabel } from "../../core/cluster/contract.ts"
import { type CustomResourceDefinition, crdResource } from "../kube/discovery.ts"
import type { ResourceRef } from "../kube/resource.ts"

/** The contracts, newest first: the newest a CRD declares is used. */
const CONTRACT_LABELS = [ContractLabel, V1Beta1ContractLabel] as const

/** A contract reference that does not resolve to a served resource; the message says why. */
export class ContractError extends Data.TaggedError("ContractError")<{ readonly message: string }> {}

const unresolved = (message: string) => Result.fail(new ContractError({ message }))

/** The resource of a contract reference, or why it cannot be resolved. */
export const contractResource = (
  crds: ReadonlyArray<CustomResourceDefinition>,
  ref: { readonly apiGroup: string; readonly kind: string },
): Result.Result<ResourceRef, ContractError> => {
  const crd = crds.find((c) => c.spec.group === ref.apiGroup && c.spec.names.kind === ref.kind)
  if (crd === undefined)
    return unresolved(`no CustomResourceDefinition defines kind ${ref.kind} in group ${ref.apiGroup}`)
  const contract = CONTRACT_LABELS.find((l) => (crd.metadata.labels?.[l] ?? "") !== "")
  const label = contract === undefined ? undefined : crd.metadata.labels?.[contract]
  if (contract === undefined || label === undefined) {
    return unresolved(
      `CustomResourceDefinition ${crd.metadata.name} has no label ${ContractLabel} (or ${V1Beta1ContractLabel}) naming the versions that follow the contract`,
    )
  }
  const served = label
    .split("_")
    .map((v) => crd.spec.versions.find((x) => x.name === v && x.served))
    .filter((v) => v !== undefined)
  const version = served.at(-1)
  if (version === undefined) {
    return unresolved(
      `CustomResourceDefinition ${crd.metadata.name} serves none of the versions ${label} its ${contract} label names`,
    )
  }
  const resource = crdResource(crd, version.name)
  return resource === undefined
    ? unresolved(`CustomResourceDefinition ${crd.metadata.name} does not serve ${version.name}`)
    : Result.succeed(resource)
}
