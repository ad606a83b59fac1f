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
 * the runtime writes, emits as Events or logs in a fault-free run, or how often its informers
 * list, calls for taking them again (`npm test` checks the references: shell/chaos/chaos.test.ts).
 */
export const Baselines: ReadonlyArray<Baseline> = [
  { scenario: "provision", skipDraws: 0, quiet: [], concurrent: false, reference: "f3e9d44fa97ca234" },
  { scenario: "delete", skipDraws: 14, quiet: [], concurrent: false, reference: "ed8c5329a2761256" },
  { scenario: "rotate", skipDraws: 28, quiet: [], concurrent: false, reference: "cc1591afabf87a8f" },
  { scenario: "kubeconfig", skipDraws: 42, quiet: [], concurrent: false, reference: "889a8bc07f4eae9f" },
  {
    scenario: "outage",
    skipDraws: 56,
    quiet: ["drop", "slow"],
    concurrent: false,
    reference: "c5f62f4455875de3",
  },
  { scenario: "concurrent", skipDraws: 70, quiet: [], concurrent: true, reference: "0e6411db0dd64b2e" },
  { scenario: "ipam-concurrent", skipDraws: 84, quiet: [], concurrent: true, reference: "2b232686bb0f28ac" },
  { scenario: "ipam-delete", skipDraws: 93, quiet: [], concurrent: false, reference: "9d750a843c692faf" },
  { scenario: "ipam-config", skipDraws: 102, quiet: [], concurrent: false, reference: "0137e39f2cde54f0" },
  { scenario: "ipam-exhausted", skipDraws: 111, quiet: [], concurrent: true, reference: "87338a13a98f84dc" },
  {
    scenario: "ipam-operations",
    skipDraws: 120,
    quiet: ["slow"],
    concurrent: false,
    reference: "aefb0ab2d07eff6f",
  },
  { scenario: "mc-engage", skipDraws: 129, quiet: [], concurrent: false, reference: "74443e8f622fdaf2" },
  {
    scenario: "mc-rotate",
    skipDraws: 138,
    quiet: ["slow"],
    concurrent: false,
    reference: "546b8e812ef97c67",
  },
  { scenario: "mc-outage", skipDraws: 147, quiet: [], concurrent: false, reference: "be180812af838d84" },
  {
    scenario: "propagate-copies",
    skipDraws: 156,
    quiet: [],
    concurrent: false,
    reference: "ebd22f6bd1d35773",
  },
  {
    scenario: "propagate-delete",
    skipDraws: 165,
    quiet: [],
    concurrent: false,
    reference: "a2f1ecd6dfb6d2db",
  },
  {
    scenario: "propagate-away",
    skipDraws: 174,
    quiet: ["drop"],
    concurrent: false,
    reference: "589fd80436d611b3",
  },
  {
    scenario: "propagate-drift",
    skipDraws: 183,
    quiet: ["reorder"],
    concurrent: false,
    reference: "30b0b7ffcb3ffea6",
  },
  {
    scenario: "propagate-foreign",
    skipDraws: 192,
    quiet: [],
    concurrent: false,
    reference: "22f1fc6e3a520d42",
  },
]
