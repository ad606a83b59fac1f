/**
 * A chaos campaign: per scenario a fault-free reference run, then one run per perturbation point
 * (a crash after every write of the reference run's path, a dropped event window and a stale
 * restart at every step, transient error bursts, a third-party write before every write), each
 * held to the oracles:
 *
 * - safety: no invariant of the scenario's suite broken on any committed write (or reconcile);
 * - final state: after the faults stop, the masked state equals the reference run's, and every
 *   object was created and deleted as often as in the reference run;
 * - ESR: that state is reached within `ChaosDefaults.convergeTicks` ticks and kept for
 *   `ChaosDefaults.keepTicks`;
 * - resources: once the run settled, no watch open for a cluster that is not engaged (or whose
 *   accessor is gone), and, once the operator stopped, no watch or fiber left of any of its
 *   processes (seed 003: "the engage context is cancelled when the cluster leaves");
 * - no lost work: every request the live operator's queues accepted was reconciled after it.
 *
 * Every failure carries a one-line replay command.
 *
 * @module
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import type { Mutant } from "./mutants.ts"
import {
  ChaosDefaults,
  type ControllerName,
  ControllerNames,
  type FastPoints,
  type Fired,
  noneFired,
  type Perturbation,
  type PerturbationKind,
  PerturbationKinds,
  type TransientKind,
  TransientKinds,
} from "./perturbations.ts"
import { type RunResult, runOnce } from "./runPlan.ts"
import type { Scenario } from "./scenarios.ts"
import { firstDifference, sameState, stateDigest } from "./snapshot.ts"
import type { Suite } from "./suite.ts"
import { Suites } from "./suites.ts"

export interface CampaignOptions {
  readonly seed: number
  readonly controllers?: ReadonlyArray<ControllerName> | undefined
  readonly scenarios?: ReadonlyArray<string> | undefined
  /** Only these perturbation kinds (all when absent). */
  readonly perturbations?: ReadonlyArray<PerturbationKind> | undefined
  /** Only this point (a replay). */
  readonly at?: number | undefined
  /** `fast`: a fixed sample of points (the `npm test` campaign); `full`: every point. */
  readonly depth: "fast" | "full"
  /** Stop starting runs after this many wall seconds. */
  readonly budgetSeconds?: number | undefined
  readonly mutant?: Mutant | undefined
  /** Start no run after the first failure (mutation testing: one failure is enough). */
  readonly stopAtFirstFailure?: boolean | undefined
  /**
   * Draws of the point sampler to skip first. The sampler is one sequence over the campaign, so a
   * scenario run alone after skipping the draws of the scenarios before it
   * (`ScenarioReport.draws`) samples the points it has in the whole campaign.
   */
  readonly skipDraws?: number | undefined
}

export type Oracle =
  | "safety"
  | "final-state"
  | "lifecycle"
  | "esr"
  | "leak"
  | "lost-work"
  | "informer"
  | "busy"
  | "error"

export interface Failure {
  readonly scenario: string
  readonly perturbation: string
  readonly at: number | undefined
  readonly oracle: Oracle
  readonly message: string
  readonly replay: string
}

export interface ScenarioReport {
  readonly scenario: string
  readonly runs: Readonly<Record<string, number>>
  readonly failures: number
  /** The operator's successful writes in the reference run. */
  readonly referenceWrites: number
  /**
   * The reference run, digested (`stateDigest`: its final state, creates and deletes, states at
   * the end of each step, Events, log, informers' lists, traffic and metrics); "" when it failed.
   */
  readonly reference: string
  /**
   * The perturbed runs, each with its point, digested the same way in order: deterministic runs
   * of the same runtime have equal digests.
   */
  readonly perturbed: string
  /** The numbers the scenario drew from the campaign's sampler to choose its points. */
  readonly draws: number
}

export interface CampaignReport {
  readonly scenarios: number
  readonly runs: number
  readonly failures: ReadonlyArray<Failure>
  readonly fired: Fired
  readonly wallSeconds: number
  readonly perScenario: ReadonlyArray<ScenarioReport>
  /** Whether the budget ended the campaign before every point ran. */
  readonly truncated: boolean
  /**
   * The most reconciles one controller ran at once in any run: above 1 when the campaign
   * exercised the workers' concurrency.
   */
  readonly peakConcurrency: number
}

