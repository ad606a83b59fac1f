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
    reference: "530b1f96e3fde0ff",
    perturbed: "5d15f090cf0db693",
  },
  {
    scenario: "delete",
    skipDraws: 12,
    quiet: [],
    concurrent: false,
    reference: "c7a3e663b6f4680a",
    perturbed: "1076e5a2b0ce376d",
  },
  {
    scenario: "rotate",
    skipDraws: 24,
    quiet: ["slow"],
    concurrent: false,
    reference: "c7c087efaf8c74b6",
    perturbed: "7c5d33b31568b345",
  },
  {
    scenario: "kubeconfig",
    skipDraws: 36,
    quiet: [],
    concurrent: false,
    reference: "4346c5afb1b57fb2",
    perturbed: "8ac1ee83fbe265eb",
  },
  {
    scenario: "outage",
    skipDraws: 48,
    quiet: ["drop", "slow"],
    concurrent: false,
    reference: "e2a8545718144db0",
    perturbed: "9980837cb4990d20",
  },
  {
    scenario: "concurrent",
    skipDraws: 60,
    quiet: [],
    concurrent: true,
    reference: "c569567d737052cd",
    perturbed: "6ca4e0aae1cc50a6",
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
    reference: "20519f70d5d40e13",
    perturbed: "951709bae7384d83",
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
    reference: "3ab8ecd160e417af",
    perturbed: "a720ea7943be5958",
  },
  {
    scenario: "mc-engage",
    skipDraws: 107,
    quiet: [],
    concurrent: false,
    reference: "e2d817abb5b4725d",
    perturbed: "a2a915ab08a8e63f",
  },
  {
    scenario: "mc-rotate",
    skipDraws: 114,
    quiet: [],
    concurrent: false,
    reference: "7d769e9ba34f534d",
    perturbed: "3de45a704c29dce1",
  },
  {
    scenario: "mc-outage",
    skipDraws: 121,
    quiet: [],
    concurrent: false,
    reference: "f1ad82502cd50a54",
    perturbed: "1595770d339dce58",
  },
  {
    scenario: "mc-hub-watches",
    skipDraws: 128,
    quiet: ["drop", "slow"],
    concurrent: false,
    reference: "52c4b8832bec4e8e",
    perturbed: "2ae4053b6012eb7d",
  },
  {
    scenario: "propagate-copies",
    skipDraws: 135,
    quiet: [],
    concurrent: false,
    reference: "a21ff6d332523500",
    perturbed: "3ff3dd528cc62a6a",
  },
  {
    scenario: "propagate-delete",
    skipDraws: 142,
    quiet: ["drop"],
    concurrent: false,
    reference: "c451eb76ba7b03bf",
    perturbed: "6d0a790108f4089f",
  },
  {
    scenario: "propagate-away",
    skipDraws: 149,
    quiet: [],
    concurrent: false,
    reference: "d19021006232da9b",
    perturbed: "3f9839e3a5e3a750",
  },
  {
    scenario: "propagate-away-many",
    skipDraws: 156,
    quiet: [],
    concurrent: true,
    reference: "5ce8190dbf416753",
    perturbed: "cf0f8a29a8729868",
  },
  {
    scenario: "propagate-drift",
    skipDraws: 163,
    quiet: ["drop", "reorder"],
    concurrent: false,
    reference: "370ddad823fe176f",
    perturbed: "81f8e0c3496458db",
  },
  {
    scenario: "propagate-forbidden",
    skipDraws: 170,
    quiet: ["drop"],
    concurrent: false,
    reference: "5df4d3e306cf6b93",
    perturbed: "706394ad7692f347",
  },
  {
    scenario: "propagate-foreign",
    skipDraws: 177,
    quiet: ["drop"],
    concurrent: false,
    reference: "f00cf01f2a809423",
    perturbed: "e2be8f4f5bf767a3",
  },
  {
    scenario: "propagate-warnings",
    skipDraws: 184,
    quiet: [],
    concurrent: true,
    reference: "d0ac3704ccf499e3",
    perturbed: "4c1b77c19f4fffd3",
  },
]
