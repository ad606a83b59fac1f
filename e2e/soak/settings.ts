/**
 * The soak's figures: the long run's (`KRTT_SOAK=1`, an hour) and the ones `npm test` runs (five
 * minutes, the same cycle). docs/reliability-e2e.md gives what each measured.
 *
 * @module
 */

export interface SoakSettings {
  /** How long the damage goes on. */
  readonly durationMs: number
  /** Samples taken before this (from the first cycle's start) are not held to flatness. */
  readonly warmupMs: number
  /** How long a killed workload API server stays down before it is started again. */
  readonly workloadDownMs: number
  /** How long a workload identity of `krtt propagate` stays without its RBAC binding. */
  readonly revokeMs: number
  /** Cluster API Clusters kept alive (created and deleted in turn, two per cycle). */
  readonly capiClusters: number
  /** openmcp Clusters kept alive for the IPAM controller (two per cycle churned). */
  readonly ipamClusters: number
  /** Propagated ConfigMaps kept alive (one created, one changed, one deleted per cycle). */
  readonly sources: number
  /** How long the fleet may take to settle after a cycle's damage. */
  readonly settleTimeoutMs: number
  /** Flatness: the later samples' median may exceed the earlier ones' by this factor... */
  readonly rssGrowthFactor: number
  /** ...plus this many MiB (a garbage collector's swing on a small heap). */
  readonly rssSlackMiB: number
  /** Open sockets of a settled process may exceed the first settled count after warm-up by this many. */
  readonly socketSlack: number
}

/** The figures: an hour of damage, flat after the first ten minutes. */
export const SOAK_DEFAULTS: SoakSettings = {
  durationMs: 3_600_000,
  warmupMs: 600_000,
  workloadDownMs: 5_000,
  revokeMs: 8_000,
  capiClusters: 6,
  ipamClusters: 8,
  sources: 4,
  settleTimeoutMs: 180_000,
  rssGrowthFactor: 1.25,
  rssSlackMiB: 16,
  socketSlack: 6,
}

/** What `npm test` runs: five minutes of the same cycle, warm after the first one. */
export const SOAK_FAST: SoakSettings = { ...SOAK_DEFAULTS, durationMs: 300_000, warmupMs: 60_000 }

export const soakSettings = (): SoakSettings => (process.env.KRTT_SOAK === "1" ? SOAK_DEFAULTS : SOAK_FAST)
