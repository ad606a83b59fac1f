/**
 * One chaos run: the real shell controllers of one suite (`suite.ts`) against the in-memory API
 * servers (`servers.ts`) on virtual time (TestClock), a scenario's stimuli, and at most one
 * perturbation (`perturbations.ts`) on the clients of the operator's processes (`processes.ts`).
 *
 * Expected flow: make the servers and boot the operator → play the scenario's steps, turning the
 * perturbation on at its step or write → the faults stop: measure how long until the reference
 * state is reached (ESR), then that it is kept → collect what was left behind (`resources.ts`):
 * work accepted and never reconciled, informers that disagree with their servers
 * (`informers.ts`), watches a server holds for a cluster the operator has no reason to watch,
 * and, once the operator stopped, any fiber or watch of any of its processes.
 *
 * Guarantees: safety invariants are checked on every committed write of the management server
 * (the suite's `invariants`), whatever the run does after; a write storm (too many writes, or an
 * object too large) ends the run's ticking and is reported as instability.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Random from "effect/Random"
import { TestClock } from "effect/testing"
import type { KubeError } from "../kube/errors.ts"
import type { ChaosState } from "./faultyClient.ts"
import { makeChaosState } from "./faultyClient.ts"
import { unfaithfulInformers } from "./informers.ts"
import { captureLogs } from "./logLines.ts"
import { metricLines } from "./metricLines.ts"
import type { Mutant } from "./mutants.ts"
import {
  ChaosDefaults,
  type ControllerName,
  type Fired,
  type Perturbation,
  type TransientKind,
} from "./perturbations.ts"
import { bootOperator, type Operator } from "./processes.ts"
import { busyGauges, clientName, leakedWatches, untruthfulMetrics } from "./resources.ts"
import type { Scenario } from "./scenarios.ts"
import { makeRunServers, type RunServers } from "./servers.ts"
import { eventLines, firstDifference, sameState } from "./snapshot.ts"
import type { Suite } from "./suite.ts"

export interface RunPlan {
  /** The controller set the scenario belongs to. */
  readonly suite: Suite
  readonly scenario: Scenario
  readonly perturbation: Perturbation
  readonly controllers: ReadonlyArray<ControllerName>
  /** Which transient error kind (`transient` runs). */
  readonly transientKind?: TransientKind | undefined
  /** A deliberately broken operator (tests only). */
  readonly mutant?: Mutant | undefined
}

export interface RunResult {
  /** The masked final state, by `resource namespace/name` (generated names masked). */
  readonly final: ReadonlyArray<string>
  /** Creates and deletes per object (Events left out: every retry may emit one). */
  readonly lifecycle: Readonly<Record<string, string>>
  /** The masked state at the end of each step (once it settled for the step's time). */
  readonly steps: ReadonlyArray<ReadonlyArray<string>>
  /** The Events of every server at the end (`eventLines`). */
  readonly events: ReadonlyArray<string>
  /** What the run logged (`captureLogs`). */
  readonly logs: ReadonlyArray<string>
  /** Safety violations, in order. */
  readonly violations: ReadonlyArray<string>
  /** Successful writes of the operator (the points a crash can follow). */
  readonly writes: number
  /** Requests of the operator. */
  readonly requests: number
  readonly fired: Fired
  /** Ticks after the faults stopped until the state stopped changing (or equalled `target`). */
  readonly convergedAfter: number | undefined
  /** Why the state was not kept once reached, if it was not. */
  readonly unstable: string | undefined
  /**
   * Resources left open once the run settled and the operator stopped: watches of an ended
   * process or of a cluster not engaged, fibers of a closed scope.
   */
  readonly leaks: ReadonlyArray<string>
  /**
   * Requests the live operator accepted and never reconciled after, and its queue-depth and
   * active-worker gauges that do not read 0 once nothing is queued or running.
   */
  readonly lostWork: ReadonlyArray<string>
  /**
   * What the live operator's informers do not keep of their promise once the run settled: a store
   * that differs from its server, indexes that differ from the store, a status that says otherwise.
   */
  readonly informers: ReadonlyArray<string>
  /** Requests some process reconciled in a busy loop (`WorkLedger.busy`). */
  readonly busy: ReadonlyArray<string>
  /** How often each informer of every process listed (`InformerLedger.lists`). */
  readonly lists: ReadonlyArray<string>
  /** What every process's metrics read at the end (`metricLines`), each line under its process. */
  readonly metrics: ReadonlyArray<string>
  /** The most reconciles one controller of the operator ran at once. */
  readonly peakConcurrency: number
}

