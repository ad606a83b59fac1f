/**
 * `krtt chaos [--controllers a,b] [--seed N] [--budget SECONDS] [--json]`: the perturbation
 * campaign (docs/reliability.md) over the real shell controllers, on the in-memory API server and virtual
 * time. `--controllers` picks suites by controller (shell/chaos/suites.ts): `clustercache`,
 * `cluster` (the operator), `ipam`, `multicluster`, `propagate`; the default runs all. Without `--budget` it runs the fixed fast campaign (the one `npm test` runs); with it,
 * every point of every perturbation until the budget is spent. `--scenario`, `--perturbation`,
 * `--at` (and `--mutant`, for the deliberately broken operators) replay one run, as printed after
 * each failure. Exit code 0 when no oracle failed, 1 when one did, 2 on a bad flag value. The
 * command line is read in `chaosCommand.ts`, which loads this module when the command runs.
 *
 * @module
 */

import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as References from "effect/References"
import { TestClock } from "effect/testing"
import { closestKey } from "../../core/krtt/suggest.ts"
import { type CampaignOptions, renderReport, reportJson, runCampaign } from "../chaos/campaign.ts"
import { isKnown, KnownBugs, sameRun } from "../chaos/known.ts"
import { Mutants, mutantNamed } from "../chaos/mutants.ts"
import {
  type ControllerName,
  ControllerNames,
  type PerturbationKind,
  PerturbationKinds,
} from "../chaos/perturbations.ts"
import { Scenarios, Suites } from "../chaos/suites.ts"

/** A flag value the command refuses, with the flag's name. */
export class ChaosUsageError extends Error {}

const oneOf = <T extends string>(flag: string, value: string, known: ReadonlyArray<T>): T => {
  if ((known as ReadonlyArray<string>).includes(value)) return value as T
  const closest = closestKey(value, known)
  throw new ChaosUsageError(
    `--${flag}: unknown value "${value}"${closest === undefined ? "" : `; did you mean "${closest}"?`} (known: ${known.join(", ")})`,
  )
}

type Opt<A> = { readonly _tag: "Some"; readonly value: A } | { readonly _tag: "None" }
const some = <A>(o: Opt<A>): A | undefined => (o._tag === "Some" ? o.value : undefined)

/** The command's flags, as the command line gives them. */
export interface ChaosFlags {
  readonly controllers: string
  readonly seed: number
  readonly budget: Opt<number>
  readonly json: boolean
  readonly scenario: Opt<string>
  readonly perturbation: Opt<string>
  readonly at: Opt<number>
  readonly mutant: Opt<string>
}

/** The campaign options of the command's flags; a bad value throws a ChaosUsageError naming the flag. */
export const chaosOptions = (f: Omit<ChaosFlags, "json">): CampaignOptions => {
  const controllers = f.controllers
    .split(",")
    .map((c) => c.trim())
    .filter((c) => c !== "")
    .map((c) => oneOf<ControllerName>("controllers", c, ControllerNames))
  if (controllers.length === 0) throw new ChaosUsageError("--controllers: name at least one controller")
  const budget = some(f.budget)
  if (budget !== undefined && budget < 1)
    throw new ChaosUsageError(`--budget: must be at least 1 second, got ${budget}`)
  const at = some(f.at)
  if (at !== undefined && at < 0) throw new ChaosUsageError(`--at: must not be negative, got ${at}`)
  const scenario = some(f.scenario)
  const perturbation = some(f.perturbation)
  const mutant = some(f.mutant)
  if (at !== undefined && perturbation === undefined)
    throw new ChaosUsageError("--at: needs --perturbation (a point is a point of one perturbation)")
  const suite = Suites.find((s) => s.scenarios.some((x) => x.name === scenario))
  if (suite !== undefined && !suite.controllers.some((c) => controllers.includes(c)))
    throw new ChaosUsageError(
      `--scenario: ${scenario} is a scenario of the ${suite.name} suite, which --controllers ${controllers.join(",")} does not select (add ${suite.controllers.join(" or ")})`,
    )
  return {
    seed: f.seed,
    controllers,
    depth: budget === undefined ? "fast" : "full",
    budgetSeconds: budget,
    scenarios:
      scenario === undefined
        ? undefined
        : [
            oneOf(
              "scenario",
              scenario,
              Scenarios.map((s) => s.name),
            ),
          ],
    perturbations:
      perturbation === undefined
        ? undefined
        : [oneOf<PerturbationKind>("perturbation", perturbation, PerturbationKinds)],
    at,
    mutant:
      mutant === undefined
        ? undefined
        : mutantNamed(
            oneOf(
              "mutant",
              mutant,
              Mutants.map((m) => m.name),
            ),
          ),
  }
}

/** Runs the campaign the flags ask for and prints its report (see the module doc for exit codes). */
export const chaosMain = (f: ChaosFlags): Effect.Effect<void> =>
  Effect.gen(function* () {
    let options: CampaignOptions
    try {
      options = chaosOptions(f)
    } catch (e) {
      process.stderr.write(`krtt chaos: ${(e as Error).message}\n`)
      process.exitCode = 2
      return
    }
    const report = yield* runCampaign(options).pipe(
      Effect.provide(Layer.fresh(TestClock.layer())),
      Effect.provideService(References.MinimumLogLevel, "None"),
    )
    if (f.json) process.stdout.write(`${JSON.stringify(reportJson(report), null, 2)}\n`)
    else {
      process.stdout.write(`${renderReport(report)}\n`)
      const known = KnownBugs.filter((b) =>
        report.failures.some((x) => b.matches(x, sameRun(report.failures, x))),
      )
      const reported = report.failures.filter((x) => isKnown(report.failures, x)).length
      if (reported > 0)
        process.stdout.write(
          `${reported} of the failures are known, reported bugs (shell/chaos/known.ts)${known.length > 0 ? `: ${known.map((b) => b.id).join(", ")}` : ""}\n`,
        )
    }
    if (report.failures.length > 0) process.exitCode = 1
  })
