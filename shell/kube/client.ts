/**
 * `KubeClient`: access to one cluster's Kubernetes API as an Effect service.
 *
 * The service is generic over resources (see `ResourceRef`): every call names the resource and
 * the object, and fails with the typed errors of `errors.ts`. Two implementations share this
 * shape: `makeRestClient` (HTTP over a client-node `KubeConfig`: authentication, TLS, proxies)
 * and `makeMemoryClient` (over the in-memory API server of `shell/apiserver`, for tests and
 * `krtt chaos` on virtual time). This module is the interface only: it imports no implementation.
 *
 * One cluster, one client: a program that talks to one cluster provides the `KubeClient` tag;
 * a multi-cluster component (the ClusterCache) makes one client per cluster with the
 * constructors and keeps them itself.
 *
 * @module
 */
import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import type * as Stream from "effect/Stream"
import type { KubeError } from "./errors.ts"
import type { Patch } from "./patch.ts"
import type { KubeObject, ObjectKey, ObjectList, ResourceRef } from "./resource.ts"
import type { WatchEvent } from "./watch.ts"

/** Label and field selectors, in the string form the API takes (see `selector.ts`). */
export interface Selectors {
  readonly labelSelector?: string | undefined
  readonly fieldSelector?: string | undefined
}

/** One page of a list. */
export interface ListOptions extends Selectors {
  /** Namespace to list in; all namespaces when absent (or for cluster-scoped resources). */
  readonly namespace?: string | undefined
  /** Page size; the server decides (all items) when absent. */
  readonly limit?: number | undefined
  /** The `continue` token of the previous page. */
  readonly continue?: string | undefined
  /** `"0"` lets the server answer from its watch cache; absent means the latest (a quorum read). */
  readonly resourceVersion?: string | undefined
  readonly resourceVersionMatch?: "NotOlderThan" | "Exact" | undefined
}

/** Every page of a list, joined. */
export interface ListAllOptions extends Selectors {
  readonly namespace?: string | undefined
  /** Items per page. Default 500 (client-go's pager). */
  readonly pageSize?: number | undefined
}

/** A watch. Without `resourceVersion` the server first sends the current objects as ADDED. */
export interface WatchOptions extends Selectors {
  readonly namespace?: string | undefined
  /** Start after this resourceVersion (the list's, or the last event's). */
  readonly resourceVersion?: string | undefined
  /** Ask for BOOKMARK events that advance the resourceVersion while nothing changes. */
  readonly allowWatchBookmarks?: boolean | undefined
  /** The server closes the watch after this many seconds (the stream then ends without error). */
  readonly timeoutSeconds?: number | undefined
  /**
   * Streaming list: the current objects as ADDED, then a BOOKMARK annotated
   * `k8s.io/initial-events-end: "true"` (sets `resourceVersionMatch=NotOlderThan` itself).
   */
  readonly sendInitialEvents?: boolean | undefined
}

/** Options of create and update. */
export interface WriteOptions {
  /** Validate and admit, but persist nothing. */
  readonly dryRun?: boolean | undefined
  readonly fieldManager?: string | undefined
}

/** Options of patch. `fieldManager` is required for server-side apply. */
export interface PatchOptions extends WriteOptions {
  /** Server-side apply only: take ownership of conflicting fields. */
  readonly force?: boolean | undefined
}

/** Options of delete. */
export interface DeleteOptions {
  readonly dryRun?: boolean | undefined
  readonly propagationPolicy?: "Foreground" | "Background" | "Orphan" | undefined
  readonly gracePeriodSeconds?: number | undefined
  /** Delete only if the object still has this uid / resourceVersion (else 409 Conflict). */
  readonly preconditions?:
    | { readonly uid?: string | undefined; readonly resourceVersion?: string | undefined }
    | undefined
}

/** A request outside the resource model (discovery documents, `/version`, `/readyz`). */
export interface RawRequest {
  readonly method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE"
  /** Absolute path, e.g. `/apis/apps/v1`. */
  readonly path: string
  readonly query?: Readonly<Record<string, string>> | undefined
  readonly body?: unknown
  /** The verb that errors report. Default: the method in lower case. */
  readonly verb?: string | undefined
  /** Overrides the client's timeout for this request. */
  readonly timeout?: Duration.Input | undefined
}

