/**
 * Building conditions: a condition keeps its `lastTransitionTime` while its status does not
 * change; an aggregate over many objects names the objects that hold it back.
 *
 * @module
 */
import type { Condition, ConditionStatus, ObjectMeta } from "./types.ts"

/** What a rule decides for one condition, before times and generations are filled in. */
export interface Decided {
  readonly status: ConditionStatus
  readonly reason: string
  readonly message?: string | undefined
  readonly severity?: "Error" | "Warning" | "Info" | undefined
}

/** RFC 3339 with second precision, as Kubernetes writes condition times. */
export const rfc3339 = (ms: number): string => `${new Date(ms).toISOString().slice(0, 19)}Z`

/** The condition of a type in a list, if any. */
export const findCondition = (
  conditions: ReadonlyArray<Condition> | undefined,
  type: string,
): Condition | undefined => {
  if (conditions === undefined) return undefined
  for (const c of conditions) if (c.type === type) return c
  return undefined
}

/** The time of a transition: computed only when a condition does change. */
export type Clock = () => string

/** A clock for `now` that formats the time once, on first use. */
export const clockAt = (now: number): Clock => {
  let time: string | undefined
  return () => {
    // Stryker disable next-line ConditionalExpression: formatting again gives the same text (the memo saves time only; equivalent)
    if (time === undefined) time = rfc3339(now)
    return time
  }
}

const transitionTime = (old: Condition | undefined, status: ConditionStatus, clock: Clock): string =>
  old !== undefined && old.status === status && old.lastTransitionTime !== undefined
    ? old.lastTransitionTime
    : clock()

// Stryker disable next-line StringLiteral: any other stand-in for a missing message also answers undefined (equivalent)
const messageOf = (d: Decided): string | undefined => ((d.message ?? "") === "" ? undefined : d.message)

/**
 * The limits of upstream's Cluster CRD (`cluster.x-k8s.io` v1.13): a v1beta2 condition's
 * `message` is required (it may be empty) and at most 32768 characters, its `reason` matches
 * {@link ReasonPattern} in at most 1024; a v1beta1 condition's `message` and `reason` are at
 * least one character when present, at most 10240 and 256.
 */
export const ConditionLimits = {
  v1beta2MessageMax: 32_768,
  v1beta2ReasonMax: 1_024,
  v1beta1MessageMax: 10_240,
  v1beta1ReasonMax: 256,
} as const

/** The pattern of a v1beta2 condition's `reason` in upstream's CRD (`metav1.Condition`). */
export const ReasonPattern = /^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/

/**
 * A reason the CRD accepts: `reason` itself when valid, else `fallback` (a provider's mirrored
 * reason may be anything its own CRD allows).
 */
export const validReason = (reason: string | undefined, fallback: string, max: number): string =>
  reason !== undefined && reason.length <= max && ReasonPattern.test(reason) ? reason : fallback

const truncate = (message: string, max: number): string =>
  message.length <= max ? message : `${message.slice(0, max - 3)}...`

/**
 * A v1beta2 condition: the transition time moves only when the status changes. `message` is
 * always present (empty when there is nothing to say), as upstream's CRD requires.
 */
export const v1beta2Condition = (
  type: string,
  d: Decided,
  previous: ReadonlyArray<Condition> | undefined,
  generation: number | undefined,
  clock: Clock,
): Condition => {
  const lastTransitionTime = transitionTime(findCondition(previous, type), d.status, clock)
  const { status, reason } = d
  const message = truncate(d.message ?? "", ConditionLimits.v1beta2MessageMax)
  return generation === undefined || generation < 1
    ? { type, status, reason, message, lastTransitionTime }
    : { type, status, reason, message, observedGeneration: generation, lastTransitionTime }
}

/** A deprecated v1beta1 condition: a severity when False, no observed generation. */
export const v1beta1Condition = (
  type: string,
  d: Decided,
  previous: ReadonlyArray<Condition> | undefined,
  clock: Clock,
): Condition => {
  const lastTransitionTime = transitionTime(findCondition(previous, type), d.status, clock)
  const { status, reason } = d
  const m = messageOf(d)
  const message = m === undefined ? undefined : truncate(m, ConditionLimits.v1beta1MessageMax)
  if (status === "False") {
    const severity = d.severity ?? "Info"
    return message === undefined
      ? { type, status, severity, reason, lastTransitionTime }
      : { type, status, severity, reason, message, lastTransitionTime }
  }
  return message === undefined
    ? { type, status, reason, lastTransitionTime }
    : { type, status, reason, message, lastTransitionTime }
}

