/**
 * The work queue's rate limiter, as controller-runtime's default controller rate limiter: the
 * longer of two waits.
 *
 * - Per-item exponential backoff, like client-go's `ItemExponentialFailureRateLimiter`: the
 *   n-th retry of an item waits `baseDelay * 2^n`, capped at `maxDelay`; `forget` resets the
 *   item. Defaults 5 ms … 1000 s.
 * - One token bucket over all items, like client-go's `BucketRateLimiter`: `qps` tokens a
 *   second, at most `burst` saved up (it starts full); a retry takes a token, and waits until
 *   its token is due when the bucket is empty. Defaults 10 qps, burst 100. It limits only how
 *   fast retries come back, never plain adds.
 *
 * @module
 */
import * as Duration from "effect/Duration"

/** Backoff bounds. */
export interface BackoffOptions {
  /** The first retry's delay. Default 5 ms. */
  readonly baseDelay: Duration.Input
  /** The cap. Default 1000 s. */
  readonly maxDelay: Duration.Input
}

/** controller-runtime's default per-item backoff: 5 ms … 1000 s. */
export const BackoffDefaults: BackoffOptions = { baseDelay: "5 millis", maxDelay: "1000 seconds" }

/** Failure counts per key and the delays they mean. */
export class ItemBackoff {
  private readonly failures = new Map<string, number>()
  private readonly base: number
  private readonly max: number

  constructor(options: Partial<BackoffOptions> = {}) {
    this.base = Duration.toMillis(Duration.fromInputUnsafe(options.baseDelay ?? BackoffDefaults.baseDelay))
    this.max = Duration.toMillis(Duration.fromInputUnsafe(options.maxDelay ?? BackoffDefaults.maxDelay))
  }

  /** Records one more failure of `key` and returns how long to wait before its retry (ms). */
  when(key: string): number {
    const n = this.failures.get(key) ?? 0
    this.failures.set(key, n + 1)
    return this.delay(n)
  }

  /** The delay of the n-th retry (0-based), without recording anything. */
  delay(n: number): number {
    const d = this.base * 2 ** n
    return Number.isFinite(d) ? Math.min(d, this.max) : this.max
  }

  /** How many times `key` has been retried since it was last forgotten. */
  retries(key: string): number {
    return this.failures.get(key) ?? 0
  }

  /** Forgets the failures of `key` (after a success). */
  forget(key: string): void {
    this.failures.delete(key)
  }
}

/** The bucket shared by all items' retries. */
export interface BucketOptions {
  /** Tokens added per second. Default 10. */
  readonly qps: number
  /** Tokens saved up at most (and at the start). Default 100. */
  readonly burst: number
}

/** controller-runtime's default overall retry limit: 10 qps, burst 100. */
export const BucketDefaults: BucketOptions = { qps: 10, burst: 100 }

/**
 * A token bucket on the caller's clock (ms), with the semantics of Go's `rate.Limiter.Reserve`:
 * a reservation always succeeds, taking a token that may not exist yet, and says how long to
 * wait until it does. Reservations made while the bucket is empty queue up behind each other.
 */
export class TokenBucket {
  private readonly qps: number
  private readonly burst: number
  private tokens: number
  private last: number | undefined

  constructor(options: Partial<BucketOptions> = {}) {
    const qps = options.qps ?? BucketDefaults.qps
    const burst = options.burst ?? BucketDefaults.burst
    if (!(qps > 0) || !Number.isFinite(qps))
      throw new RangeError(`bucket.qps must be a positive number, got ${qps}`)
    if (!Number.isInteger(burst) || burst < 1)
      throw new RangeError(`bucket.burst must be an integer of at least 1, got ${burst}`)
    this.qps = qps
    this.burst = burst
    this.tokens = burst
  }

  /** Takes one token at `now` (ms) and returns how long to wait for it (ms, 0 when one was there). */
  reserve(now: number): number {
    // A clock that goes back adds nothing (as rate.Limiter: elapsed time is never negative).
    const elapsed = this.last === undefined ? 0 : Math.max(0, now - this.last)
    this.last = now
    this.tokens = Math.min(this.burst, this.tokens + (elapsed * this.qps) / 1000) - 1
    return this.tokens >= 0 ? 0 : (-this.tokens * 1000) / this.qps
  }
}
