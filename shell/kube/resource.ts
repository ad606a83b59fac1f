/**
 * What the kube client talks about: resources, objects, keys and the REST paths that name them.
 *
 * A resource is identified by `{group, version, resource, kind, namespaced}` (the discovery
 * document's view), so the client is generic over every built-in kind and every CRD without
 * generated code.
 *
 * @module
 */

/** A REST resource: the plural `resource` is what URLs carry; `kind` is what objects carry. */
export interface ResourceRef {
  /** API group, `""` for the core group (`/api/v1`). */
  readonly group: string
  readonly version: string
  /** Lower-case plural, e.g. `configmaps`. */
  readonly resource: string
  /** e.g. `ConfigMap`. */
  readonly kind: string
  readonly namespaced: boolean
}

/** An owner reference as written in `metadata.ownerReferences`. */
export interface OwnerReference {
  readonly apiVersion: string
  readonly kind: string
  readonly name: string
  readonly uid: string
  readonly controller?: boolean | undefined
  readonly blockOwnerDeletion?: boolean | undefined
}

/** The fields of `metadata` that the runtime reads; other fields pass through untouched. */
export interface ObjectMeta {
  readonly name?: string | undefined
  readonly generateName?: string | undefined
  readonly namespace?: string | undefined
  readonly uid?: string | undefined
  readonly resourceVersion?: string | undefined
  readonly generation?: number | undefined
  readonly creationTimestamp?: string | undefined
  readonly deletionTimestamp?: string | undefined
  readonly deletionGracePeriodSeconds?: number | undefined
  readonly labels?: Readonly<Record<string, string>> | undefined
  readonly annotations?: Readonly<Record<string, string>> | undefined
  readonly finalizers?: ReadonlyArray<string> | undefined
  readonly ownerReferences?: ReadonlyArray<OwnerReference> | undefined
  readonly [field: string]: unknown
}

/** Any Kubernetes object as JSON. Decode it with Schema where the shape matters. */
export interface KubeObject {
  readonly apiVersion?: string | undefined
  readonly kind?: string | undefined
  readonly metadata: ObjectMeta
  readonly [field: string]: unknown
}

/** Names one object: `namespace` is ignored (and may be omitted) for cluster-scoped resources. */
export interface ObjectKey {
  readonly namespace?: string | undefined
  readonly name: string
}

/** One page of a list, or all pages joined. */
export interface ObjectList<T extends KubeObject = KubeObject> {
  readonly items: ReadonlyArray<T>
  /** The list's resourceVersion: the point to start a watch from. */
  readonly resourceVersion: string
  /** Present when more pages follow (pass it as `continue`). */
  readonly continue?: string | undefined
  /** The server's estimate of the items not yet returned, when it gives one. */
  readonly remainingItemCount?: number | undefined
}

/** `group/version`, or `version` for the core group. */
export const apiVersionOf = (ref: Pick<ResourceRef, "group" | "version">): string =>
  ref.group === "" ? ref.version : `${ref.group}/${ref.version}`

/** Splits an apiVersion into group and version (`v1` is the core group). */
export const parseApiVersion = (apiVersion: string): { readonly group: string; readonly version: string } => {
  const slash = apiVersion.indexOf("/")
  return slash < 0
    ? { group: "", version: apiVersion }
    : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) }
}

/** `/api/v1` or `/apis/<group>/<version>`. */
export const groupVersionPath = (ref: Pick<ResourceRef, "group" | "version">): string =>
  ref.group === "" ? `/api/${ref.version}` : `/apis/${ref.group}/${ref.version}`

/**
 * The REST path of a collection, an object or a subresource. `namespace` is used only for
 * namespaced resources; without it a namespaced collection path lists across namespaces.
 */
export const resourcePath = (
  ref: ResourceRef,
  target: { readonly namespace?: string | undefined; readonly name?: string | undefined } = {},
  subresource?: string,
): string => {
  const ns = ref.namespaced && target.namespace ? `/namespaces/${encodeURIComponent(target.namespace)}` : ""
  const name = target.name === undefined ? "" : `/${encodeURIComponent(target.name)}`
  const sub = subresource === undefined || target.name === undefined ? "" : `/${subresource}`
  return `${groupVersionPath(ref)}${ns}/${ref.resource}${name}${sub}`
}

/** The key the store and the work queue use: `namespace/name`, or `name` when cluster-scoped. */
export const keyOf = (key: ObjectKey): string =>
  key.namespace === undefined || key.namespace === "" ? key.name : `${key.namespace}/${key.name}`

/** The `ObjectKey` of an object (its name and namespace, empty strings when absent). */
export const objectKeyOf = (obj: KubeObject): ObjectKey => ({
  namespace: obj.metadata.namespace ?? "",
  name: obj.metadata.name ?? "",
})

/** A controller owner reference to `owner`, for objects it creates. */
export const controllerReference = (owner: KubeObject, blockOwnerDeletion = true): OwnerReference => ({
  apiVersion: owner.apiVersion ?? "",
  kind: owner.kind ?? "",
  name: owner.metadata.name ?? "",
  uid: owner.metadata.uid ?? "",
  controller: true,
  blockOwnerDeletion,
})

/** Well-known resources that the runtime itself uses. */
export const Resources = {
  namespaces: { group: "", version: "v1", resource: "namespaces", kind: "Namespace", namespaced: false },
  configMaps: { group: "", version: "v1", resource: "configmaps", kind: "ConfigMap", namespaced: true },
  secrets: { group: "", version: "v1", resource: "secrets", kind: "Secret", namespaced: true },
  events: { group: "", version: "v1", resource: "events", kind: "Event", namespaced: true },
  serviceAccounts: {
    group: "",
    version: "v1",
    resource: "serviceaccounts",
    kind: "ServiceAccount",
    namespaced: true,
  },
  leases: {
    group: "coordination.k8s.io",
    version: "v1",
    resource: "leases",
    kind: "Lease",
    namespaced: true,
  },
  customResourceDefinitions: {
    group: "apiextensions.k8s.io",
    version: "v1",
    resource: "customresourcedefinitions",
    kind: "CustomResourceDefinition",
    namespaced: false,
  },
} as const satisfies Record<string, ResourceRef>