/**
 * The seed of a run's random draws (the jitter of backoffs and watch timeouts): the same plan
 * draws the same numbers, in the campaign and in its replay.
 */
const seedOf = (plan: RunPlan): string => {
  const p = plan.perturbation
  return `krtt-chaos/${plan.scenario.name}/${p.kind}/${p.kind === "none" ? "" : p.at}/${plan.transientKind ?? ""}`
}

/**
 * Runs one plan to its end. `target` is the reference run's final state: convergence is measured
 * against it; without it (the reference run itself), against the state ceasing to change.
 *
 * Each run has a virtual clock of its own, which waits for the work a tick wakes to settle for up
 * to `busyWakeMillis` of real time before it moves on: a loaded machine does not change what a
 * run does (with a shorter wait, a slow tick's work could run after the clock moved on).
 */
export const runOnce = (plan: RunPlan, target?: ReadonlyArray<string>): Effect.Effect<RunResult, KubeError> =>
  Effect.acquireUseRelease(
    Effect.sync(() => plan.mutant?.patch?.()),
    () =>
      Effect.map(captureLogs(runPlan(plan, target)), ([run, logs]) => ({ ...run, logs })).pipe(
        Random.withSeed(seedOf(plan)),
        Effect.provide(Layer.fresh(TestClock.layer({ warningDelay: ChaosDefaults.busyWakeMillis }))),
      ),
    (restore) => Effect.sync(() => restore?.()),
  )

const runPlan = (
  plan: RunPlan,
  target: ReadonlyArray<string> | undefined,
): Effect.Effect<RunResult, KubeError> =>
  Effect.gen(function* () {
    const servers = yield* makeRunServers(plan.suite)
    const state = makeChaosState()
    const operator = yield* bootOperator(plan, servers, state)
    const steps = yield* playSteps(plan, servers, state, operator)
    // The faults stop: measure how long until the reference state is reached, then that it is kept.
    state.dropping = false
    state.staleRv = undefined
    const { convergedAfter, unstable } = yield* converge(servers, operator, target)
    const final = servers.snap()
    const events = eventLines(servers.all())
    const { leaks, lostWork, informers } = yield* leftovers(plan.suite, servers, state, operator)
    const metrics = yield* Effect.forEach(operator.processes, (p, n) =>
      Effect.map(metricLines(p.metrics), (lines) => lines.map((l) => `${clientName(n)} ${l}`)),
    )
    state.incarnation++
    servers.close()
    return {
      final,
      lifecycle: servers.lifecycle,
      steps,
      events,
      logs: [],
      violations: servers.violations,
      writes: state.writes,
      requests: state.requests,
      fired: state.fired,
      convergedAfter,
      unstable,
      leaks,
      lostWork,
      informers,
      busy: operator.processes.flatMap((p) => p.work.busy()),
      lists: operator.processes.flatMap((p) => p.informers.lists()),
      metrics: metrics.flat(),
      peakConcurrency: Math.max(0, ...operator.processes.map((p) => p.work.peak)),
    }
  })

/**
 * The scenario's steps, each settled for its time, with the perturbation of its step; the state
 * at the end of each.
 */
