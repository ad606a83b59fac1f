/**
 * `krtt/kube`: the Kubernetes client every krtt runtime is built on. A typed REST client with
 * rate limiting, pagination, watches and the three patch kinds; typed errors for every API
 * status (`NotFound`, `Conflict`, `Forbidden`, …); resource references and object shapes.
 * Kubeconfig loading, authentication and TLS come from `@kubernetes/client-node`.
 *
 * @module
 */
export {
  type DeleteOptions,
  KubeClient,
  type KubeClientShape,
  type ListAllOptions,
  type ListOptions,
  type PatchOptions,
  type Selectors,
  type WatchOptions,
  type WriteOptions,
} from "../shell/kube/client.ts"
export {
  AlreadyExists,
  ApiError,
  Conflict,
  Forbidden,
  Gone,
  Invalid,
  isKubeError,
  isRetryable,
  type KubeError,
  NotFound,
  type RequestFailure,
  Timeout,
  Unauthorized,
  Unreachable,
} from "../shell/kube/errors.ts"
export { ClientDefaults, type ClientOptions } from "../shell/kube/options.ts"
export { applyPatch, jsonPatch, mergePatch, type Patch } from "../shell/kube/patch.ts"
export {
  apiVersionOf,
  controllerReference,
  type KubeObject,
  keyOf,
  type ObjectKey,
  type ObjectList,
  type ObjectMeta,
  type OwnerReference,
  objectKeyOf,
  type ResourceRef,
  Resources,
} from "../shell/kube/resource.ts"
export { makeRestClient, restClientLayer } from "../shell/kube/restClient.ts"
export type { WatchEvent } from "../shell/kube/watch.ts"
export {
  make as makeReflector,
  type Reflector,
  type ReflectorEvent,
  type ReflectorOptions,
  type ReflectorStatus,
} from "../shell/reflector/reflector.ts"
export { type IndexFunc, type ReadonlyStore, Store } from "../shell/reflector/store.ts"
export { type ClusterName, HubCluster, makeRequest, type Request } from "../shell/workqueue/request.ts"
