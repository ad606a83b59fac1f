/**
 * What a controller is asked to reconcile: `{cluster, namespace, name}`, the cluster being a
 * branded `ClusterName` (multicluster-runtime's request). The empty cluster `""` is the
 * management (hub) cluster. A request prints as `cluster://<cluster>/<namespace>/<name>`.
 *
 * @module
 */
import type * as Brand from "effect/Brand"
import * as B from "effect/Brand"

/** The name of a cluster as its provider knows it; `""` is the management (hub) cluster. */
export type ClusterName = string & Brand.Brand<"ClusterName">

/** Brands a string as a cluster name (no validation: providers choose their names). */
export const ClusterName: Brand.Constructor<ClusterName> = B.nominal<ClusterName>()

/** The management (hub) cluster: the cluster the operator runs against. */
export const HubCluster: ClusterName = ClusterName("")

/** A request to reconcile one object of one cluster (namespace `""` for cluster-scoped objects). */
export interface Request {
  readonly cluster: ClusterName
  readonly namespace: string
  readonly name: string
}

/** A request; the cluster defaults to the hub. */
export const makeRequest = (
  key: { readonly namespace?: string | undefined; readonly name: string },
  cluster: ClusterName = HubCluster,
): Request => ({ cluster, namespace: key.namespace ?? "", name: key.name })

/** `cluster://<cluster>/<namespace>/<name>`, for logs (not a unique key: use `requestKey`). */
export const formatRequest = (r: Request): string => `cluster://${r.cluster}/${r.namespace}/${r.name}`

/**
 * A unique string for a request, for maps and de-duplication. Unlike `formatRequest` it stays
 * unambiguous when cluster names contain `/` (e.g. `namespace/name` of a Cluster API cluster).
 */
export const requestKey = (r: Request): string => JSON.stringify([r.cluster, r.namespace, r.name])

/** Whether two requests name the same object of the same cluster. */
export const requestEquals = (a: Request, b: Request): boolean =>
  a.cluster === b.cluster && a.namespace === b.namespace && a.name === b.name
