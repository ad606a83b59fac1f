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
 * emits as Events or logs, how often its informers list or how many requests it sends, in any
 * run, calls for taking them again (`npm test` checks them: shell/chaos/chaos.test.ts).
 */
export const Baselines: ReadonlyArray<Baseline> = [
  {
    scenario: "provision",
    skipDraws: 0,
    quiet: [],
    concurrent: false,
    reference: "6cd9b8e0f14cbaa3",
    perturbed: "b65db94d9d915864",
  },
  {
    scenario: "delete",
    skipDraws: 12,
    quiet: [],
    concurrent: false,
    reference: "b38ab4918e9ea57f",
    perturbed: "a5d860dfcdb95c42",
  },
  {
    scenario: "rotate",
    skipDraws: 24,
    quiet: ["slow"],
    concurrent: false,
    reference: "8a521c889a2fe0bf",
    perturbed: "ea5e882fbb28858b",
  },
  {
    scenario: "kubeconfig",
    skipDraws: 36,
    quiet: [],
    concurrent: false,
    reference: "fdd6c5db8858c36b",
    perturbed: "cc5d9c151e38cdb0",
  },
  {
    scenario: "outage",
    skipDraws: 48,
    quiet: ["drop", "slow"],
    concurrent: false,
    reference: "1db1382d3e142c91",
    perturbed: "5f2e68fcf62f91fc",
  },
  {
    scenario: "concurrent",
    skipDraws: 60,
    quiet: [],
    concurrent: false,
    reference: "08e0f2c8a0dd8d9a",
    perturbed: "c9a467751c0ed63a",
  },
  {
    scenario: "ipam-concurrent",
    skipDraws: 72,
    quiet: [],
    concurrent: true,
    reference: "2f587cc250fa7e29",
    perturbed: "80f686457ef835be",
  },
  {
    scenario: "ipam-delete",
    skipDraws: 79,
    quiet: [],
    concurrent: false,
    reference: "421d141bafd3e1a3",
    perturbed: "eaa786591758cb39",
  },
  {
    scenario: "ipam-config",
    skipDraws: 86,
    quiet: [],
    concurrent: true,
    reference: "e192194d8a132ce0",
    perturbed: "0db0a009e71ec914",
  },
  {
    scenario: "ipam-exhausted",
    skipDraws: 93,
    quiet: [],
    concurrent: false,
    reference: "0dd616f948657d5d",
    perturbed: "80bd09e99ed0c499",
  },
  {
    scenario: "ipam-operations",
    skipDraws: 100,
    quiet: [],
    concurrent: false,
    reference: "fa9564c04d33478d",
    perturbed: "d655d0c77df2fd6f",
  },
  {
    scenario: "mc-engage",
    skipDraws: 107,
    quiet: [],
    concurrent: false,
    reference: "617a10e1dfbcb62b",
    perturbed: "d44671c5e3f61661",
  },
  {
    scenario: "mc-rotate",
    skipDraws: 114,
    quiet: [],
    concurrent: false,
    reference: "32bf7a1fc00ca424",
    perturbed: "f2d3b7570967f811",
  },
  {
    scenario: "mc-outage",
    skipDraws: 121,
    quiet: [],
    concurrent: false,
    reference: "f273ba3e26d162ae",
    perturbed: "006d2471bbdca333",
  },
  {
    scenario: "propagate-copies",
    skipDraws: 128,
    quiet: [],
    concurrent: false,
    reference: "4dcef5ec30a80b23",
    perturbed: "4f0a43489729e497",
  },
  {
    scenario: "propagate-delete",
    skipDraws: 135,
    quiet: [],
    concurrent: false,
    reference: "5a80d4b790005a48",
    perturbed: "f215e5087bbaf4e7",
  },
  {
    scenario: "propagate-away",
    skipDraws: 142,
    quiet: ["drop"],
    concurrent: false,
    reference: "b2d827ac7a390fa2",
    perturbed: "b232e1d426a3adf7",
  },
  {
    scenario: "propagate-drift",
    skipDraws: 149,
    quiet: ["reorder"],
    concurrent: false,
    reference: "c6a55ebbd4ed7166",
    perturbed: "883ce79e4c7f8b32",
  },
  {
    scenario: "propagate-forbidden",
    skipDraws: 156,
    quiet: [],
    concurrent: false,
    reference: "dd80c3cc6b3ec49d",
    perturbed: "f1e17016ebc6a862",
  },
  {
    scenario: "propagate-foreign",
    skipDraws: 163,
    quiet: ["drop"],
    concurrent: false,
    reference: "0f9a07cffb96b642",
    perturbed: "efd77606dafc2cda",
  },
]
