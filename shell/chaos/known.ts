/**
 * Bugs the campaign found in our controllers that are reported but not yet fixed (their code is
 * another engineer's to change). The fast campaign tolerates exactly these failures, and fails
 * when one no longer reproduces, so that the entry is removed with the fix.
 *
 * @module
 */
import type { Failure } from "./campaign.ts"

export interface KnownBug {
  readonly id: string
  readonly summary: string
  /** Where the fix belongs. */
  readonly where: string
  readonly replay: string
  /** Whether `f` is this bug; `run` is every failure of the same run. */
  readonly matches: (f: Failure, run: ReadonlyArray<Failure>) => boolean
}

/**
 * Empty: the one bug found so far (a foreign condition duplicated by every Cluster status write,
 * `krtt chaos --seed 1 --scenario provision --perturbation reorder --at 1`) is fixed in
 * shell/cluster/interpret.ts's mergeConditions; its runs stay in the campaign as the regression.
 */
export const KnownBugs: ReadonlyArray<KnownBug> = []

/** The failures of the same run as `f`. */
export const sameRun = (all: ReadonlyArray<Failure>, f: Failure): ReadonlyArray<Failure> =>
  all.filter((g) => g.replay === f.replay)

/** Whether a failure is one of the known bugs. */
export const isKnown = (all: ReadonlyArray<Failure>, f: Failure): boolean =>
  KnownBugs.some((b) => b.matches(f, sameRun(all, f)))
