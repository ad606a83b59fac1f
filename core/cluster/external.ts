/**
 * reconcileInfrastructure and reconcileControlPlane (seed 001, "Reconciliation Phases" 1 and 2),
 * as their flowcharts draw them. Both run on every reconcile that gets past the top-level checks,
 * while deleting too.
 *
 * Expected flow, for the object a ref names:
 * - no ref: the infrastructure counts as provisioned (not while the Cluster is deleted); a
 *   control plane is left to the Machines;
 * - not found: tolerated while deleting; an error once it was provisioned / initialized; else
 *   requeue after `missingReferenceRequeueAfter` (30 s);
 * - found: ensure the Cluster's owner reference and the `cluster.x-k8s.io/cluster-name` label;
 *   unless the object is being deleted, once it reports provisioned / initialized or the flag is
 *   set already, copy the endpoint (when the Cluster has no valid one) and, for the
 *   infrastructure, the failure domains, and set the flag (as upstream v1.14.2).
 *
 * Guarantees: a flag is only ever set, never cleared; an endpoint the Cluster already has is
 * never overwritten.
 *
 * @module
 */
import type { ExternalRole } from "./actions.ts"
import { ConditionLimits } from "./conditions.ts"
import {
  ClusterNameLabel,
  clusterOwnerReference,
  describeRef,
  failureDomainsOf,
  hasExactOwnerReference,
  isDeleting,
  isInitialized,
  isProvisioned,
  isValidEndpoint,
} from "./contract.ts"
import { requeue, type Scope } from "./scope.ts"
import type { APIEndpoint, ContractReference, ObjectMeta } from "./types.ts"

/** reconcileInfrastructure. */
export const reconcileInfrastructure = (s: Scope): void => {
  const ref = s.spec.infrastructureRef
  const t = s.trace
  if (ref === undefined) {
    t.infrastructure = "NoRef"
    // Upstream marks it only while the Cluster is not being deleted.
    if (!s.deleting) mark(s, "infrastructure")
    return
  }
  const fetched = s.observed.infrastructure
  switch (fetched._tag) {
    case "GetFailed":
      t.infrastructure = "GetFailed"
      s.errors.push(`failed to get ${describeRef(ref)}: ${fetched.error}`)
      return
    case "NotFound":
      notFound(s, ref, "infrastructure")
      return
    case "Found": {
      const infra = fetched.object
      ensureOwned(s, "infrastructure", ref, infra.metadata)
      copyFailure(s, ref, infra)
      // Upstream stops at an object being deleted, and goes on once the flag is set whatever
      // the object reports now.
      if (isDeleting(infra.metadata) || (!isProvisioned(infra) && !s.infrastructureProvisioned)) {
        t.infrastructure = "Waiting"
        return
      }
      t.infrastructure = "Ready"
      copyEndpoint(s, infra.spec?.controlPlaneEndpoint, "infrastructure")
      s.failureDomains = failureDomainsOf(infra) ?? []
      mark(s, "infrastructure")
      return
    }
  }
}

/** reconcileControlPlane. */
export const reconcileControlPlane = (s: Scope): void => {
  const ref = s.spec.controlPlaneRef
  const t = s.trace
  if (ref === undefined) {
    t.controlPlane = "NoRef"
    return
  }
  const fetched = s.observed.controlPlane
  switch (fetched._tag) {
    case "GetFailed":
      t.controlPlane = "GetFailed"
      s.errors.push(`failed to get ${describeRef(ref)}: ${fetched.error}`)
      return
    case "NotFound":
      // Stryker disable next-line StringLiteral
      notFound(s, ref, "controlPlane")
      return
    case "Found": {
      const cp = fetched.object
      ensureOwned(s, "controlPlane", ref, cp.metadata)
      copyFailure(s, ref, cp)
      // As for the infrastructure: not an object being deleted; on once the flag is set.
      if (isDeleting(cp.metadata) || (!isInitialized(cp) && !s.controlPlaneInitialized)) {
        t.controlPlane = "Waiting"
        return
      }
      t.controlPlane = "Ready"
      copyEndpoint(s, cp.spec?.controlPlaneEndpoint, "controlPlane")
      // Stryker disable next-line StringLiteral
      mark(s, "controlPlane")
      return
    }
  }
}

