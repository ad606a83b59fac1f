// The fixed fast campaign of `krtt chaos` as the only test of `npm run mutation:chaos`
// (stryker.chaos.json, docs/reliability.md), one test per scenario, so that Stryker's per-test
// coverage runs a mutant only in the scenarios that execute it. A runtime mutant is killed when a
// scenario reports a failure (any oracle), a perturbation kind stops firing in a scenario where it
// fires, a scenario whose controllers run two reconciles at once no longer does, or the fault-free
// run ends in another state (or by other creates and deletes) than the real runtime's. Each scenario
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
  /** The fault-free run's states, creates and deletes, Events and log, digested (`stateDigest`). */
  readonly reference: string
}

// Taken from the seed-1 fast campaign with the real runtime (`KRTT_CHAOS_BASELINE=1 npx vitest run
// --config shell/chaos/vitest.mutation.config.ts` prints it): every scenario alone from its
// `skipDraws` runs the points, fires the perturbations and reaches the concurrency it does in the
// whole campaign. A change to the scenarios, the suites or `ChaosDefaults.fastPoints` calls for
// taking it again.
const Baselines: ReadonlyArray<Baseline> = [
  { scenario: "provision", skipDraws: 0, quiet: [], concurrent: false, reference: "c0675029f3f7e14f" },
  { scenario: "delete", skipDraws: 14, quiet: [], concurrent: false, reference: "0a6d4244fae88d0d" },
  { scenario: "rotate", skipDraws: 28, quiet: [], concurrent: false, reference: "76a78e891ae1e1f3" },
  { scenario: "outage", skipDraws: 42, quiet: ["slow"], concurrent: false, reference: "546c23d6be3f4962" },
  { scenario: "concurrent", skipDraws: 56, quiet: [], concurrent: true, reference: "e74178383373a935" },
  { scenario: "ipam-concurrent", skipDraws: 70, quiet: [], concurrent: true, reference: "f9ebc22f3533fe10" },
  { scenario: "ipam-delete", skipDraws: 79, quiet: [], concurrent: false, reference: "4db335516fee7ce2" },
  { scenario: "ipam-config", skipDraws: 88, quiet: [], concurrent: true, reference: "247bd7b8e458c52b" },
  { scenario: "ipam-exhausted", skipDraws: 97, quiet: [], concurrent: true, reference: "0c6868dab474dcb6" },
  {
    scenario: "ipam-operations",
    skipDraws: 106,
    quiet: [],
    concurrent: false,
    reference: "5f4f8efcccf06086",
  },
  {
    scenario: "mc-engage",
    skipDraws: 115,
    quiet: ["slow"],
    concurrent: false,
    reference: "fc7951d4fbbd7a3a",
  },
  { scenario: "mc-rotate", skipDraws: 124, quiet: [], concurrent: false, reference: "df88659851c59c7f" },
  { scenario: "mc-outage", skipDraws: 133, quiet: [], concurrent: false, reference: "fb87345ded2b44a2" },
  {
    scenario: "propagate-copies",
    skipDraws: 142,
    quiet: ["drop"],
    concurrent: false,
    reference: "dc2f036bf447de60",
  },
  {
    scenario: "propagate-delete",
    skipDraws: 151,
    quiet: [],
    concurrent: true,
    reference: "855eeccf98d07352",
  },
  { scenario: "propagate-away", skipDraws: 160, quiet: [], concurrent: false, reference: "160cefaedeed9e73" },
  {
    scenario: "propagate-drift",
    skipDraws: 169,
    quiet: ["reorder"],
    concurrent: false,
    reference: "3085529f38c13394",
  },
  {
    scenario: "propagate-foreign",
    skipDraws: 178,
    quiet: [],
    concurrent: false,
    reference: "dde2f31875a7daf5",
  },
]

const quiet = <A>(e: Effect.Effect<A>) => e.pipe(Effect.provideService(References.MinimumLogLevel, "None"))

describe.runIf(process.env.KRTT_CHAOS_BASELINE === "1")("the baselines, taken again", () => {
  it.effect(
    "prints them",
    () =>
      Effect.gen(function* () {
        const whole = yield* quiet(runCampaign({ seed: 1, depth: "fast" }))
        const lines: Array<string> = []
        let skipDraws = 0
        for (const s of whole.perScenario) {
          const alone = yield* quiet(
            runCampaign({ seed: 1, depth: "fast", scenarios: [s.scenario], skipDraws }),
          )
          const quietKinds = PerturbationKinds.filter((k) => alone.fired[k] === 0)
          lines.push(
            `  { scenario: ${JSON.stringify(s.scenario)}, skipDraws: ${skipDraws}, quiet: ${JSON.stringify(quietKinds)}, concurrent: ${alone.peakConcurrency > 1}, reference: ${JSON.stringify(alone.perScenario[0]?.reference)} },`,
          )
          for (const [kind, n] of Object.entries(s.runs)) if (kind !== "none") skipDraws += n
        }
        console.log(lines.join("\n"))
      }),
    900_000,
  )
})

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
          const report = yield* quiet(
            runCampaign({
              seed: 1,
              depth: "fast",
              scenarios: [b.scenario],
              skipDraws: b.skipDraws,
              stopAtFirstFailure: true,
            }),
          )
          const failures = report.failures.map((f) => `${f.replay} [${f.oracle}] ${f.message.slice(0, 300)}`)
          assert.deepStrictEqual(failures, [])
          for (const kind of PerturbationKinds)
            if (!b.quiet.includes(kind)) assert.isAbove(report.fired[kind], 0, `${kind} never fired`)
          if (b.concurrent)
            assert.isAbove(report.peakConcurrency, 1, "no controller ever ran two reconciles at once")
          assert.strictEqual(
            report.perScenario[0]?.reference,
            b.reference,
            "the fault-free run ended in another state, or by other creates and deletes, than the real runtime's",
          )
        }),
      300_000,
    )
})
