/**
 * The options of `krtt live` (sim/live.ts) with their defaults and checks, apart from the live
 * view itself, so that the command line can be read without loading the simulation.
 *
 * @module
 */

export interface LiveOptions {
  readonly clusters: number
  /** Virtual minutes to run. */
  readonly minutes: number
  /** Virtual seconds per real second. */
  readonly speed: number
  readonly seed: number
}

export const LiveDefaults: LiveOptions = { clusters: 36, minutes: 45, speed: 60, seed: 2025 }

/** What is wrong with the options, naming the flag; `undefined` when they can run. */
export const checkLiveOptions = (o: LiveOptions): string | undefined => {
  if (!Number.isInteger(o.clusters) || o.clusters < 1 || o.clusters > 1_000)
    return `--clusters must be an integer from 1 to 1000, got ${o.clusters}`
  if (!Number.isFinite(o.minutes) || o.minutes <= 0 || o.minutes > 10_000)
    return `--minutes must be more than 0 and at most 10000, got ${o.minutes}`
  if (!Number.isFinite(o.speed) || o.speed <= 0) return `--speed must be more than 0, got ${o.speed}`
  if (!Number.isInteger(o.seed)) return `--seed must be an integer, got ${o.seed}`
  return undefined
}
