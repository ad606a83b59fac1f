/**
 * Typed errors of the Kubernetes API boundary, each named after the condition.
 *
 * Every error carries the request's `verb` and `path` (never headers or credentials) and the
 * server's Status message. Retryability, as callers should treat it:
 * - retryable: `Conflict` (re-read, then retry), `Timeout`, `Unreachable`, `ApiError` with status
 *   429 or 5xx (and 0: the client could not send the request).
 * - `Gone` (410): the resourceVersion is too old; relist, then watch again.
 * - not retryable as is: `NotFound`, `AlreadyExists`, `Unauthorized`, `Forbidden`, `Invalid`;
 *   a reconcile that meets them decides (e.g. 401 → disconnect the cluster).
 *
 * @module
 */
import * as Data from "effect/Data"

/** What every API error says about the failed request. */
export interface RequestFailure {
  /** Kubernetes verb: get, list, watch, create, update, patch, delete (or `probe`, `discovery`). */
  readonly verb: string
  /** The request path without host or credentials, e.g. `/api/v1/namespaces/a/configmaps/b`. */
  readonly path: string
  /** The server's Status message, or a description of the client-side failure. */
  readonly message: string
}

/** 404: the object (or its namespace, or the resource) does not exist. */
export class NotFound extends Data.TaggedError("NotFound")<RequestFailure> {}

/** 409 with reason AlreadyExists: a create found an object of that name. */
export class AlreadyExists extends Data.TaggedError("AlreadyExists")<RequestFailure> {}

/** 409: the given resourceVersion or precondition is stale; re-read and retry. */
export class Conflict extends Data.TaggedError("Conflict")<RequestFailure> {}

/** 401: the credentials were refused (expired or rotated token, wrong certificate). */
export class Unauthorized extends Data.TaggedError("Unauthorized")<RequestFailure> {}

/** 403: authenticated, but RBAC denies the verb on the resource. */
export class Forbidden extends Data.TaggedError("Forbidden")<RequestFailure> {}

/** 410: the resourceVersion was compacted away (watch or continue token too old); relist. */
export class Gone extends Data.TaggedError("Gone")<RequestFailure> {}

/** 422: the object failed validation (or an admission rule refused it). */
export class Invalid extends Data.TaggedError("Invalid")<RequestFailure> {}

/** The request took longer than its timeout (client side), or the server said 504 / reason Timeout. */
export class Timeout extends Data.TaggedError("Timeout")<RequestFailure> {}

/** No answer at all: connection refused or reset, DNS failure, TLS failure, socket closed. */
export class Unreachable extends Data.TaggedError("Unreachable")<
  RequestFailure & {
    /** The system error code when there is one, e.g. `ECONNREFUSED`. */
    readonly code?: string | undefined
  }
> {}

/** Any other status (429, 5xx, 400, …); `status` 0 means the request could not be sent. */
export class ApiError extends Data.TaggedError("ApiError")<
  RequestFailure & {
    readonly status: number
    /** The Status reason when the server gave one, e.g. `TooManyRequests`. */
    readonly reason?: string | undefined
  }
> {}

/** Every error the kube client can fail with. */
export type KubeError =
  | NotFound
  | AlreadyExists
  | Conflict
  | Unauthorized
  | Forbidden
  | Gone
  | Invalid
  | Timeout
  | Unreachable
  | ApiError

/** The fields of a Kubernetes `Status` object that errors are built from. */
export interface KubeStatus {
  readonly kind?: string | undefined
  readonly status?: string | undefined
  readonly code?: number | undefined
  readonly reason?: string | undefined
  readonly message?: string | undefined
}

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null

/** Reads a Status object from a response body, when the body is one. */
export const asStatus = (body: unknown): KubeStatus | undefined => {
  if (!isRecord(body) || body.kind !== "Status") return undefined
  return {
    kind: "Status",
    status: typeof body.status === "string" ? body.status : undefined,
    code: typeof body.code === "number" ? body.code : undefined,
    reason: typeof body.reason === "string" ? body.reason : undefined,
    message: typeof body.message === "string" ? body.message : undefined,
  }
}

/**
 * The typed error for an HTTP status and its (optional) Status body. Used for responses, for
 * watch `ERROR` events (whose object is a Status) and by the in-memory server.
 */
export const fromStatus = (
  request: { readonly verb: string; readonly path: string },
  httpStatus: number,
  body?: unknown,
): KubeError => {
  const status = asStatus(body)
  const code = status?.code ?? httpStatus
  const reason = status?.reason
  const message = status?.message ?? (typeof body === "string" && body !== "" ? body : `HTTP ${code}`)
  const fields = { verb: request.verb, path: request.path, message }
  switch (code) {
    case 401:
      return new Unauthorized(fields)
    case 403:
      return new Forbidden(fields)
    case 404:
      return new NotFound(fields)
    case 409:
      return reason === "AlreadyExists" ? new AlreadyExists(fields) : new Conflict(fields)
    case 410:
      return new Gone(fields)
    case 422:
      return new Invalid(fields)
    case 504:
      return new Timeout(fields)
    default:
      return reason === "Timeout" ? new Timeout(fields) : new ApiError({ ...fields, status: code, reason })
  }
}

/** The HTTP status an error stands for (0 for client-side failures). */
export const httpStatusOf = (error: KubeError): number => {
  switch (error._tag) {
    case "NotFound":
      return 404
    case "AlreadyExists":
    case "Conflict":
      return 409
    case "Unauthorized":
      return 401
    case "Forbidden":
      return 403
    case "Gone":
      return 410
    case "Invalid":
      return 422
    case "Timeout":
      return 504
    case "Unreachable":
      return 0
    case "ApiError":
      return error.status
  }
}

/** Reason strings as the API server writes them in Status objects. */
const reasons: Record<KubeError["_tag"], string> = {
  NotFound: "NotFound",
  AlreadyExists: "AlreadyExists",
  Conflict: "Conflict",
  Unauthorized: "Unauthorized",
  Forbidden: "Forbidden",
  Gone: "Expired",
  Invalid: "Invalid",
  Timeout: "Timeout",
  Unreachable: "ServiceUnavailable",
  ApiError: "InternalError",
}

/** A failure Status as the API server writes it. */
export interface FailureStatus {
  readonly kind: "Status"
  readonly status: "Failure"
  readonly code: number
  readonly reason: string
  readonly message: string
}

/** The Status object the API server would send for `error` (used by the in-memory server). */
export const toStatus = (error: KubeError): FailureStatus => ({
  kind: "Status",
  status: "Failure",
  code: httpStatusOf(error) || 503,
  reason: error._tag === "ApiError" ? (error.reason ?? reasons.ApiError) : reasons[error._tag],
  message: error.message,
})

/** Whether retrying the same request later can succeed (see the module doc). */
export const isRetryable = (error: KubeError): boolean => {
  switch (error._tag) {
    case "Conflict":
    case "Timeout":
    case "Unreachable":
      return true
    case "ApiError":
      return error.status === 0 || error.status === 429 || error.status >= 500
    default:
      return false
  }
}

const KubeErrorClasses = [
  NotFound,
  AlreadyExists,
  Conflict,
  Unauthorized,
  Forbidden,
  Gone,
  Invalid,
  Timeout,
  Unreachable,
  ApiError,
] as const

/** Whether `u` is one of the kube client's errors (an instance of one of its classes). */
export const isKubeError = (u: unknown): u is KubeError => KubeErrorClasses.some((c) => u instanceof c)
