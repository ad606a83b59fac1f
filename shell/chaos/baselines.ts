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
    perturbed: "58098dfc445026a4",
  },
  {
    scenario: "delete",
    skipDraws: 12,
    quiet: [],
    concurrent: false,
    reference: "7aa0c918c3808d97",
    perturbed: "98c2a14021ca623b",
  },
  {
    scenario: "rotate",
    skipDraws: 24,
    quiet: ["slow"],
    concurrent: false,
    reference: "e712acfd5f1bf69d",
    perturbed: "1ed519f3d205c6ac",
  },
  {
    scenario: "kubeconfig",
    skipDraws: 36,
    quiet: [],
    concurrent: false,
    reference: "7d675626f5c788e9",
    perturbed: "031c85c626a557d3",
  },
  {
    scenario: "outage",
    skipDraws: 48,
    quiet: ["drop", "slow"],
    concurrent: false,
    reference: "5289c2a2830c0d05",
    perturbed: "0907c99d6c139577",
  },
  {
    scenario: "concurrent",
    skipDraws: 60,
    quiet: [],
    concurrent: false,
    reference: "bbe9ddef857e02ca",
    perturbed: "a0e1adac7ca43279",
  },
  {
    scenario: "ipam-concurrent",
    skipDraws: 72,
    quiet: [],
    concurrent: true,
    reference: "68533b2775183d2f",
    perturbed: "d7ce258566942f88",
  },
  {
    scenario: "ipam-delete",
    skipDraws: 79,
    quiet: [],
    concurrent: false,
    reference: "cddb2ca29a37522b",
    perturbed: "cd9e5f7afdc32a26",
  },
  {
    scenario: "ipam-config",
    skipDraws: 86,
    quiet: [],
    concurrent: true,
    reference: "d65f127c939eaf82",
    perturbed: "de26648019a1aeb0",
  },
  {
    scenario: "ipam-exhausted",
    skipDraws: 93,
    quiet: [],
    concurrent: false,
    reference: "4d8073292ca90ef9",
    perturbed: "172ba625f95f8337",
  },
  {
    scenario: "ipam-operations",
    skipDraws: 100,
    quiet: [],
    concurrent: false,
    reference: "cba4c3889e21dd3b",
    perturbed: "259c9afe998e9c4b",
  },
  {
    scenario: "mc-engage",
    skipDraws: 107,
    quiet: [],
    concurrent: false,
    reference: "f4219cd744fb9989",
    perturbed: "3d28ad828b2eebc0",
  },
  {
    scenario: "mc-rotate",
    skipDraws: 114,
    quiet: [],
    concurrent: false,
    reference: "70b7647be9d7e50c",
    perturbed: "07afe714b00f9d7d",
  },
  {
    scenario: "mc-outage",
    skipDraws: 121,
    quiet: [],
    concurrent: false,
    reference: "b1ff65c6ce7e32d5",
    perturbed: "2d8d8dd440f508c1",
  },
  {
    scenario: "propagate-copies",
    skipDraws: 128,
    quiet: [],
    concurrent: false,
    reference: "a21ff6d332523500",
    perturbed: "9051c118d6f45f4b",
  },
  {
    scenario: "propagate-delete",
    skipDraws: 135,
    quiet: [],
    concurrent: false,
    reference: "c451eb76ba7b03bf",
    perturbed: "560c80d10f3e641a",
  },
  {
    scenario: "propagate-away",
    skipDraws: 142,
    quiet: ["drop"],
    concurrent: false,
    reference: "218d19eb655f5265",
    perturbed: "5104946fb6a99d40",
  },
  {
    scenario: "propagate-drift",
    skipDraws: 149,
    quiet: ["reorder"],
    concurrent: false,
    reference: "370ddad823fe176f",
    perturbed: "8da9e36411ed3856",
  },
  {
    scenario: "propagate-forbidden",
    skipDraws: 156,
    quiet: [],
    concurrent: false,
    reference: "612f93587f0e8900",
    perturbed: "766472ea399cec25",
  },
  {
    scenario: "propagate-foreign",
    skipDraws: 163,
    quiet: ["drop"],
    concurrent: false,
    reference: "f00cf01f2a809423",
    perturbed: "b1abb7f7459f561b",
  },
]
