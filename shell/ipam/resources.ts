/**
 * The IPAM controller's resources (openmcp's Cluster and ClusterConfig, the IPAMConfig) and the
 * views core/ipam decides on, read from the objects the API server returns.
 *
 * @module
 */
import {
  CLUSTER_CONFIG_KIND,
  CLUSTER_CONFIG_PLURAL,
  CLUSTER_KIND,
  CLUSTER_PLURAL,
  CLUSTERS_GROUP,
  CLUSTERS_VERSION,
  type ClusterConfigView,
  type ClusterView,
  GARDENER_GROUP,
  GARDENER_VERSION,
  IPAM_CONFIG_KIND,
  IPAM_CONFIG_PLURAL,
  type JsonPatch,
} from "../../core/ipam/index.ts"
import type { KubeObject, ResourceRef } from "../kube/resource.ts"

/** openmcp's `Cluster` (`clusters.openmcp.cloud/v1alpha1`, namespaced). */
export const OpenmcpClusterResource: ResourceRef = {
  group: CLUSTERS_GROUP,
  version: CLUSTERS_VERSION,
  resource: CLUSTER_PLURAL,
  kind: CLUSTER_KIND,
  namespaced: true,
}

/** The Gardener provider's `ClusterConfig` (`gardener.clusters.openmcp.cloud/v1alpha1`, namespaced). */
export const ClusterConfigResource: ResourceRef = {
  group: GARDENER_GROUP,
  version: GARDENER_VERSION,
  resource: CLUSTER_CONFIG_PLURAL,
  kind: CLUSTER_CONFIG_KIND,
  namespaced: true,
}

/** The `IPAMConfig` (`gardener.clusters.openmcp.cloud/v1alpha1`, cluster-scoped). */
export const IpamConfigResource: ResourceRef = {
  group: GARDENER_GROUP,
  version: GARDENER_VERSION,
  resource: IPAM_CONFIG_PLURAL,
  kind: IPAM_CONFIG_KIND,
  namespaced: false,
}

/** The CRDs `krtt ipam` needs, by name (config/ipam/crds). */
export const requiredCrds: ReadonlyArray<string> = [
  OpenmcpClusterResource,
  ClusterConfigResource,
  IpamConfigResource,
].map((r) => `${r.resource}.${r.group}`)

const record = (v: unknown): Readonly<Record<string, string>> => {
  if (v === null || typeof v !== "object") return {}
  return Object.fromEntries(Object.entries(v).filter((e): e is [string, string] => typeof e[1] === "string"))
}

/** A Cluster as core/ipam reads it: labels, annotations, `spec.purposes`, deletion timestamp. */
export const clusterView = (o: KubeObject): ClusterView => {
  const spec = (o.spec ?? {}) as { readonly purposes?: unknown }
  const purposes = Array.isArray(spec.purposes)
    ? spec.purposes.filter((p): p is string => typeof p === "string")
    : []
  return {
    namespace: o.metadata.namespace ?? "",
    name: o.metadata.name ?? "",
    uid: o.metadata.uid,
    labels: record(o.metadata.labels),
    annotations: record(o.metadata.annotations),
    purposes,
    deletionTimestamp: o.metadata.deletionTimestamp,
  }
}

/** A ClusterConfig as core/ipam reads it: identity labels, finalizers, owners, `spec.patches`. */
export const clusterConfigView = (o: KubeObject): ClusterConfigView => {
  const spec = (o.spec ?? {}) as { readonly patches?: unknown }
  const patches: ReadonlyArray<JsonPatch> = Array.isArray(spec.patches)
    ? spec.patches.flatMap((p: unknown) => {
        if (p === null || typeof p !== "object") return []
        const { op, path, value } = p as { op?: unknown; path?: unknown; value?: unknown }
        return typeof op === "string" && typeof path === "string" ? [{ op, path, value }] : []
      })
    : []
  return {
    namespace: o.metadata.namespace ?? "",
    name: o.metadata.name ?? "",
    labels: record(o.metadata.labels),
    annotations: record(o.metadata.annotations),
    finalizers: o.metadata.finalizers ?? [],
    ownerReferences: o.metadata.ownerReferences ?? [],
    deletionTimestamp: o.metadata.deletionTimestamp,
    patches,
  }
}
