/**
 * The vocabulary of the dynamic scoped cache (seed 002, "Cache Components"): scopes, GVKs,
 * informer keys, dependents and the state of one informer.
 *
 * The seed's `InformerOptions` names an informer by namespace, GVK and key, with "" as the
 * namespace of a cluster-level informer ("If InformerOptions.Namespace == "" the informer will be
 * added to the ClusterScopedCache"); {@link InformerRef} keeps that convention.
 *
 * @module
 */
import type { DependentSet } from "./dependents.ts"

/** The namespace of a cluster-level informer (seed 002, Wrapper: `Namespace == ""`). */
export const CLUSTER_SCOPE = ""

/** `schema.GroupVersionKind`; the core group is `""`. */
export interface Gvk {
  readonly group: string
  readonly version: string
  readonly kind: string
}

/** `apps/v1/Deployment`, `v1/Pod`: the GVK as one string, a registry key. */
export const gvkString = (gvk: Gvk): string =>
  gvk.group === "" ? `${gvk.version}/${gvk.kind}` : `${gvk.group}/${gvk.version}/${gvk.kind}`

/** Which informer an operation names: scope (namespace, "" for cluster), GVK and informer key. */
export interface InformerRef {
  /** The namespace it watches; {@link CLUSTER_SCOPE} (`""`) for a cluster-level informer. */
  readonly namespace: string
  readonly gvk: Gvk
  /** The informer's unique key within its scope and GVK (seed: `Informers map[string]ScopeInformer`). */
  readonly key: string
}

/** Whether a ref names a cluster-level informer. */
export const isClusterLevel = (ref: InformerRef): boolean => ref.namespace === CLUSTER_SCOPE

/** `ns/apps/v1/Deployment#key`, with `*` as the namespace of a cluster-level informer: for logs. */
export const refString = (ref: InformerRef): string =>
  `${ref.namespace === CLUSTER_SCOPE ? "*" : ref.namespace}/${gvkString(ref.gvk)}#${ref.key}`

/**
 * A resource that depends on an informer (seed: `Dependents map[types.UID]metav1.Object`): counted
 * by its UID; the other fields only say who to tell when the informer goes away.
 */
export interface Dependent {
  readonly uid: string
  readonly kind?: string | undefined
  readonly namespace?: string | undefined
  readonly name?: string | undefined
}

/**
 * The state of one registered informer.
 * - `Pending`: registered before the cache started; `Start` starts it.
 * - `Starting`: started (its list and watch run), not yet synced.
 * - `Synced`: its first list is stored; reads are answered without waiting.
 * - `Covered`: a namespace-level informer whose GVK and key are watched at cluster level: it does
 *   not run, the cluster-level informer serves its namespace (see spec/scopedcache, resolution
 *   "both levels").
 */
export type InformerState = "Pending" | "Starting" | "Synced" | "Covered"

/** Whether an informer in this state has a running list/watch (a 403 can only come from one). */
export const isRunning = (state: InformerState): boolean => state === "Starting" || state === "Synced"

/** One informer of the registry: its state and its dependents (seed: `ScopeInformer`). */
export interface InformerEntry {
  readonly ref: InformerRef
  readonly state: InformerState
  readonly dependents: DependentSet
}

/** A namespace-level informer with the same GVK and key as a cluster-level one. */
export interface Peer {
  readonly namespace: string
  readonly state: InformerState
}
