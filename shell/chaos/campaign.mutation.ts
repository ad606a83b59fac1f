// The fixed fast campaign of `krtt chaos` as the only test of `npm run mutation:chaos`
// (stryker.chaos.json, docs/reliability.md): a runtime mutant is killed when the campaign reports
// a failure (any oracle), a perturbation class stops firing, or no controller runs two reconciles
// at once any more. It stops at the first failure, since
// one is enough; named *.mutation.ts so that `npm test` does not run the campaign twice.
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as References from "effect/References"
import { runCampaign } from "./campaign.ts"
import { PerturbationKinds } from "./perturbations.ts"

describe("krtt chaos, the fixed campaign (mutation test)", () => {
  it.effect(
    "the real controllers break no oracle and every perturbation fires",
    () =>
      Effect.gen(function* () {
        const report = yield* runCampaign({ seed: 1, depth: "fast", stopAtFirstFailure: true }).pipe(
          Effect.provideService(References.MinimumLogLevel, "None"),
        )
        const failures = report.failures.map((f) => `${f.replay} [${f.oracle}] ${f.message.slice(0, 300)}`)
        assert.deepStrictEqual(failures, [])
        for (const kind of PerturbationKinds) assert.isAbove(report.fired[kind], 0, `${kind} never fired`)
        assert.isAbove(report.peakConcurrency, 1, "no controller ever ran two reconciles at once")
      }),
    300_000,
  )
})