const notFound = (s: Scope, ref: ContractReference, role: ExternalRole): void => {
  const t = s.trace
  const path = (p: NonNullable<typeof t.infrastructure>) => {
    if (role === "infrastructure") t.infrastructure = p
    else t.controlPlane = p
  }
  if (s.deleting) {
    path("Tolerated")
    return
  }
  const wasReady = role === "infrastructure" ? s.infrastructureProvisioned : s.controlPlaneInitialized
  if (wasReady) {
    path("DeletedAfterReady")
    const word = role === "infrastructure" ? "provisioned" : "initialized"
    s.errors.push(`${describeRef(ref)} has been deleted after being ${word}`)
    return
  }
  path("Requeue")
  requeue(s, s.config.missingReferenceRequeueAfter)
}

/**
 * Sets the owner reference and the cluster-name label unless the object already has both, as
 * upstream's ensureOwnerRefAndLabel: the reference must match exactly (apiVersion, uid, and the
 * controller flag a topology Cluster sets). When another owner controls the object, the API
 * server refuses a second controller reference and the action fails.
 */
const ensureOwned = (s: Scope, role: ExternalRole, ref: ContractReference, meta: ObjectMeta): void => {
  const { name, uid } = s.cluster.metadata
  const owner = clusterOwnerReference(name, uid, s.spec.topology !== undefined)
  const labelled = meta.labels?.[ClusterNameLabel] === name
  if (labelled && hasExactOwnerReference(meta.ownerReferences ?? [], owner)) return
  s.actions.push({
    _tag: "PatchExternal",
    role,
    ref: { apiGroup: ref.apiGroup, kind: ref.kind, namespace: s.key.namespace, name: ref.name },
    ownerReference: owner,
    labels: { [ClusterNameLabel]: name },
  })
}

/**
 * Copies a provider's `status.failureReason` and `status.failureMessage` (v1beta1 contract) to
 * the Cluster's `status.deprecated.v1beta1`, as upstream's getExternal does: the reason as it
 * is, the message prefixed with the object it comes from. Never cleared here (upstream neither).
 */
const copyFailure = (
  s: Scope,
  ref: ContractReference,
  o: {
    readonly apiVersion?: string
    readonly status?: { readonly failureReason?: string; readonly failureMessage?: string }
  },
): void => {
  const reason = o.status?.failureReason
  const message = o.status?.failureMessage
  if (reason !== undefined && reason !== "") s.failure.reason = reason
  if (message !== undefined && message !== "") {
    const full = `Failure detected from referenced resource ${o.apiVersion ?? ref.apiGroup}, Kind=${ref.kind} with name "${ref.name}": ${message}`
    // Upstream's CRD: at most 10240 characters.
    const max = ConditionLimits.v1beta1MessageMax
    s.failure.message = full.length <= max ? full : `${full.slice(0, max - 3)}...`
  }
}

/** Copies a provider's endpoint into `spec.controlPlaneEndpoint` when the Cluster has none. */
const copyEndpoint = (s: Scope, endpoint: APIEndpoint | undefined, from: ExternalRole): void => {
  if (isValidEndpoint(s.endpoint) || !isValidEndpoint(endpoint)) return
  s.endpoint = { host: endpoint.host, port: endpoint.port }
  s.actions.push({
    _tag: "SetControlPlaneEndpoint",
    cluster: s.key,
    endpoint: { host: endpoint.host, port: endpoint.port },
    from,
  })
}

const mark = (s: Scope, role: ExternalRole): void => {
  if (role === "infrastructure") {
    if (!s.infrastructureProvisioned) s.trace.infrastructureMarked = true
    s.infrastructureProvisioned = true
  } else {
    if (!s.controlPlaneInitialized) s.trace.controlPlaneMarked = true
    s.controlPlaneInitialized = true
  }
}
