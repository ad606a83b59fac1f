/**
 * Building v1beta2 conditions: a condition keeps its `lastTransitionTime` while its status does
 * not change, and always carries a message.
 *
 * @module
 */
import type { Condition, ConditionStatus } from "./types.ts"

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
    // Stryker disable next-line ConditionalExpression
    if (time === undefined) time = rfc3339(now)
    return time
  }
}

const transitionTime = (old: Condition | undefined, status: ConditionStatus, clock: Clock): string =>
  old !== undefined && old.status === status && old.lastTransitionTime !== undefined
    ? old.lastTransitionTime
    : clock()

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
