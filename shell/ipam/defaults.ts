/**
 * The IPAM controller's options and their documented defaults: workers, the names it reports
 * under, and the retries of the IPAMConfig's status.
 *
 * @module
 */
import * as Schedule from "effect/Schedule"
import type { ControllerIdentity } from "../../core/ipam/index.ts"

/** The controller's options; documented defaults in `IpamControllerDefaults`. */
export interface IpamControllerOptions {
  /** Name of the IPAMConfig to follow (`--config`). */
  readonly config: string
  readonly identity: ControllerIdentity
  /** Workers (`--concurrency`). */
  readonly concurrency: number
  readonly gracefulShutdownTimeout: number
  /** The component name on Events. */
  readonly component: string
}

/** The controller's defaults: concurrency, the names it reports under, and its status retries. */
export const IpamControllerDefaults = {
  concurrency: 10,
  environment: "default",
  component: "krtt-ipam",
  /**
   * A refused IPAMConfig status write is tried again this many times, after 1 s, doubling up to
   * 30 s, so that a transient error does not leave the Valid condition unwritten until the next change.
   */
  configStatusRetries: 10,
  configStatusRetryBase: 1_000,
  configStatusRetryMax: 30_000,
} as const

/** The retries of a refused IPAMConfig status write, as `IpamControllerDefaults` says. */
export const configStatusRetry = Schedule.min([
  Schedule.exponential(IpamControllerDefaults.configStatusRetryBase),
  Schedule.spaced(IpamControllerDefaults.configStatusRetryMax),
]).pipe(Schedule.upTo({ times: IpamControllerDefaults.configStatusRetries }))
