/**
 * Resolving a contract reference (`{apiGroup, kind, name}`, no version) to a resource, as
 * Cluster API does: the kind's CRD carries the label `cluster.x-k8s.io/v1beta2` whose value lists
 * the CRD's versions that follow that contract, `_`-separated; the last served one is used.
 *
 * @module
 */
import { type CustomResourceDefinition, crdResource } from "../kube/discovery.ts"
import type { ResourceRef } from "../kube/resource.ts"

/** The label on a provider's CRD naming the versions that implement the v1beta2 contract. */
export const CONTRACT_LABEL = "cluster.x-k8s.io/v1beta2"

/** The resource of a contract reference, or why it cannot be resolved (a message for a condition). */
export const resolveContract = (
  crds: ReadonlyArray<CustomResourceDefinition>,
  ref: { readonly apiGroup: string; readonly kind: string },
): ResourceRef | { readonly error: string } => {
  const crd = crds.find((c) => c.spec.group === ref.apiGroup && c.spec.names.kind === ref.kind)
  if (crd === undefined)
    return { error: `no CustomResourceDefinition defines kind ${ref.kind} in group ${ref.apiGroup}` }
  const label = crd.metadata.labels?.[CONTRACT_LABEL]
  if (label === undefined || label === "") {
    return {
      error: `CustomResourceDefinition ${crd.metadata.name} has no label ${CONTRACT_LABEL} naming the versions that follow the contract`,
    }
  }
  const served = label
    .split("_")
    .map((v) => crd.spec.versions.find((x) => x.name === v && x.served))
    .filter((v) => v !== undefined)
  const version = served.at(-1)
  if (version === undefined) {
    return {
      error: `CustomResourceDefinition ${crd.metadata.name} serves none of the versions ${label} its ${CONTRACT_LABEL} label names`,
    }
  }
  return (
    crdResource(crd, version.name) ?? {
      error: `CustomResourceDefinition ${crd.metadata.name} does not serve ${version.name}`,
    }
  )
}
