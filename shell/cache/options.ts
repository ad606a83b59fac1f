/**
 * The informer cache's options and their documented defaults.
 *
 * # Expected flow
 * A provider passes `InformerCacheOptions` to `makeInformerCache` (or, without the cluster's name,
 * to `makeInformerCacheFactory`); `context.ts` turns them into the cache's shared record.
 *
 * @module
 */
import type * as Duration from "effect/Duration"
import type { ReflectorTiming } from "../reflector/options.ts"

/** The informer cache's documented numbers. */
export const InformerCacheDefaults = {
  /** How long a read waits for its informer's first list (controller-runtime's CacheSyncTimeout). */
  syncTimeout: "2 minutes",
} as const satisfies Record<string, Duration.Input>

/** Options of one informer cache. */
export interface InformerCacheOptions {
  /** The cluster's name, for logs. */
  readonly cluster: string
  /**
   * Only these namespaces (controller-runtime's `DefaultNamespaces`): namespaced resources get one
   * informer per namespace; a read elsewhere fails with InformerNotFound. Default: all namespaces.
   */
  readonly namespaces?: ReadonlyArray<string> | undefined
  /** Default `InformerCacheDefaults.syncTimeout` (2 min). */
  readonly syncTimeout?: Duration.Input | undefined
  /** Timing of every informer's reflector (defaults: the reflector's). */
  readonly reflector?: Partial<ReflectorTiming> | undefined
}
