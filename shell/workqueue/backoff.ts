/**
 * Per-item exponential backoff, like client-go's `ItemExponentialFailureRateLimiter`: the n-th
 * retry of an item waits `baseDelay * 2^n`, capped at `maxDelay`; `forget` resets the item.
 * Defaults are controller-runtime's: 5 ms … 1000 s.
 *
 * @module
 */
import { Duration } from "effect"

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
