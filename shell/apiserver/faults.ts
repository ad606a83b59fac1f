/**
 * Fault injection for the in-memory API server: make chosen calls fail with a chosen error, or
 * answer late, so that tests can play unreachable, slow, unauthorized or forbidden clusters.
 *
 * @module
 */
import * as Duration from "effect/Duration"
import {
  AlreadyExists,
  ApiError,
  Conflict,
  Forbidden,
  Gone,
  Invalid,
  type KubeError,
  NotFound,
  Timeout,
  Unauthorized,
  Unreachable,
} from "../kube/errors.ts"

/** The verbs a fault can match: the Kubernetes verbs plus `probe` (`GET /`) and `discovery` (raw GETs). */
export type Verb = "get" | "list" | "watch" | "create" | "update" | "patch" | "delete" | "probe" | "discovery"

/** The request a fault is matched against. */
export interface FaultTarget {
  readonly verb: Verb
  readonly path: string
  /** Plural resource name; absent for `probe` and `discovery`. */
  readonly resource?: string | undefined
  readonly namespace?: string | undefined
  readonly name?: string | undefined
  /** Whether the call is on the status subresource. */
  readonly status?: boolean | undefined
}

/** What to break. Every given field must match; absent fields match everything. */
export interface Fault {
  readonly verb?: Verb | ReadonlyArray<Verb> | undefined
  readonly resource?: string | undefined
  readonly namespace?: string | undefined
  readonly name?: string | undefined
  /** Fail with this error: a tag (the message says the fault was injected) or a constructor. */
  readonly error?:
    | KubeError["_tag"]
    | ((request: { readonly verb: string; readonly path: string }) => KubeError)
  /** Answer after this long (virtual time under TestClock); with `error`, fail after it. */
  readonly delay?: Duration.Input | undefined
  /** How many matching calls to affect; unlimited when absent. */
  readonly times?: number | undefined
}

/** The error for a tag, reported for the given request. */
export const errorOfTag = (
  tag: KubeError["_tag"],
  request: { readonly verb: string; readonly path: string },
  message = "injected fault",
): KubeError => {
  const fields = { verb: request.verb, path: request.path, message }
  switch (tag) {
    case "NotFound":
      return new NotFound(fields)
    case "AlreadyExists":
      return new AlreadyExists(fields)
    case "Conflict":
      return new Conflict(fields)
    case "Unauthorized":
      return new Unauthorized(fields)
    case "Forbidden":
      return new Forbidden(fields)
    case "Gone":
      return new Gone(fields)
    case "Invalid":
      return new Invalid(fields)
    case "Timeout":
      return new Timeout(fields)
    case "Unreachable":
      return new Unreachable({ ...fields, code: "ECONNREFUSED" })
    case "ApiError":
      return new ApiError({ ...fields, status: 500, reason: "InternalError" })
  }
}

interface Armed {
  readonly fault: Fault
  remaining: number
}

/** What a matching fault asks for. */
export interface FaultOutcome {
  readonly error?: KubeError | undefined
  readonly delayMillis: number
}

/** The faults in force, matched in the order they were added (the first match wins). */
export class Faults {
  private armed: Array<Armed> = []

  /** Adds a fault. */
  add(fault: Fault): void {
    this.armed.push({ fault, remaining: fault.times ?? Number.POSITIVE_INFINITY })
  }

  /** Removes every fault. */
  clear(): void {
    this.armed = []
  }

  /** The outcome for a request (consuming one use of the matching fault), if any matches. */
  take(target: FaultTarget): FaultOutcome | undefined {
    const hit = this.armed.find((a) => a.remaining > 0 && matches(a.fault, target))
    if (hit === undefined) return undefined
    hit.remaining--
    this.armed = this.armed.filter((a) => a.remaining > 0)
    const { error, delay } = hit.fault
    return {
      error:
        error === undefined
          ? undefined
          : typeof error === "string"
            ? errorOfTag(error, target)
            : error(target),
      delayMillis: delay === undefined ? 0 : Duration.toMillis(Duration.fromInputUnsafe(delay)),
    }
  }
}

const matches = (fault: Fault, target: FaultTarget): boolean => {
  const verbs =
    fault.verb === undefined ? undefined : typeof fault.verb === "string" ? [fault.verb] : fault.verb
  return (
    (verbs === undefined || verbs.includes(target.verb)) &&
    (fault.resource === undefined || fault.resource === target.resource) &&
    (fault.namespace === undefined || fault.namespace === target.namespace) &&
    (fault.name === undefined || fault.name === target.name)
  )
}
