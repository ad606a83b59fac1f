/**
 * Every number of the engagement table (`multicluster.engagement`), in one object.
 *
 * Seed 003 ("Multi-Cluster Support") documents no number; each default below is taken from
 * upstream (controller-runtime, multicluster-runtime) or, where upstream has none, chosen here
 * with the reason recorded in `spec/multicluster/engagement.ts` (derived rows 14, 19 and 20).
 * All durations are milliseconds; every value is overridable through {@link engagementConfig}.
 *
 * @module
 */

/** Backoff between engage attempts of one (controller, cluster) pair after a failure. */
export interface EngageRetryConfig {
  /** Delay after the first failure. Default 1 s. */
  readonly initial: number
  /** Each further consecutive failure multiplies the delay by this. Default 2. */
  readonly factor: number
  /** The delay never exceeds this. Default 5 min. */
  readonly max: number
}

export interface EngagementConfig {
  /**
   * How long the shell waits for the cluster's cache to sync the controller's informers before
   * it reports `CacheSyncFailed { timedOut: true }`. Default 2 min: controller-runtime's
   * `CacheSyncTimeout` default for a controller's sources.
   */
  readonly cacheSyncTimeout: number
  readonly engageRetry: EngageRetryConfig
  /**
   * A request for a cluster whose engagement is under way (cache starting or syncing, indexes,
   * sources starting) is requeued after this instead of being dropped. Default 1 s.
   */
  readonly requeueWhileEngaging: number
}

/** The documented defaults. */
export const EngagementDefaults: EngagementConfig = {
  cacheSyncTimeout: 2 * 60_000,
  engageRetry: { initial: 1_000, factor: 2, max: 5 * 60_000 },
  requeueWhileEngaging: 1_000,
}

/** A partial override of the configuration, one level deep for the nested group. */
export interface EngagementConfigOverrides {
  readonly cacheSyncTimeout?: number
  readonly engageRetry?: Partial<EngageRetryConfig>
  readonly requeueWhileEngaging?: number
}

/** The defaults with the given values overridden; a value that is not a usable number is an error. */
export const engagementConfig = (overrides: EngagementConfigOverrides = {}): EngagementConfig => {
  const config: EngagementConfig = {
    ...EngagementDefaults,
    ...overrides,
    engageRetry: { ...EngagementDefaults.engageRetry, ...overrides.engageRetry },
  }
  const positive: ReadonlyArray<readonly [string, number]> = [
    ["cacheSyncTimeout", config.cacheSyncTimeout],
    ["engageRetry.initial", config.engageRetry.initial],
    ["engageRetry.max", config.engageRetry.max],
    ["requeueWhileEngaging", config.requeueWhileEngaging],
  ]
  for (const [field, value] of positive) {
    if (!Number.isFinite(value) || value <= 0) {
      throw new RangeError(`engagement config: ${field} must be a positive number of ms, got ${value}`)
    }
  }
  if (!Number.isFinite(config.engageRetry.factor) || config.engageRetry.factor < 1) {
    throw new RangeError(
      `engagement config: engageRetry.factor must be >= 1, got ${config.engageRetry.factor}`,
    )
  }
  if (config.engageRetry.max < config.engageRetry.initial) {
    throw new RangeError(
      `engagement config: engageRetry.max (${config.engageRetry.max}) must be >= engageRetry.initial (${config.engageRetry.initial})`,
    )
  }
  return config
}

/**
 * The delay before the next engage attempt after `failures` consecutive failures (the one that
 * just happened included): `min(max, initial * factor^(failures - 1))`.
 */
export const engageRetryDelay = (failures: number, config: EngagementConfig = EngagementDefaults): number => {
  const { initial, factor, max } = config.engageRetry
  const n = Math.max(1, failures)
  return Math.min(max, initial * factor ** (n - 1))
}
