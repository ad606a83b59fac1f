/**
 * The REST client's requests as data: for each verb, the method, path, query and body the API
 * server expects, and the decoding of the answers that need one (lists, deletes). Pure: the REST
 * client (restClient.ts) sends them with `call` (restCall.ts).
 *
 * # Guarantees
 * - Empty and undefined query values are left out.
 * - Objects written to the server carry apiVersion and kind, filled in from the resource when
 *   the object leaves them out (also in apply patches).
 *
 * @module
 */
import type {
  DeleteOptions,
  ListOptions,
  PatchOptions,
  RawRequest,
  WatchOptions,
  WriteOptions,
} from "./client.ts"
import { contentTypeOf, type Patch } from "./patch.ts"
import {
  apiVersionOf,
  type KubeObject,
  type ObjectKey,
  type ObjectList,
  type ResourceRef,
  resourcePath,
} from "./resource.ts"

export type Query = Record<string, string>

/** A body and its content type. */
export interface CallBody {
  readonly contentType: string
  readonly value: unknown
}

/** One REST call: what errors report (`verb`, `path`) and what is sent. */
export interface CallRequest {
  readonly verb: string
  readonly method: string
  readonly path: string
  readonly query: Query
  readonly body?: CallBody | undefined
  /** The per-request timeout; the client's when absent. */
  readonly timeoutMs?: number | undefined
}

const defined = (entries: Record<string, string | number | boolean | undefined>): Query => {
  const out: Query = {}
  for (const [k, v] of Object.entries(entries)) if (v !== undefined && v !== "") out[k] = String(v)
  return out
}

const writeQuery = (options: WriteOptions & { readonly force?: boolean | undefined } = {}): Query =>
  defined({
    dryRun: options.dryRun ? "All" : undefined,
    fieldManager: options.fieldManager,
    force: options.force,
  })

const listQuery = (options: ListOptions = {}): Query =>
  defined({
    labelSelector: options.labelSelector,
    fieldSelector: options.fieldSelector,
    limit: options.limit,
    continue: options.continue,
    resourceVersion: options.resourceVersion,
    resourceVersionMatch: options.resourceVersionMatch,
  })

const watchQuery = (options: WatchOptions = {}): Query =>
  defined({
    watch: "true",
    labelSelector: options.labelSelector,
    fieldSelector: options.fieldSelector,
    resourceVersion: options.resourceVersion,
    allowWatchBookmarks: options.allowWatchBookmarks,
    timeoutSeconds: options.timeoutSeconds,
    sendInitialEvents: options.sendInitialEvents,
    resourceVersionMatch: options.sendInitialEvents ? "NotOlderThan" : undefined,
  })

/** Fills in apiVersion and kind from the resource when the object leaves them out. */
const withTypeMeta = (resource: ResourceRef, body: unknown): unknown =>
  typeof body === "object" && body !== null && !Array.isArray(body)
    ? { apiVersion: apiVersionOf(resource), kind: resource.kind, ...body }
    : body

const json = (value: unknown): CallBody => ({ contentType: "application/json", value })

const objectPath = (resource: ResourceRef, object: KubeObject, sub?: string) =>
  resourcePath(resource, { namespace: object.metadata.namespace, name: object.metadata.name ?? "" }, sub)

/** GET of one object (or its subresource `sub`). */
export const getRequest = (resource: ResourceRef, key: ObjectKey, sub?: string): CallRequest => ({
  verb: "get",
  method: "GET",
  path: resourcePath(resource, key, sub),
  query: {},
})

/** GET of one page of a list. */
export const listRequest = (resource: ResourceRef, opts: ListOptions = {}): CallRequest => ({
  verb: "list",
  method: "GET",
  path: resourcePath(resource, { namespace: opts.namespace }),
  query: listQuery(opts),
})

/** POST of a new object into its namespace. */
export const createRequest = (
  resource: ResourceRef,
  object: KubeObject,
  opts?: WriteOptions,
): CallRequest => ({
  verb: "create",
  method: "POST",
  path: resourcePath(resource, { namespace: object.metadata.namespace }),
  query: writeQuery(opts),
  body: json(withTypeMeta(resource, object)),
})

/** PUT of an object (or its subresource `sub`). */
export const updateRequest = (
  resource: ResourceRef,
  object: KubeObject,
  opts?: WriteOptions,
  sub?: string,
): CallRequest => ({
  verb: "update",
  method: "PUT",
  path: objectPath(resource, object, sub),
  query: writeQuery(opts),
  body: json(withTypeMeta(resource, object)),
})

/** PATCH of an object (or its subresource `sub`), with the patch's content type. */
export const patchRequest = (
  resource: ResourceRef,
  key: ObjectKey,
  patch: Patch,
  opts?: PatchOptions,
  sub?: string,
): CallRequest => ({
  verb: "patch",
  method: "PATCH",
  path: resourcePath(resource, key, sub),
  query: writeQuery(opts),
  body: {
    contentType: contentTypeOf(patch),
    value: patch.type === "apply" ? withTypeMeta(resource, patch.body) : patch.body,
  },
})

/** DELETE of an object, with its DeleteOptions body. */
export const deleteRequest = (
  resource: ResourceRef,
  key: ObjectKey,
  opts: DeleteOptions = {},
): CallRequest => ({
  verb: "delete",
  method: "DELETE",
  path: resourcePath(resource, key),
  query: {},
  body: json({
    kind: "DeleteOptions",
    apiVersion: "v1",
    ...(opts.dryRun ? { dryRun: ["All"] } : {}),
    ...(opts.propagationPolicy ? { propagationPolicy: opts.propagationPolicy } : {}),
    ...(opts.gracePeriodSeconds === undefined ? {} : { gracePeriodSeconds: opts.gracePeriodSeconds }),
    ...(opts.preconditions ? { preconditions: opts.preconditions } : {}),
  }),
})

/** A watch's GET (no body); the stream is opened by `watchStream` (restCall.ts). */
export const watchRequest = (resource: ResourceRef, opts: WatchOptions = {}) => ({
  verb: "watch",
  method: "GET",
  path: resourcePath(resource, { namespace: opts.namespace }),
  query: watchQuery(opts),
})

/** Any request (`KubeClient.raw`); its verb defaults to the method in lower case. */
export const rawRequest = (req: RawRequest, timeoutMs: number | undefined): CallRequest => ({
  verb: req.verb ?? req.method.toLowerCase(),
  method: req.method,
  path: req.path,
  query: { ...req.query },
  body: req.body === undefined ? undefined : json(req.body),
  timeoutMs,
})

/** A list page from the server's answer; a missing `items` (or `null`) is an empty page. */
export const toObjectList = <T extends KubeObject>(body: unknown): ObjectList<T> => {
  const b = (body ?? {}) as {
    readonly items?: ReadonlyArray<T> | null
    readonly metadata?: {
      readonly resourceVersion?: string
      readonly continue?: string
      readonly remainingItemCount?: number
    }
  }
  return {
    items: b.items ?? [],
    resourceVersion: b.metadata?.resourceVersion ?? "",
    continue: b.metadata?.continue || undefined,
    remainingItemCount: b.metadata?.remainingItemCount,
  }
}

/** The object a delete answered with; undefined when it answered a Status (deleted at once). */
export const toDeleted = <T extends KubeObject>(body: unknown): T | undefined => {
  const b = body as KubeObject | undefined
  return b === undefined || b.kind === "Status" || typeof b.metadata !== "object" ? undefined : (b as T)
}
