// The fixed fast campaign of `krtt chaos` as the only test of `npm run mutation:chaos`
// (stryker.chaos.json, docs/reliability.md), one test per scenario, so that Stryker's per-test
// coverage runs a mutant only in the scenarios that execute it. A runtime mutant is killed when a
// scenario reports a failure (any oracle), a perturbation kind stops firing in a scenario where it
// fires, or a scenario whose controllers run two reconciles at once no longer does. Each scenario
// stops at its first failure, since one is enough; named *.mutation.ts so that `npm test` does not
// run the campaign twice.
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as References from "effect/References"
import { runCampaign } from "./campaign.ts"
import { type PerturbationKind, PerturbationKinds } from "./perturbations.ts"
import { Scenarios } from "./suites.ts"

interface Baseline {
  readonly scenario: string
  /** The sampler draws the scenarios before it take in the whole campaign (their fast runs but the references). */
  readonly skipDraws: number
  /** The perturbation kinds that never fire in it. */
  readonly quiet: ReadonlyArray<PerturbationKind>
  /** Whether some controller runs two reconciles at once in it. */
  readonly concurrent: boolean
}

// Taken from a run of the seed-1 fast campaign with the real runtime, the whole campaign and each
// scenario alone from its `skipDraws`: every scenario alone runs the points, fires the
// perturbations and reaches the concurrency it does in the whole campaign. A change to the
// scenarios or to `ChaosDefaults.fastPoints` calls for taking it again.
const Baselines: ReadonlyArray<Baseline> = [
  { scenario: "provision", skipDraws: 0, quiet: [], concurrent: false },
  { scenario: "delete", skipDraws: 14, quiet: [], concurrent: false },
  { scenario: "rotate", skipDraws: 28, quiet: [], concurrent: false },
  { scenario: "outage", skipDraws: 42, quiet: ["slow"], concurrent: false },
  { scenario: "concurrent", skipDraws: 56, quiet: [], concurrent: true },
  { scenario: "ipam-concurrent", skipDraws: 70, quiet: [], concurrent: true },
  { scenario: "ipam-delete", skipDraws: 79, quiet: [], concurrent: false },
  { scenario: "ipam-config", skipDraws: 88, quiet: [], concurrent: false },
  { scenario: "ipam-exhausted", skipDraws: 97, quiet: [], concurrent: true },
  { scenario: "mc-engage", skipDraws: 106, quiet: [], concurrent: false },
  { scenario: "mc-rotate", skipDraws: 115, quiet: ["drop", "slow"], concurrent: false },
  { scenario: "mc-outage", skipDraws: 124, quiet: ["drop"], concurrent: false },
  { scenario: "propagate-copies", skipDraws: 133, quiet: [], concurrent: false },
  { scenario: "propagate-delete", skipDraws: 142, quiet: ["drop", "reorder"], concurrent: true },
  { scenario: "propagate-foreign", skipDraws: 151, quiet: [], concurrent: false },
]

describe("krtt chaos, the fixed campaign (mutation test)", () => {
  it("has one baseline per scenario, in the campaign's order", () => {
    assert.deepStrictEqual(
      Baselines.map((b) => b.scenario),
      Scenarios.map((s) => s.name),
    )
  })

  for (const b of Baselines)
    it.effect(
      `scenario ${b.scenario}`,
      () =>
        Effect.gen(function* () {
          const report = yield* runCampaign({
            seed: 1,
            depth: "fast",
            scenarios: [b.scenario],
            skipDraws: b.skipDraws,
            stopAtFirstFailure: true,
          }).pipe(Effect.provideService(References.MinimumLogLevel, "None"))
          const failures = report.failures.map((f) => `${f.replay} [${f.oracle}] ${f.message.slice(0, 300)}`)
          assert.deepStrictEqual(failures, [])
          for (const kind of PerturbationKinds)
            if (!b.quiet.includes(kind)) assert.isAbove(report.fired[kind], 0, `${kind} never fired`)
          if (b.concurrent)
            assert.isAbove(report.peakConcurrency, 1, "no controller ever ran two reconciles at once")
        }),
      300_000,
    )
})
