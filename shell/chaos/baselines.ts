/**
 * What `npm run mutation:chaos` holds each scenario of the fixed campaign to
 * (`campaign.mutation.ts`): the real runtime's figures, one baseline per scenario.
 *
 * @module
 */
import type { PerturbationKind } from "./perturbations.ts"

export interface Baseline {
  readonly scenario: string
  /** The sampler draws the scenarios before it take in the whole campaign (their fast runs but the references). */
  readonly skipDraws: number
  /** The perturbation kinds that never fire in it. */
  readonly quiet: ReadonlyArray<PerturbationKind>
  /** Whether some controller runs two reconciles at once in it. */
  readonly concurrent: boolean
  /** The fault-free run's states, creates and deletes, Events and log, digested (`stateDigest`). */
  readonly reference: string
}

/**
 * Taken from the seed-1 fast campaign with the real runtime (`KRTT_CHAOS_BASELINE=1 npx vitest
 * run --config shell/chaos/vitest.mutation.config.ts` prints them): every scenario alone from its
 * `skipDraws` runs the points, fires the perturbations and reaches the concurrency it does in the
 * whole campaign. A change to the scenarios, the suites, `ChaosDefaults.fastPoints`, or to what
 * the runtime writes, emits as Events or logs in a fault-free run, calls for taking them again
 * (`npm test` checks the references: shell/chaos/chaos.test.ts).
 */
export const Baselines: ReadonlyArray<Baseline> = [
  { scenario: "provision", skipDraws: 0, quiet: [], concurrent: false, reference: "c0675029f3f7e14f" },
  { scenario: "delete", skipDraws: 14, quiet: [], concurrent: false, reference: "0a6d4244fae88d0d" },
  { scenario: "rotate", skipDraws: 28, quiet: [], concurrent: false, reference: "76a78e891ae1e1f3" },
  { scenario: "kubeconfig", skipDraws: 42, quiet: [], concurrent: false, reference: "01f5ab9676952cd4" },
  {
    scenario: "outage",
    skipDraws: 56,
    quiet: ["drop", "slow"],
    concurrent: false,
    reference: "546c23d6be3f4962",
  },
  { scenario: "concurrent", skipDraws: 70, quiet: [], concurrent: true, reference: "e74178383373a935" },
  { scenario: "ipam-concurrent", skipDraws: 84, quiet: [], concurrent: true, reference: "f9ebc22f3533fe10" },
  { scenario: "ipam-delete", skipDraws: 93, quiet: [], concurrent: false, reference: "4db335516fee7ce2" },
  { scenario: "ipam-config", skipDraws: 102, quiet: [], concurrent: false, reference: "247bd7b8e458c52b" },
  { scenario: "ipam-exhausted", skipDraws: 111, quiet: [], concurrent: true, reference: "0c6868dab474dcb6" },
  {
    scenario: "ipam-operations",
    skipDraws: 120,
    quiet: ["slow"],
    concurrent: false,
    reference: "5f4f8efcccf06086",
  },
  { scenario: "mc-engage", skipDraws: 129, quiet: [], concurrent: false, reference: "fc7951d4fbbd7a3a" },
  {
    scenario: "mc-rotate",
    skipDraws: 138,
    quiet: ["slow"],
    concurrent: false,
    reference: "df88659851c59c7f",
  },
  { scenario: "mc-outage", skipDraws: 147, quiet: [], concurrent: false, reference: "fb87345ded2b44a2" },
  {
    scenario: "propagate-copies",
    skipDraws: 156,
    quiet: [],
    concurrent: false,
    reference: "dc2f036bf447de60",
  },
  {
    scenario: "propagate-delete",
    skipDraws: 165,
    quiet: [],
    concurrent: false,
    reference: "855eeccf98d07352",
  },
  {
    scenario: "propagate-away",
    skipDraws: 174,
    quiet: ["drop"],
    concurrent: false,
    reference: "160cefaedeed9e73",
  },
  {
    scenario: "propagate-drift",
    skipDraws: 183,
    quiet: ["reorder"],
    concurrent: false,
    reference: "3085529f38c13394",
  },
  {
    scenario: "propagate-foreign",
    skipDraws: 192,
    quiet: [],
    concurrent: false,
    reference: "dde2f31875a7daf5",
  },
]
