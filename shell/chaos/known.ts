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

export const KnownBugs: ReadonlyArray<KnownBug> = [
  {
    id: "foreign-condition-duplicated",
    summary:
      "a Cluster status write duplicates another writer's conditions: the core's status keeps every previous condition (foreign ones included) and interpret's mergeConditions appends the foreign ones again, so each write doubles them, and every write triggers the next (a write storm that grows the Cluster without bound)",
    where:
      "shell/cluster/interpret.ts mergeConditions (keep only owned types from `ours`), or core/cluster/reconcile.ts withCondition",
    replay: "krtt chaos --seed 1 --scenario provision --perturbation reorder --at 1",
    // Every failure of a run that stormed follows from the storm (a Cluster that never settles
    // is never deleted either); a lost condition would be another bug.
    matches: (f, run) =>
      f.perturbation === "reorder" &&
      f.oracle !== "safety" &&
      f.oracle !== "error" &&
      run.some((g) => g.oracle === "esr" && g.message.includes("write storm")),
  },
]

/** The failures of the same run as `f`. */
export const sameRun = (all: ReadonlyArray<Failure>, f: Failure): ReadonlyArray<Failure> =>
  all.filter((g) => g.replay === f.replay)

/** Whether a failure is one of the known bugs. */
export const isKnown = (all: ReadonlyArray<Failure>, f: Failure): boolean =>
  KnownBugs.some((b) => b.matches(f, sameRun(all, f)))