/** What a KubeClient can do; every call is rate limited and has the client's timeout. */
export interface KubeClientShape {
  /** GET one object. */
  readonly get: <T extends KubeObject = KubeObject>(
    resource: ResourceRef,
    key: ObjectKey,
  ) => Effect.Effect<T, KubeError>
  /** One page of a list (use `continue` for the next). */
  readonly list: <T extends KubeObject = KubeObject>(
    resource: ResourceRef,
    options?: ListOptions,
  ) => Effect.Effect<ObjectList<T>, KubeError>
  /** Every page, joined; the resourceVersion is the first page's (the snapshot's). */
  readonly listAll: <T extends KubeObject = KubeObject>(
    resource: ResourceRef,
    options?: ListAllOptions,
  ) => Effect.Effect<ObjectList<T>, KubeError>
  /** POST a new object; its namespace comes from `metadata.namespace`. AlreadyExists if taken. */
  readonly create: <T extends KubeObject = KubeObject>(
    resource: ResourceRef,
    object: T,
    options?: WriteOptions,
  ) => Effect.Effect<T, KubeError>
  /** PUT (replace); Conflict if `metadata.resourceVersion` is given and stale. Status is ignored. */
  readonly update: <T extends KubeObject = KubeObject>(
    resource: ResourceRef,
    object: T,
    options?: WriteOptions,
  ) => Effect.Effect<T, KubeError>
  /** PATCH; server-side apply creates the object when absent. */
  readonly patch: <T extends KubeObject = KubeObject>(
    resource: ResourceRef,
    key: ObjectKey,
    patch: Patch,
    options?: PatchOptions,
  ) => Effect.Effect<T, KubeError>
  /**
   * DELETE. Returns the object as the server last had it: with `deletionTimestamp` set when
   * finalizers delay the deletion; `undefined` when the server answered with a bare Status.
   */
  readonly delete: <T extends KubeObject = KubeObject>(
    resource: ResourceRef,
    key: ObjectKey,
    options?: DeleteOptions,
  ) => Effect.Effect<T | undefined, KubeError>
  /** GET the status subresource. */
  readonly getStatus: <T extends KubeObject = KubeObject>(
    resource: ResourceRef,
    key: ObjectKey,
  ) => Effect.Effect<T, KubeError>
  /** PUT the status subresource: only `status` changes (and resourceVersion is checked). */
  readonly updateStatus: <T extends KubeObject = KubeObject>(
    resource: ResourceRef,
    object: T,
    options?: WriteOptions,
  ) => Effect.Effect<T, KubeError>
  /** PATCH the status subresource. */
  readonly patchStatus: <T extends KubeObject = KubeObject>(
    resource: ResourceRef,
    key: ObjectKey,
    patch: Patch,
    options?: PatchOptions,
  ) => Effect.Effect<T, KubeError>
  /**
   * A watch as a stream of events. The stream ends when the server closes the watch
   * (`timeoutSeconds`) and fails with a typed error when it cannot start or breaks off. An
   * `ERROR` frame is delivered as an event (see `watchEventError`). Closing the stream's scope
   * closes the connection.
   */
  readonly watch: <T extends KubeObject = KubeObject>(
    resource: ResourceRef,
    options?: WatchOptions,
  ) => Stream.Stream<WatchEvent<T>, KubeError>
  /** `GET /` with a timeout (default: the client's): is the API server there and do we get in? */
  readonly probe: (options?: {
    readonly timeout?: Duration.Input | undefined
  }) => Effect.Effect<void, KubeError>
  /** Any request; returns the parsed JSON body (or the text when it is not JSON). */
  readonly raw: (request: RawRequest) => Effect.Effect<unknown, KubeError>
}

/**
 * The KubeClient of the cluster a program talks to (the management cluster, usually). Its layers
 * live with their implementations: `restClientLayer` (`restClient.ts`) and `memoryClientLayer`
 * (`shell/apiserver/memoryClient.ts`); this module imports neither.
 */
export class KubeClient extends Context.Service<KubeClient, KubeClientShape>()(
  "krtt/shell/kube/KubeClient",
) {}
