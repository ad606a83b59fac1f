/**
 * The Cluster resource the ClusterCache reconciles and how it names a Cluster.
 *
 * @module
 */
import type { KubeObject, ObjectKey, ResourceRef } from "../kube/resource.ts"

/** The Cluster resource of `cluster.x-k8s.io/v1beta2`. */
export const ClusterResource: ResourceRef = {
  group: "cluster.x-k8s.io",
  version: "v1beta2",
  resource: "clusters",
  kind: "Cluster",
  namespaced: true,
}

/** A Cluster: namespace and name. */
export interface ClusterKey {
  readonly namespace: string
  readonly name: string
}

/** A store of objects by key: a synced reflector's. */
export interface ObjectStore {
  readonly get: (key: ObjectKey) => KubeObject | undefined
}