/** `a, b, c and 2 more`. */
export const listNames = (names: ReadonlyArray<string>, max: number): string => {
  // Stryker disable next-line ConditionalExpression,EqualityOperator: slicing a list no longer than max gives the same names (equivalent)
  const shown = names.length <= max ? names : names.slice(0, max)
  const rest = names.length - shown.length
  return rest > 0 ? `${shown.join(", ")} and ${rest} more` : shown.join(", ")
}

/** Reasons an aggregate condition uses for each outcome. */
export interface AggregateReasons {
  /** e.g. `Ready`. */
  readonly isTrue: string
  readonly isFalse: string
  readonly isUnknown: string
  /** When there is nothing to aggregate. */
  readonly none: string
}

/**
 * Aggregates one condition type over objects (positive polarity: True is good). False wins over
 * Unknown; an object that does not report the condition counts as Unknown.
 */
export const aggregate = (
  objects: ReadonlyArray<{
    readonly metadata: ObjectMeta
    readonly status?: { readonly conditions?: ReadonlyArray<Condition> }
  }>,
  type: string,
  /** The kind of object named, for one name and for several. */
  what: { readonly one: string; readonly many: string },
  reasons: AggregateReasons,
  max: number,
): Decided => {
  if (objects.length === 0) return { status: "True", reason: reasons.none }
  const notTrue: Array<string> = []
  const unknown: Array<string> = []
  // the message of a False object: shown only when it is the only one
  let message: string | undefined
  for (const o of objects) {
    const c = findCondition(o.status?.conditions, type)
    if (c === undefined || c.status === "Unknown") unknown.push(o.metadata.name)
    else if (c.status === "False") {
      notTrue.push(o.metadata.name)
      if (c.message !== "") message = c.message
    }
  }
  if (notTrue.length > 0) {
    const verb = notTrue.length === 1 ? "is" : "are"
    const detail = notTrue.length === 1 && message !== undefined ? `: ${message}` : ""
    return {
      status: "False",
      reason: reasons.isFalse,
      message: `${notTrue.length === 1 ? what.one : what.many} ${listNames(notTrue, max)} ${verb} not ${type}${detail}`,
    }
  }
  if (unknown.length > 0) {
    const verb = unknown.length === 1 ? "does" : "do"
    return {
      status: "Unknown",
      reason: reasons.isUnknown,
      message: `${unknown.length === 1 ? what.one : what.many} ${listNames(unknown, max)} ${verb} not report ${type} yet`,
    }
  }
  return { status: "True", reason: reasons.isTrue }
}

/**
 * Aggregates a negative-polarity condition (True means "in progress": RollingOut, ScalingUp,
 * ScalingDown) over named sources: True as soon as one source reports True.
 */
export const anyInProgress = (
  sources: ReadonlyArray<InProgressSource>,
  type: string,
  reasons: { readonly isTrue: string; readonly isFalse: string },
  max: number,
): Decided => {
  let active: Array<string> | undefined
  // the message of a True source: shown only when it is the only one
  let message: string | undefined
  for (const s of sources) {
    const c = findCondition(s.conditions, type)
    if (c?.status === "True") {
      if (active === undefined) active = []
      active.push(`${s.kind} ${s.name}`)
      if (c.message !== "") message = c.message
    }
  }
  if (active === undefined) return { status: "False", reason: reasons.isFalse }
  const detail = active.length === 1 && message !== undefined ? `: ${message}` : ""
  return {
    status: "True",
    reason: reasons.isTrue,
    message: `${listNames(active, max)} ${active.length === 1 ? "reports" : "report"} ${type}${detail}`,
  }
}

/** An object whose RollingOut, ScalingUp or ScalingDown condition is aggregated. */
export interface InProgressSource {
  readonly kind: string
  readonly name: string
  readonly conditions: ReadonlyArray<Condition> | undefined
}
