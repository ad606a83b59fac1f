/**
 * The state of one `clusterAccessor` (seed 000, "clusterAccessor"): connection present or not,
 * health-checking state, watch names and the last event sent to each cluster source.
 *
 * Times are milliseconds since the epoch; an absent time means "never".
 *
 * @module
 */

export interface AccessorState {
  /** Whether `connection` is populated (REST config, clients and a synced cache). */
  readonly connected: boolean
  /** When connection creation last failed. */
  readonly lastConnectionCreationErrorTime?: number | undefined
  /** When the last health probe (or connection attempt) ran. */
  readonly lastProbeTime?: number | undefined
  /** When the last health probe (or connect) succeeded. */
  readonly lastProbeSuccessTime?: number | undefined
  /** Failed probes and failed connection attempts since the last success. */
  readonly consecutiveFailures: number
  /** Names of the watches added since the last connect, sorted. */
  readonly watches: ReadonlyArray<string>
  /** Per cluster source (by name): when the last event was sent to it for this cluster. */
  readonly lastEventSent: Readonly<Record<string, number>>
  /** Whether the (deprecated) client certificate private key has been generated. */
  readonly privateKeyGenerated: boolean
}

/** A new accessor: not connected, never probed, no watches (ClusterCache Reconciler, row 1). */
export const newAccessor: AccessorState = {
  connected: false,
  consecutiveFailures: 0,
  watches: [],
  lastEventSent: {},
  privateKeyGenerated: false,
}

/**
 * An accessor state with every field in one order, so that all accessors share one shape (a
 * spread copy of an accessor that lacks an optional time gives it another, and every reader
 * then sees several). The values are exactly what a spread with the same changes gives; an
 * absent time becomes a present `undefined`, which means the same ("never").
 */
export const accessorState = (
  connected: boolean,
  lastConnectionCreationErrorTime: number | undefined,
  lastProbeTime: number | undefined,
  lastProbeSuccessTime: number | undefined,
  consecutiveFailures: number,
  watches: ReadonlyArray<string>,
  lastEventSent: Readonly<Record<string, number>>,
  privateKeyGenerated: boolean,
): AccessorState => ({
  connected,
  lastConnectionCreationErrorTime,
  lastProbeTime,
  lastProbeSuccessTime,
  consecutiveFailures,
  watches,
  lastEventSent,
  privateKeyGenerated,
})

/** Go's zero time stands for "never" in the documented comparisons; this is JavaScript's earliest date. */
export const NEVER = -8_640_000_000_000_000

/**
 * Seed 000's `shouldRequeue(now, last, interval)`: the time left until `interval` has passed
 * since `last`, or 0 when it has (or `last` never happened).
 */
export const remaining = (now: number, last: number | undefined, interval: number): number => {
  // Stryker disable next-line ConditionalExpression
  if (last === undefined) return 0
  const since = now - last
  // Stryker disable next-line EqualityOperator
  return since < interval ? interval - since : 0
}

/** What `GetHealthCheckingState` returns (seed 000, ClusterCache Interface). */
export interface HealthCheckingState {
  readonly lastProbeTime?: number | undefined
  readonly lastProbeSuccessTime?: number | undefined
  readonly consecutiveFailures: number
}