/** A small deterministic generator (mulberry32) for the sampled points. */
export const prng = (seed: number) => {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** The sampler of `seed` after `skip` draws. */
export const prngFrom = (seed: number, skip: number) => {
  const random = prng(seed)
  for (let i = 0; i < skip; i++) random()
  return random
}

/** The transient error kind of a point: every kind comes round as `at` grows. */
export const transientKind = (seed: number, at: number): TransientKind =>
  TransientKinds[(seed + at) % TransientKinds.length] as TransientKind

/** The command that replays one run. */
export const replayCommand = (
  options: Pick<CampaignOptions, "seed" | "controllers">,
  scenario: string,
  kind: string,
  at: number | undefined,
  mutant: string | undefined,
): string =>
  [
    "krtt chaos",
    `--seed ${options.seed}`,
    `--scenario ${scenario}`,
    `--perturbation ${kind}`,
    ...(at === undefined ? [] : [`--at ${at}`]),
    ...(options.controllers === undefined || options.controllers.length === ControllerNames.length
      ? []
      : [`--controllers ${options.controllers.join(",")}`]),
    ...(mutant === undefined ? [] : [`--mutant ${mutant}`]),
  ].join(" ")

/** The points of one perturbation kind for a scenario, given the reference run. */
export const points = (
  kind: PerturbationKind,
  scenario: Scenario,
  reference: RunResult,
  depth: "fast" | "full",
  random: () => number,
  fast: FastPoints,
  seed: number,
): ReadonlyArray<number> => {
  const all = (n: number, from = 1) => Array.from({ length: Math.max(0, n - from + 1) }, (_, i) => i + from)
  const sample = (xs: ReadonlyArray<number>, n: number) => {
    const pool = [...xs]
    const out: Array<number> = []
    while (out.length < n && pool.length > 0)
      out.push(pool.splice(Math.floor(random() * pool.length), 1)[0] as number)
    return out.sort((a, b) => a - b)
  }
  const steps = all(scenario.steps.length - 1, 0)
  switch (kind) {
    case "crash":
    case "reorder":
      // The first write always (where a controller adopts an object: its finalizer, its first
      // status), the rest sampled.
      if (depth === "full") return all(reference.writes)
      return reference.writes === 0 || fast[kind] === 0
        ? []
        : [1, ...sample(all(reference.writes, 2), fast[kind] - 1)]
    case "drop":
    case "stale":
    case "slow":
      return depth === "full" ? steps : sample(steps, fast[kind])
    case "transient": {
      if (depth === "full") return all(reference.requests)
      // One point always a burst of Conflicts (the first write it meets conflicts more often in a
      // row than it is retried in place), the rest sampled.
      const conflicts = all(reference.requests).filter((at) => transientKind(seed, at) === "Conflict")
      const first = sample(conflicts, Math.min(1, fast[kind]))
      const rest = all(reference.requests).filter((at) => !first.includes(at))
      return [...first, ...sample(rest, fast[kind] - first.length)].sort((a, b) => a - b)
    }
  }
}

/** What a run broke, compared with the reference. */
export const judge = (
  reference: RunResult,
  run: RunResult,
): ReadonlyArray<{ oracle: Oracle; message: string }> => {
  const found: Array<{ oracle: Oracle; message: string }> = []
  for (const v of run.violations) found.push({ oracle: "safety", message: v })
  for (const v of run.leaks) found.push({ oracle: "leak", message: v })
  for (const v of run.lostWork) found.push({ oracle: "lost-work", message: v })
  for (const v of run.informers) found.push({ oracle: "informer", message: v })
  for (const v of run.busy) found.push({ oracle: "busy", message: v })
  if (run.convergedAfter === undefined && run.unstable !== undefined)
    found.push({ oracle: "esr", message: run.unstable })
  else if (run.convergedAfter === undefined)
    found.push({
      oracle: "esr",
      message: `the reference state was not reached within ${ChaosDefaults.convergeTicks} ticks (${(ChaosDefaults.convergeTicks * ChaosDefaults.tickMillis) / 1000} s) after the faults stopped: ${firstDifference(reference.final, run.final)}`,
    })
  else if (run.unstable !== undefined) found.push({ oracle: "esr", message: `not kept: ${run.unstable}` })
  if (run.convergedAfter === undefined && !sameState(reference.final, run.final))
    found.push({ oracle: "final-state", message: firstDifference(reference.final, run.final) })
  const keys = new Set([...Object.keys(reference.lifecycle), ...Object.keys(run.lifecycle)])
  for (const k of [...keys].sort()) {
    const a = reference.lifecycle[k] ?? ""
    const b = run.lifecycle[k] ?? ""
    if (a !== b)
      found.push({
        oracle: "lifecycle",
        message: `${k}: created/deleted "${b}" where the reference run did "${a}" (+ create, - delete)`,
      })
  }
  return found
}

/** What a campaign counted so far. */
interface Tally {
  runs: number
  truncated: boolean
  peakConcurrency: number
  readonly failures: Array<Failure>
  readonly fired: Fired
  readonly perScenario: Array<ScenarioReport>
}

/** What every run of a campaign shares. */
interface Campaign {
  readonly options: CampaignOptions
  readonly controllers: ReadonlyArray<ControllerName>
  /** The sampler of the points: one sequence over the whole campaign, scenario after scenario. */
  readonly random: () => number
  /** How many numbers `random` has drawn so far. */
  readonly drawn: () => number
  readonly tally: Tally
  /** Whether the budget is spent (or, with `stopAtFirstFailure`, a run failed). */
  readonly overBudget: () => boolean
}

/** Records one failure of a run of `scenario`, with its replay command. */
type Fail = (kind: string, at: number | undefined, oracle: Oracle, message: string) => void

const failOf =
  (c: Campaign, scenario: Scenario): Fail =>
  (kind, at, oracle, message) => {
    c.tally.failures.push({
      scenario: scenario.name,
      perturbation: kind,
      at,
      oracle,
      message,
      replay: replayCommand(c.options, scenario.name, kind, at, c.options.mutant?.name),
    })
  }

/** Runs a campaign (on virtual time: provide `TestClock.layer()`, or run under `it.effect`). */
export const runCampaign = (options: CampaignOptions): Effect.Effect<CampaignReport> =>
  Effect.gen(function* () {
    const started = Date.now()
    const controllers = options.controllers ?? ControllerNames
    const scenarios = Suites.filter((suite) =>
      suite.controllers.some((c) => controllers.includes(c)),
    ).flatMap((suite) =>
      suite.scenarios
        .filter((s) => options.scenarios === undefined || options.scenarios.includes(s.name))
        .map((scenario) => ({ suite, scenario })),
    )
    const tally: Tally = {
      runs: 0,
      truncated: false,
      peakConcurrency: 0,
      failures: [],
      fired: noneFired(),
      perScenario: [],
    }
    const overBudget = () =>
      (options.budgetSeconds !== undefined && (Date.now() - started) / 1000 >= options.budgetSeconds) ||
      (options.stopAtFirstFailure === true && tally.failures.length > 0)
    const sampler = prngFrom(options.seed, options.skipDraws ?? 0)
    let draws = 0
    const random = () => {
      draws++
      return sampler()
    }
    const campaign: Campaign = { options, controllers, random, drawn: () => draws, tally, overBudget }
    for (const { suite, scenario } of scenarios) {
      if (overBudget()) {
        tally.truncated = true
        break
      }
      yield* runScenario(campaign, suite, scenario)
    }
    // The virtual clock is not the wall clock: read it only to keep it in the requirements.
    yield* Clock.currentTimeMillis
    return {
      scenarios: scenarios.length,
      runs: tally.runs,
      failures: tally.failures,
      fired: tally.fired,
      wallSeconds: (Date.now() - started) / 1000,
      perScenario: tally.perScenario,
      truncated: tally.truncated,
      peakConcurrency: tally.peakConcurrency,
    }
  })

/** One scenario: its fault-free reference run, then one run per point of every perturbation kind. */
const runScenario = (c: Campaign, suite: Suite, scenario: Scenario) =>
  Effect.gen(function* () {
    const { options, tally } = c
    const counts: Record<string, number> = {}
    const before = tally.failures.length
    const fail = failOf(c, scenario)
    // The reference run: the same operator without faults (its state is what it must reach).
    const reference = yield* Effect.result(
      runOnce({
        suite,
        scenario,
        perturbation: { kind: "none" },
        controllers: c.controllers,
        mutant: options.mutant,
      }),
    )
    tally.runs++
    counts.none = 1
    if (reference._tag === "Failure") {
      fail("none", undefined, "error", `${reference.failure._tag}: ${reference.failure.message}`)
      tally.perScenario.push({
        scenario: scenario.name,
        runs: counts,
        failures: 1,
        referenceWrites: 0,
        reference: "",
        perturbed: "",
        draws: 0,
      })
      return
    }
    const ref = reference.success
    tally.peakConcurrency = Math.max(tally.peakConcurrency, ref.peakConcurrency)
    for (const v of ref.violations) fail("none", undefined, "safety", v)
    for (const v of ref.leaks) fail("none", undefined, "leak", v)
    for (const v of ref.lostWork) fail("none", undefined, "lost-work", v)
    for (const v of ref.informers) fail("none", undefined, "informer", v)
    for (const v of ref.busy) fail("none", undefined, "busy", v)
    if (ref.convergedAfter === undefined || ref.unstable !== undefined)
      fail("none", undefined, "esr", `the fault-free run did not settle: ${ref.unstable ?? "still changing"}`)
    const traces: Array<string> = []
    const drawnBefore = c.drawn()
    for (const kind of options.perturbations ?? PerturbationKinds)
      yield* runPoints(c, suite, scenario, ref, kind, counts, fail, traces)
    tally.perScenario.push({
      scenario: scenario.name,
      runs: counts,
      failures: tally.failures.length - before,
      referenceWrites: ref.writes,
      reference: stateDigest(ref.final, ref.lifecycle, ref),
      perturbed: stateDigest(traces, {}),
      draws: c.drawn() - drawnBefore,
    })
  })

/** The runs of one perturbation kind in a scenario, each judged against the reference run. */
const runPoints = (
  c: Campaign,
  suite: Suite,
  scenario: Scenario,
  ref: RunResult,
  kind: PerturbationKind,
  counts: Record<string, number>,
  fail: Fail,
  traces: Array<string>,
) =>
  Effect.gen(function* () {
    const { options, tally } = c
    const ats =
      options.at !== undefined
        ? [options.at]
        : points(
            kind,
            scenario,
            ref,
            options.depth,
            c.random,
            suite.fastPoints ?? ChaosDefaults.fastPoints,
            options.seed,
          )
    for (const at of ats) {
      if (c.overBudget()) {
        tally.truncated = true
        return
      }
      const perturbation: Perturbation = { kind, at }
      const tk = kind === "transient" ? transientKind(options.seed, at) : undefined
      const result = yield* Effect.result(
        runOnce(
          {
            suite,
            scenario,
            perturbation,
            controllers: c.controllers,
            transientKind: tk,
            mutant: options.mutant,
          },
          ref.final,
        ),
      )
      tally.runs++
      counts[kind] = (counts[kind] ?? 0) + 1
      if (result._tag === "Failure") {
        fail(kind, at, "error", `${result.failure._tag}: ${result.failure.message}`)
        continue
      }
      const run = result.success
      traces.push(`${kind} ${at} ${tk ?? ""} ${stateDigest(run.final, run.lifecycle, run)}`)
      for (const k of Object.keys(tally.fired) as Array<keyof Fired>)
        tally.fired[k] += result.success.fired[k]
      tally.peakConcurrency = Math.max(tally.peakConcurrency, result.success.peakConcurrency)
      for (const f of judge(ref, result.success))
        fail(kind, at, f.oracle, tk === undefined ? f.message : `(${tk}) ${f.message}`)
    }
  })

/** The campaign's text report. */
export const renderReport = (report: CampaignReport): string => {
  const lines: Array<string> = []
  for (const s of report.perScenario) {
    const runs = Object.entries(s.runs)
      .map(([k, n]) => `${k} ${n}`)
      .join(", ")
    lines.push(
      `${s.scenario}: ${runs} (${s.referenceWrites} writes on the reference path) — ${s.failures === 0 ? "ok" : `${s.failures} failed`}`,
    )
  }
  for (const f of report.failures) {
    lines.push(
      `FAIL ${f.scenario} ${f.perturbation}${f.at === undefined ? "" : ` at ${f.at}`} [${f.oracle}] ${f.message}`,
    )
    lines.push(`  replay: ${f.replay}`)
  }
  const fired = Object.entries(report.fired)
    .map(([k, n]) => `${k} ${n}`)
    .join(", ")
  lines.push(
    `${report.scenarios} scenarios, ${report.runs} runs, ${report.failures.length} failures in ${report.wallSeconds.toFixed(1)} s; perturbations fired: ${fired}${report.truncated ? " (budget reached: not every point ran)" : ""}`,
  )
  const unfired = Object.entries(report.fired).filter(([, n]) => n === 0)
  if (unfired.length > 0) lines.push(`not fired: ${unfired.map(([k]) => k).join(", ")}`)
  return lines.join("\n")
}

/** The JSON report of the issue: `{scenarios, runs, failures, fired, wallSeconds}`. */
export const reportJson = (report: CampaignReport) => ({
  scenarios: report.scenarios,
  runs: report.runs,
  failures: report.failures,
  fired: report.fired,
  wallSeconds: report.wallSeconds,
  peakConcurrency: report.peakConcurrency,
  perScenario: report.perScenario,
  truncated: report.truncated,
})
