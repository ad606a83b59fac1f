/**
 * Every number of `krtt inventory` in one object. Seed 003 documents no
 * number; each default is chosen here with its reason, and every value is configurable (the
 * command's flags, or {@link inventoryConfig}). Durations are milliseconds.
 *
 * @module
 */
import * as Data from "effect/Data"
import { didYouMean } from "../krtt/suggest.ts"

/** An override that is not a field of `InventoryConfig`, or not a non-negative number. Not retryable: fix the flags. */
export class InventoryConfigError extends Data.TaggedError("InventoryConfigError")<{
  readonly message: string
}> {}

export interface InventoryConfig {
  /**
   * A change of a cluster's Node counts or version is written once it has been pending this
   * long, so that a burst of Node events (a node pool scaling, every kubelet flipping Ready)
   * makes one write. Default 2 s (`--debounce`).
   */
  readonly debounce: number
  /**
   * How often the provider's view of its clusters (engaged, healthy) is read to notice a
   * cluster that left or turned unhealthy: those send no Node event. Default 1 s.
   */
  readonly clusterPollInterval: number
  /** A cluster's `/version` is read again after this (an upgrade changes it). Default 10 min. */
  readonly versionRefresh: number
  /** A reconcile that could not read a cluster (or lost a write race) runs again after this. Default 1 s. */
  readonly retry: number
}

/** The documented defaults. */
export const InventoryDefaults: InventoryConfig = {
  debounce: 2_000,
  clusterPollInterval: 1_000,
  versionRefresh: 10 * 60_000,
  retry: 1_000,
}

/** The defaults with some values replaced; a negative or non-finite number throws `InventoryConfigError` naming it. */
export const inventoryConfig = (overrides: Partial<InventoryConfig> = {}): InventoryConfig => {
  const config = { ...InventoryDefaults, ...overrides }
  for (const [key, value] of Object.entries(config)) {
    if (!(key in InventoryDefaults))
      throw new InventoryConfigError({
        message: `inventory config: unknown key ${key}${didYouMean(key, Object.keys(InventoryDefaults))} (known: ${Object.keys(InventoryDefaults).join(", ")})`,
      })
    if (!Number.isFinite(value) || value < 0)
      throw new InventoryConfigError({
        message: `inventory config: ${key} must be a non-negative number of milliseconds, got ${String(value)}`,
      })
  }
  return config
}

/** The name of the hub ConfigMap that holds the inventory. */
export const INVENTORY_CONFIGMAP = "krtt-inventory"
