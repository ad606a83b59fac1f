/**
 * The numbers seed 000 documents for the ClusterCache, stated here from the document itself
 * (never read from core). `documented.test.ts` holds core's `ClusterCacheDefaults` to them, so a
 * changed default fails a test that names the seed's line; the property tests go on running the
 * tables with these values and with random other configurations.
 *
 * Milliseconds for durations.
 *
 * @module
 */

/** One documented value: where the seed says it, and what it says. */
export interface DocumentedValue {
  readonly value: number
  /** The seed's words, e.g. `HealthProbe Configuration: Timeout, 5 seconds`. */
  readonly source: string
}

export const ClusterCacheDocumented = {
  /** "HealthProbe Configuration (Internal Defaults)" table; Reconciler row 7 ("GET / … 5s timeout"). */
  probeTimeout: { value: 5_000, source: "HealthProbe Configuration: Timeout, 5 seconds; Reconciler row 7" },
  /** Same table, and the state diagram ("HealthProbe.Interval elapsed (10s)"). */
  probeInterval: {
    value: 10_000,
    source: "HealthProbe Configuration: Interval, 10 seconds; state diagram 'Health probes run every 10s'",
  },
  /** Same table; Reconciler row 10 ("consecutiveFailures >= 5"). */
  failureThreshold: {
    value: 5,
    source: "HealthProbe Configuration: FailureThreshold, 5; Reconciler row 10",
  },
  /** Same table; Reconciler rows 5, 6 and 10 ("requeue after 30s"). */
  connectionCreationRetryInterval: {
    value: 30_000,
    source:
      "HealthProbe Configuration: ConnectionCreationRetryInterval, 30 seconds; Reconciler rows 5, 6, 10",
  },
  /** Same table; clusterAccessor Connect/Disconnect ("InitialSyncTimeout: 5 minutes"). */
  initialSyncTimeout: {
    value: 300_000,
    source: "HealthProbe Configuration: InitialSyncTimeout, 5 minutes; clusterAccessor Connect/Disconnect",
  },
  /** Same table; Error Handling ("Requeue after defaultRequeueAfter (10s)"). */
  defaultRequeueAfter: {
    value: 10_000,
    source: "HealthProbe Configuration: defaultRequeueAfter, 10 seconds; Error Handling",
  },
  /** Reconciler row 11 and Error Handling: "immediate requeue (1ms)" after a 401. */
  unauthorizedRequeueAfter: { value: 1, source: "Reconciler row 11: immediate requeue (1ms)" },
  /** "ClientOptions" table. */
  clientTimeout: { value: 10_000, source: "ClientOptions: Timeout, 10s" },
  clientQps: { value: 20, source: "ClientOptions: QPS, 20" },
  clientBurst: { value: 30, source: "ClientOptions: Burst, 30" },
} as const satisfies Record<string, DocumentedValue>
