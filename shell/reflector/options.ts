/**
 * The reflector's options and their defaults (client-go's reflector where it has one).
 *
 * @module
 */
import * as Duration from "effect/Duration"

/** Reconnect backoff: `initial × factor^n`, capped at `max`, times a random factor in `[1 − jitter, 1]`. */
export interface ReconnectBackoff {
  /** Default 800 ms (client-go). */
  readonly initial: Duration.Input
  /** Default 30 s (client-go). */
  readonly max: Duration.Input
  /** Default 2. */
  readonly factor: number
  /** Share of the delay taken off at random, 0 … 1. Default 0.2. */
  readonly jitter: number
}

/** Timing and paging of a reflector. */
export interface ReflectorTiming {
  /** Items per list page. Default 500 (client-go's pager). */
  readonly pageSize: number
  /**
   * Base of the server-side watch timeout: each watch asks for a random `timeoutSeconds` in
   * `[watchTimeout, 2 × watchTimeout)`, as client-go does. Default 5 min.
   */
  readonly watchTimeout: Duration.Input
  /** A watch that delivers nothing, not even a bookmark, for this long is restarted. Default 5 min. */
  readonly inactivityTimeout: Duration.Input
  readonly backoff: ReconnectBackoff
}

/** The defaults: 500 per page, watches of 5–10 min, restart after 5 min of silence, 800 ms … 30 s backoff. */
export const ReflectorDefaults: ReflectorTiming = {
  pageSize: 500,
  watchTimeout: "5 minutes",
  inactivityTimeout: "5 minutes",
  backoff: { initial: "800 millis", max: "30 seconds", factor: 2, jitter: 0.2 },
}

const ms = (d: Duration.Input) => Duration.toMillis(Duration.fromInputUnsafe(d))

/**
 * The delay before the reconnect after `attempt` failures in a row (0-based), for a random
 * number `random` in `[0, 1)`. Never more than `max`.
 */
export const backoffDelay = (backoff: ReconnectBackoff, attempt: number, random: number): number => {
  const base = Math.min(ms(backoff.max), ms(backoff.initial) * backoff.factor ** Math.max(0, attempt))
  const jitter = Math.min(1, Math.max(0, backoff.jitter))
  return Math.round(base * (1 - jitter * random))
}

/** Merges partial timing over the defaults (the backoff field by field). */
export const reflectorTiming = (
  overrides: Partial<Omit<ReflectorTiming, "backoff">> & {
    readonly backoff?: Partial<ReconnectBackoff> | undefined
  } = {},
): ReflectorTiming => ({
  ...ReflectorDefaults,
  ...overrides,
  backoff: { ...ReflectorDefaults.backoff, ...overrides.backoff },
})
