/**
 * The bugs the campaign found, by the replay that showed each (docs/reliability.md, "Bugs found
 * in our controllers"): with the real runtime each run passes, with its bug put back it fails. A
 * point is a position in the run's sequence of requests or writes, so a change to a suite can
 * move it: set a replay again where its bug, put back, fails it. `npm test` runs them
 * (`chaos.test.ts`) and so does `npm run mutation:chaos` (`campaign.mutation.ts`), so that a
 * mutant bringing a bug back is killed by its replay.
 *
 * @module
 */
import type { PerturbationKind } from "./perturbations.ts"

/** One bug's replay: `krtt chaos --seed 1 --scenario <scenario> --perturbation <kind> --at <at>`. */
export interface Regression {
  readonly scenario: string
  readonly kind: PerturbationKind
  readonly at: number
  /** What the bug did. */
  readonly what: string
}

export const Regressions: ReadonlyArray<Regression> = [
  {
    scenario: "provision",
    kind: "reorder",
    at: 1,
    what: "a Cluster status write duplicated another writer's conditions (a write storm)",
  },
  {
    scenario: "ipam-concurrent",
    kind: "reorder",
    at: 4,
    what: "the IPAM controller's Cluster condition write dropped another writer's condition",
  },
  {
    scenario: "ipam-concurrent",
    kind: "transient",
    at: 34,
    what: "a refused Cluster condition write was dropped, never retried",
  },
  {
    scenario: "ipam-config",
    kind: "transient",
    at: 34,
    what: "a refused IPAMConfig status write was dropped, never retried",
  },
  {
    scenario: "propagate-delete",
    kind: "stale",
    at: 4,
    what: "propagate's propagated-to annotation kept counting a cluster that left",
  },
  {
    scenario: "propagate-away",
    kind: "transient",
    at: 59,
    what: "a pending cleanup of a cluster back from an outage, refused once, was never tried again",
  },
  {
    scenario: "propagate-forbidden",
    kind: "crash",
    at: 1,
    what: "a namespace that refused the identity in a cluster was asked again at once: a busy loop of reconciles and LISTs while the Role was missing",
  },
]