const playSteps = (plan: RunPlan, servers: RunServers, state: ChaosState, operator: Operator) =>
  Effect.gen(function* () {
    const states: Array<ReadonlyArray<string>> = []
    const p = plan.perturbation
    const at = p.kind === "none" ? -1 : p.at
    const { settle, restart } = operator
    for (const [i, step] of plan.scenario.steps.entries()) {
      const rvBefore = servers.mgmt.resourceVersion()
      if (p.kind === "drop" && i === at) state.dropping = true
      if (p.kind === "slow" && i === at) state.slow = true
      yield* step.run(servers.stage)
      const ticks = Math.ceil(step.settleMillis / ChaosDefaults.tickMillis)
      if (p.kind === "drop" && i === at) {
        yield* settle(ChaosDefaults.dropTicks)
        state.dropping = false
        for (const server of operator.reachedServers) server.expireWatches()
        yield* settle(ticks - ChaosDefaults.dropTicks)
      } else yield* settle(ticks)
      state.slow = false
      if (p.kind === "stale" && i === at) {
        state.staleRv = rvBefore
        yield* restart
        yield* settle(4)
        state.staleRv = undefined
      }
      states.push(servers.snap())
    }
    return states
  })

/**
 * Ticks after the faults stopped until the state equals `target` (or, without one, stops
 * changing for `quietTicks`); then whether it is kept for `keepTicks`.
 */
const converge = (servers: RunServers, operator: Operator, target: ReadonlyArray<string> | undefined) =>
  Effect.gen(function* () {
    let convergedAfter = yield* reach(servers, operator, target)
    const reached = servers.snap()
    let unstable: string | undefined
    if (operator.storm()) {
      convergedAfter = undefined
      unstable = `write storm: ${servers.oversized() ?? `the operator wrote more than ${ChaosDefaults.writeStorm} times`}`
    } else if (convergedAfter !== undefined) unstable = yield* keep(servers, operator, reached)
    return { convergedAfter, unstable }
  })

/** The tick at which the state reached `target` (or settled), if it did within `convergeTicks`. */
const reach = (servers: RunServers, operator: Operator, target: ReadonlyArray<string> | undefined) =>
  Effect.gen(function* () {
    let last = servers.snap()
    let quiet = 0
    for (let t = 1; t <= ChaosDefaults.convergeTicks && !operator.storm(); t++) {
      yield* operator.settle(1)
      const now = servers.snap()
      if (
        target !== undefined
          ? sameState(now, target)
          : sameState(now, last) && ++quiet >= ChaosDefaults.quietTicks
      )
        return t
      if (!sameState(now, last)) quiet = 0
      last = now
    }
    return undefined
  })

/** Why the `reached` state was not kept for `keepTicks`, if it was not. */
const keep = (servers: RunServers, operator: Operator, reached: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    for (let t = 1; t <= ChaosDefaults.keepTicks; t++) {
      yield* operator.settle(1)
      const now = servers.snap()
      if (!sameState(now, reached))
        return `changed ${t} ticks after it was reached: ${firstDifference(reached, now)}`
    }
    return undefined
  })

/**
 * What the settled run left behind: the live process's lost work and busy gauges, overlapping
 * reconciles of any process (as violations), watches no engaged cluster explains, and, once the
 * operator stopped, whatever of any process is still running or watching.
 */
const leftovers = (suite: Suite, servers: RunServers, state: ChaosState, operator: Operator) =>
  Effect.gen(function* () {
    const settled = operator.storm() ? undefined : operator.processes[state.incarnation]
    const lostWork = settled === undefined ? [] : [...settled.work.lost()]
    state.inspecting = true
    const informers = settled === undefined ? [] : yield* unfaithfulInformers(settled.informers)
    state.inspecting = false
    if (settled !== undefined) lostWork.push(...(yield* busyGauges(settled.metrics)))
    for (const p of operator.processes)
      lostWork.push(...p.work.unresetBackoffs(), ...(yield* untruthfulMetrics(p.metrics, p.work)))
    for (const p of operator.processes) servers.violations.push(...p.work.overlaps())
    const live = clientName(state.incarnation)
    const engaged = new Set(suite.engagedServers?.(servers.mgmt) ?? [])
    const leaks = servers
      .all()
      .flatMap(([url, server]) => leakedWatches(url, server, live, url === "" || engaged.has(url)))
    // The operator stops (its scope closes, as on SIGTERM): then nothing of any process may be left.
    leaks.push(...(yield* operator.stop))
    return { leaks, lostWork, informers }
  })
