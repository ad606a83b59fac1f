/**
 * The numbers of `krtt propagate`, in one defaults object (each configurable, each tested at its
 * documented value in `core/propagate/copy.test.ts`).
 *
 * @module
 */
import * as Data from "effect/Data"
import { didYouMean } from "../krtt/suggest.ts"

/** An override that is not a field of `PropagateConfig`, or not a positive number. Not retryable: fix the flags. */
export class PropagateConfigError extends Data.TaggedError("PropagateConfigError")<{
  readonly message: string
}> {}

export interface PropagateConfig {
  /** A source not in sync everywhere (a failure, a missing permission) is looked at again after this. Default 5 s. */
  readonly retryInterval: number
  /** One cluster's part of a source's reconcile may take this long; then it counts as failed and the others go on. Default 10 s. */
  readonly clusterTimeout: number
  /** How often the set of engaged clusters is compared with the last one (a cluster engaged gets every source). Default 1 s. */
  readonly clusterPollInterval: number
  /** Sources reconciled at a time, per kind. Default 10. */
  readonly concurrency: number
  /**
   * Each workload cluster's scoped cache reviews its running informers' permission this often
   * (the API server does not re-authorize an open watch), so a revoked Role is noticed within it.
   * Default 10 s.
   */
  readonly permissionRecheckInterval: number
}

export const PropagateDefaults: PropagateConfig = {
  retryInterval: 5_000,
  clusterTimeout: 10_000,
  clusterPollInterval: 1_000,
  concurrency: 10,
  permissionRecheckInterval: 10_000,
}

/** The defaults with some overridden; a non-positive number throws `PropagateConfigError` naming the field. */
export const propagateConfig = (overrides: Partial<PropagateConfig> = {}): PropagateConfig => {
  const known = Object.keys(PropagateDefaults)
  for (const key of Object.keys(overrides)) {
    if (!known.includes(key))
      throw new PropagateConfigError({
        message: `propagate config: unknown field "${key}"${didYouMean(key, known)} (known: ${known.join(", ")})`,
      })
  }
  const config = { ...PropagateDefaults, ...overrides }
  for (const [key, value] of Object.entries(config)) {
    if (!Number.isFinite(value) || value <= 0)
      throw new PropagateConfigError({
        message: `propagate config: ${key} must be a positive number, got ${String(value)}`,
      })
  }
  return config
}
