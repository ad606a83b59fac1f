/**
 * Request types of multi-cluster controllers: the default `{cluster, namespace, name}`, or the
 * user's own (seed 003, Proposal: "implementations SHOULD bring their own request type ...
 * (`request comparable`)"; upstream's `ClusterAware[request]`). A request type is plain data that
 * names its cluster; the controller's one work queue de-duplicates requests by a canonical key
 * (Go's `comparable`) and is fair over their `cluster`.
 *
 * # Guarantees
 * - `clusterRequest` passes `{cluster, namespace, name}` through unchanged.
 * - `customRequest` keys a request by the canonical JSON of its fields (keys sorted), so two
 *   requests with equal fields are one request in the queue, whatever their key order.
 * - A request whose `cluster` is not a string, or which is not JSON data, is refused with a
 *   `RequestTypeError` naming the field (`checkRequest`); the controller logs and skips it.
 *
 * @module
 */
import * as Data from "effect/Data"
import { type ClusterAware, canonicalJson } from "../controller/requestData.ts"
import { type ClusterName, formatRequest, type Request } from "../workqueue/request.ts"

export { type ClusterAware, requestDataKey } from "../controller/requestData.ts"

/** The object key `For` and `Owns` enqueue, in the cluster of the event. */
export interface ObjectKey {
  readonly namespace: string
  readonly name: string
}

/** How a controller's requests are queued, printed and made for `For`/`Owns`. */
export interface RequestType<Req extends ClusterAware> {
  /** For errors and logs, e.g. `ClusterRequest`. */
  readonly name: string
  /** The queue's form of a request. */
  readonly toQueue: (request: Req) => Request
  /** The request back from the queue's form. */
  readonly fromQueue: (queued: Request) => Req
  /** `cluster://…` plus the request's own fields, for logs. */
  readonly format: (request: Req) => string
  /**
   * The request for one object of one cluster: what `For` and `Owns` enqueue. Without it a
   * builder refuses `for()` and `owns()` (upstream: "For() can only be used with
   * mcreconcile.Request").
   */
  readonly forObject?: ((cluster: ClusterName, key: ObjectKey) => Req) | undefined
}

/** A request that is not a request of its type; `field` names the culprit. */
export class RequestTypeError extends Data.TaggedError("RequestTypeError")<{
  readonly requestType: string
  readonly field: string
  readonly message: string
}> {}

/** The default request type, `{cluster, namespace, name}` (upstream's `mcreconcile.Request`). */
export const clusterRequest: RequestType<Request> = {
  name: "Request",
  toQueue: (r) => r,
  fromQueue: (q) => q,
  format: formatRequest,
  forObject: (cluster, key) => ({ cluster, namespace: key.namespace, name: key.name }),
}

/**
 * Checks that `request` is a request of `type`: an object whose `cluster` is a string and whose
 * fields are JSON data. Returns the error, or `undefined` when it is one.
 */
export const checkRequest = (type: string, request: unknown): RequestTypeError | undefined => {
  if (typeof request !== "object" || request === null || Array.isArray(request))
    return new RequestTypeError({
      requestType: type,
      field: "request",
      message: `${type}: a request must be an object with a cluster, got ${JSON.stringify(request) ?? String(request)}`,
    })
  const cluster = (request as { cluster?: unknown }).cluster
  if (typeof cluster !== "string")
    return new RequestTypeError({
      requestType: type,
      field: "cluster",
      message: `${type}.cluster: the cluster name is required (a string, "" for the hub), got ${cluster === undefined ? "nothing" : JSON.stringify(cluster)}`,
    })
  const c = canonicalJson(request)
  return c._tag === "NotData"
    ? new RequestTypeError({
        requestType: type,
        field: c.path,
        message: `${type}.${c.path}: a request holds JSON data only (strings, finite numbers, booleans, null, arrays, plain objects)`,
      })
    : undefined
}

/** What `customRequest` needs; only the name is required. */
export interface CustomRequestOptions<Req extends ClusterAware> {
  readonly name: string
  /** What `For` and `Owns` enqueue; without it they are refused for this type. */
  readonly forObject?: ((cluster: ClusterName, key: ObjectKey) => Req) | undefined
}

/**
 * The user's own request type: any JSON data with a `cluster` (e.g. `{cluster, namespace,
 * name, revision}`). Queued under the canonical JSON of its other fields; equal requests are one.
 */
export const customRequest = <Req extends ClusterAware>(
  options: CustomRequestOptions<Req>,
): RequestType<Req> => {
  const rest = (r: Req): string => {
    const { cluster: _, ...fields } = r as Req & Record<string, unknown>
    const c = canonicalJson(fields)
    return c._tag === "Json" ? c.json : "{}"
  }
  return {
    name: options.name,
    toQueue: (r) => ({ cluster: r.cluster, namespace: "", name: rest(r) }),
    fromQueue: (q) => ({ ...(JSON.parse(q.name) as object), cluster: q.cluster }) as Req,
    format: (r) => `cluster://${r.cluster} ${rest(r)}`,
    forObject: options.forObject,
  }
}
