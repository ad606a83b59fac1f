/**
 * What `npm run mutation:chaos` holds each scenario of the fixed campaign to
 * (`campaign.mutation.ts`): the real runtime's figures, one baseline per scenario.
 *
 * @module
 */
import type { PerturbationKind } from "./perturbations.ts"

export interface Baseline {
  readonly scenario: string
  /** The sampler draws the scenarios before it take in the whole campaign (their `ScenarioReport.draws`). */
  readonly skipDraws: number
  /** The perturbation kinds that never fire in it. */
  readonly quiet: ReadonlyArray<PerturbationKind>
  /** Whether some controller runs two reconciles at once in it. */
  readonly concurrent: boolean
  /**
   * The fault-free run's states, creates and deletes, Events, log, informers' lists and traffic
   * (requests and writes), digested (`stateDigest`).
   */
  readonly reference: string
  /** The same of every perturbed run, with its point, in order (`ScenarioReport.perturbed`). */
  readonly perturbed: string
}

/**
 * Taken from the seed-1 fast campaign with the real runtime (`KRTT_CHAOS_BASELINE=1 npx vitest
 * run --config shell/chaos/vitest.mutation.config.ts` prints them): every scenario alone from its
 * `skipDraws` runs the points, fires the perturbations and reaches the concurrency it does in the
 * whole campaign. Runs are deterministic (virtual time, seeded draws), perturbed ones too. A
 * change to the scenarios, the suites, `ChaosDefaults.fastPoints`, or to what the runtime writes,
 * emits as Events or logs, how often its informers list, how many requests it sends or what its
 * metrics read, in any run, calls for taking them again (`npm test` checks them: shell/chaos/chaos.test.ts).
 */
export const Baselines: ReadonlyArray<Baseline> = [
  {
    scenario: "provision",
    skipDraws: 0,
    quiet: [],
    concurrent: false,
    reference: "efdea4474485dcf6",
    perturbed: "0eccd5f4d1fa16f2",
  },
  {
    scenario: "delete",
    skipDraws: 12,
    quiet: [],
    concurrent: false,
    reference: "7aa0c918c3808d97",
    perturbed: "481c1c2ea36ef80d",
  },
  {
    scenario: "rotate",
    skipDraws: 24,
    quiet: ["slow"],
    concurrent: false,
    reference: "e712acfd5f1bf69d",
    perturbed: "53a6fdfd13b60f24",
  },
  {
    scenario: "kubeconfig",
    skipDraws: 36,
    quiet: [],
    concurrent: false,
    reference: "7d675626f5c788e9",
    perturbed: "ba35d677d46ac37e",
  },
  {
    scenario: "outage",
    skipDraws: 48,
    quiet: ["drop", "slow"],
    concurrent: false,
    reference: "5289c2a2830c0d05",
    perturbed: "4a2f09eaf85b3185",
  },
  {
    scenario: "concurrent",
    skipDraws: 60,
    quiet: [],
    concurrent: false,
    reference: "bbe9ddef857e02ca",
    perturbed: "787fede6b5951467",
  },
  {
    scenario: "ipam-concurrent",
    skipDraws: 72,
    quiet: [],
    concurrent: true,
    reference: "68533b2775183d2f",
    perturbed: "23c5407bc19f1092",
  },
  {
    scenario: "ipam-delete",
    skipDraws: 79,
    quiet: [],
    concurrent: false,
    reference: "cddb2ca29a37522b",
    perturbed: "f84be1b875d63b46",
  },
  {
    scenario: "ipam-config",
    skipDraws: 86,
    quiet: [],
    concurrent: true,
    reference: "d65f127c939eaf82",
    perturbed: "b60e95edd1dfcd7c",
  },
  {
    scenario: "ipam-exhausted",
    skipDraws: 93,
    quiet: [],
    concurrent: false,
    reference: "4d8073292ca90ef9",
    perturbed: "c4cbc841ead0d92a",
  },
  {
    scenario: "ipam-operations",
    skipDraws: 100,
    quiet: [],
    concurrent: false,
    reference: "cba4c3889e21dd3b",
    perturbed: "5033e0bf765bc90d",
  },
  {
    scenario: "mc-engage",
    skipDraws: 107,
    quiet: [],
    concurrent: false,
    reference: "f1f33f806bd803ca",
    perturbed: "cb04c52c83ef9f0a",
  },
  {
    scenario: "mc-rotate",
    skipDraws: 114,
    quiet: [],
    concurrent: false,
    reference: "2362a1d6bbf736f7",
    perturbed: "125dbe0b6f41b36d",
  },
  {
    scenario: "mc-outage",
    skipDraws: 121,
    quiet: [],
    concurrent: false,
    reference: "64ec7febd00e5d81",
    perturbed: "011ce151ba480b8c",
  },
  {
    scenario: "propagate-copies",
    skipDraws: 128,
    quiet: [],
    concurrent: false,
    reference: "a21ff6d332523500",
    perturbed: "d6d52a744956085a",
  },
  {
    scenario: "propagate-delete",
    skipDraws: 135,
    quiet: [],
    concurrent: false,
    reference: "c451eb76ba7b03bf",
    perturbed: "4861bbe529843ec5",
  },
  {
    scenario: "propagate-away",
    skipDraws: 142,
    quiet: ["drop"],
    concurrent: false,
    reference: "218d19eb655f5265",
    perturbed: "f821c885c9fc3f09",
  },
  {
    scenario: "propagate-away-many",
    skipDraws: 149,
    quiet: [],
    concurrent: false,
    reference: "0c8c7588228d51ba",
    perturbed: "e4b969b81f9653b2",
  },
  {
    scenario: "propagate-drift",
    skipDraws: 156,
    quiet: ["reorder"],
    concurrent: false,
    reference: "370ddad823fe176f",
    perturbed: "0aca7dfd9cfbc8b8",
  },
  {
    scenario: "propagate-forbidden",
    skipDraws: 163,
    quiet: ["drop", "slow"],
    concurrent: false,
    reference: "612f93587f0e8900",
    perturbed: "ed46ceca54502591",
  },
  {
    scenario: "propagate-foreign",
    skipDraws: 170,
    quiet: [],
    concurrent: false,
    reference: "f00cf01f2a809423",
    perturbed: "7899be53c1ad6330",
  },
]
