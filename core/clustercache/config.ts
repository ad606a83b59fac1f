/**
 * Every number that seed 000 documents for the ClusterCache, in one object, and the bound of a
 * reconcile's run (not documented: a guard against a table that loops).
 *
 * All durations are milliseconds. Each default is the documented value (seed 000,
 * "Configuration Options" and "HealthProbe Configuration"); every one is overridable by passing
 * a partial object to {@link clusterCacheConfig}.
 *
 * @module
 */

export interface HealthProbeConfig {
  /** Health probe HTTP timeout for the `GET /` call. Default 5 s. */
  readonly timeout: number
  /** Time between health probes. Default 10 s. */
  readonly interval: number
  /** Consecutive failures before disconnect. Default 5. */
  readonly failureThreshold: number
}

export interface ClientConfig {
  /** REST client timeout. Default 10 s. */
  readonly timeout: number
  /** Max queries per second. Default 20. */
  readonly qps: number
  /** Max burst queries. Default 30. */
  readonly burst: number
  /** HTTP user agent; required upstream, defaulted here. */
  readonly userAgent: string
}

/** Every number of the ClusterCache in one object, milliseconds for durations. */
export interface ClusterCacheConfig {
  readonly healthProbe: HealthProbeConfig
  /** Retry interval after a connection failure. Default 30 s. */
  readonly connectionCreationRetryInterval: number
  /** Timeout waiting for the cache to sync after start. Default 5 min. */
  readonly initialSyncTimeout: number
  /** Fallback requeue duration if no other applies. Default 10 s. */
  readonly defaultRequeueAfter: number
  /** Requeue after a 401 from the probe: "immediate" (1 ms). */
  readonly unauthorizedRequeueAfter: number
  readonly client: ClientConfig
  /**
   * The most Reconciler transitions one reconcile may take (and clusterAccessor transitions one
   * Connect may take); past it the run fails with `TableLoopError` naming its rows instead of
   * hanging. Not a number of seed 000: no documented path takes more than 4 (Reconciler row 1,
   * the Connect result, row 12's phases). Default 16.
   */
  readonly maxTransitionsPerReconcile: number
}

/** The documented defaults of seed 000. */
export const ClusterCacheDefaults: ClusterCacheConfig = {
  healthProbe: { timeout: 5_000, interval: 10_000, failureThreshold: 5 },
  connectionCreationRetryInterval: 30_000,
  initialSyncTimeout: 5 * 60_000,
  defaultRequeueAfter: 10_000,
  unauthorizedRequeueAfter: 1,
  client: { timeout: 10_000, qps: 20, burst: 30, userAgent: "krtt-clustercache" },
  maxTransitionsPerReconcile: 16,
}

/** A partial override of the configuration, one level deep for the nested groups. */
export interface ClusterCacheConfigOverrides {
  readonly healthProbe?: Partial<HealthProbeConfig>
  readonly connectionCreationRetryInterval?: number
  readonly initialSyncTimeout?: number
  readonly defaultRequeueAfter?: number
  readonly unauthorizedRequeueAfter?: number
  readonly client?: Partial<ClientConfig>
  readonly maxTransitionsPerReconcile?: number
}

/** The defaults with the given values overridden. */
export const clusterCacheConfig = (overrides: ClusterCacheConfigOverrides = {}): ClusterCacheConfig => ({
  ...ClusterCacheDefaults,
  ...overrides,
  healthProbe: { ...ClusterCacheDefaults.healthProbe, ...overrides.healthProbe },
  client: { ...ClusterCacheDefaults.client, ...overrides.client },
})
