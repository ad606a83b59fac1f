/**
 * Client-side rate limiting: a token bucket like client-go's `flowcontrol` limiter.
 *
 * The bucket holds up to `burst` tokens and refills at `qps` tokens per second. Each request
 * takes one token; when none is left it reserves the next one and sleeps until it is due, so
 * callers are served in arrival order. Time comes from `Clock`, so `TestClock` drives it.
 *
 * @module
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"

/** Paces requests. */
export interface RateLimiter {
  /** Waits (if needed) until the caller may send one request. Never fails. */
  readonly take: Effect.Effect<void>
}

/** A limiter that never waits (used when `qps` is not finite or not positive). */
export const unlimited: RateLimiter = { take: Effect.void }

interface Bucket {
  /** Tokens available at `at`; negative when callers hold reservations. */
  readonly tokens: number
  /** Milliseconds of the last refill. */
  readonly at: number
}

/**
 * A token bucket refilled at `qps` per second holding at most `burst` tokens (at least 1).
 * `qps` that is `Infinity`, `0` or negative disables limiting.
 */
export const makeTokenBucket = (options: {
  readonly qps: number
  readonly burst: number
}): Effect.Effect<RateLimiter> =>
  Effect.gen(function* () {
    const { qps } = options
    if (!Number.isFinite(qps) || qps <= 0) return unlimited
    const burst = Math.max(1, options.burst)
    const start = yield* Clock.currentTimeMillis
    const bucket = yield* Ref.make<Bucket>({ tokens: burst, at: start })
    const take = Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      const wait = yield* Ref.modify(bucket, (b): [number, Bucket] => {
        const at = Math.max(b.at, now)
        const refilled = Math.min(burst, b.tokens + ((at - b.at) * qps) / 1000)
        const tokens = refilled - 1
        return [tokens >= 0 ? 0 : Math.ceil((-tokens * 1000) / qps), { tokens, at }]
      })
      if (wait > 0) yield* Effect.sleep(wait)
    })
    return { take }
  })
