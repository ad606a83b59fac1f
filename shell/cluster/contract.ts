/**
 * Resolving a contract reference (`{apiGroup, kind, name}`, no version) to a resource, as
 * Cluster API does: the kind's CRD carries the label `cluster.x-k8s.io/v1beta2` whose value lists
 * the CRD's versions that follow that contract, `_`-separated; the last served one is used.
 * A CRD without it that carries `cluster.x-k8s.io/v1beta1` follows the v1beta1 contract (upstream
 * v1.13 still accepts it): its objects are read at the v1beta1 field paths (`status.ready`,
 * `status.initialized`, `status.failureReason`/`failureMessage`, `spec.controlPlaneEndpoint`).
 *
 * @module
 */
import { type CustomResourceDefinition, crdResource } from "../kube/discovery.ts"
import type { ResourceRef } from "../kube/resource.ts"

/** The label on a provider's CRD naming the versions that implement the v1beta2 contract. */
export const CONTRACT_LABEL = "cluster.x-k8s.io/v1beta2"
/** The label of the older v1beta1 contract, still accepted by upstream v1.13. */
export const V1BETA1_CONTRACT_LABEL = "cluster.x-k8s.io/v1beta1"
/** The contracts, newest first: the newest a CRD declares is used. */
export const CONTRACT_LABELS = [CONTRACT_LABEL, V1BETA1_CONTRACT_LABEL] as const

/** The resource of a contract reference, or why it cannot be resolved (a message for a condition). */
export const resolveContract = (
  crds: ReadonlyArray<CustomResourceDefinition>,
  ref: { readonly apiGroup: string; readonly kind: string },
): ResourceRef | { readonly error: string } => {
  const crd = crds.find((c) => c.spec.group === ref.apiGroup && c.spec.names.kind === ref.kind)
  if (crd === undefined)
    return { error: `no CustomResourceDefinition defines kind ${ref.kind} in group ${ref.apiGroup}` }
  const contract = CONTRACT_LABELS.find((l) => (crd.metadata.labels?.[l] ?? "") !== "")
  const label = contract === undefined ? undefined : crd.metadata.labels?.[contract]
  if (contract === undefined || label === undefined) {
    return {
      error: `CustomResourceDefinition ${crd.metadata.name} has no label ${CONTRACT_LABEL} (or ${V1BETA1_CONTRACT_LABEL}) naming the versions that follow the contract`,
    }
  }
  const served = label
    .split("_")
    .map((v) => crd.spec.versions.find((x) => x.name === v && x.served))
    .filter((v) => v !== undefined)
  const version = served.at(-1)
  if (version === undefined) {
    return {
      error: `CustomResourceDefinition ${crd.metadata.name} serves none of the versions ${label} its ${contract} label names`,
    }
  }
  return (
    crdResource(crd, version.name) ?? {
      error: `CustomResourceDefinition ${crd.metadata.name} does not serve ${version.name}`,
    }
  )
}
