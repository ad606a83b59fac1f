// The fixed fast campaign of `krtt chaos` as the only test of `npm run mutation:chaos`
// (stryker.chaos.json, docs/reliability.md), one test per scenario, so that Stryker's per-test
// coverage runs a mutant only in the scenarios that execute it, and the replays of the bugs the
// campaign found (`regressions.ts`), one test each. A runtime mutant is killed when a scenario
// reports a failure (any oracle), a perturbation kind stops firing in a scenario where it fires,
// a scenario whose controllers run two reconciles at once no longer does, a run differs from the
// real runtime's same run (`baselines.ts`: its states, creates and deletes, Events, log and
// traffic; the runs are deterministic), or a replay fails. Each stops at its first failure, since one is enough; named
// *.mutation.ts so that `npm test` does not run the campaign twice.
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as References from "effect/References"
import { Baselines } from "./baselines.ts"
import { type CampaignOptions, runCampaign } from "./campaign.ts"
import { PerturbationKinds } from "./perturbations.ts"
import { Regressions } from "./regressions.ts"
import { Scenarios } from "./suites.ts"

const quiet = <A>(e: Effect.Effect<A>) => e.pipe(Effect.provideService(References.MinimumLogLevel, "None"))

/** A quiet campaign that stops at its first failure (one is enough to kill a mutant), and its failures as lines. */
const untilFailure = (options: CampaignOptions) =>
  Effect.map(quiet(runCampaign({ ...options, stopAtFirstFailure: true })), (report) => ({
    report,
    failures: report.failures.map((f) => `${f.replay} [${f.oracle}] ${f.message.slice(0, 300)}`),
  }))

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
            `  { scenario: ${JSON.stringify(s.scenario)}, skipDraws: ${skipDraws}, quiet: ${JSON.stringify(quietKinds)}, concurrent: ${alone.peakConcurrency > 1}, reference: ${JSON.stringify(alone.perScenario[0]?.reference)}, perturbed: ${JSON.stringify(alone.perScenario[0]?.perturbed)} },`,
          )
          skipDraws += s.draws
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
          const { report, failures } = yield* untilFailure({
            seed: 1,
            depth: "fast",
            scenarios: [b.scenario],
            skipDraws: b.skipDraws,
          })
          // The first failure leads the message: Stryker keeps it as the mutant's status reason.
          assert.deepStrictEqual(failures, [], failures[0])
          for (const kind of PerturbationKinds)
            if (!b.quiet.includes(kind)) assert.isAbove(report.fired[kind], 0, `${kind} never fired`)
          if (b.concurrent)
            assert.isAbove(report.peakConcurrency, 1, "no controller ever ran two reconciles at once")
          assert.strictEqual(
            report.perScenario[0]?.reference,
            b.reference,
            "the fault-free run differs from the real runtime's (its states, creates and deletes, Events, log or traffic)",
          )
          assert.strictEqual(
            report.perScenario[0]?.perturbed,
            b.perturbed,
            "a perturbed run differs from the real runtime's (its states, creates and deletes, Events, log or traffic)",
          )
        }),
      300_000,
    )
})

describe("krtt chaos, the replays of the bugs it found (mutation test)", () => {
  for (const r of Regressions)
    it.effect(
      `replay ${r.scenario} ${r.kind} at ${r.at}`,
      () =>
        Effect.gen(function* () {
          const { report, failures } = yield* untilFailure({
            seed: 1,
            depth: "full",
            scenarios: [r.scenario],
            perturbations: [r.kind],
            at: r.at,
          })
          assert.deepStrictEqual(failures, [], `${r.what}: ${failures[0]}`)
          assert.isAbove(report.fired[r.kind], 0, `${r.kind} never fired`)
        }),
      300_000,
    )
})
