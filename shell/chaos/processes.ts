/**
 * The operator's processes in one chaos run: each boots in a scope of its own with clients that
 * carry the run's perturbation (`faultyClient.ts`), its own fiber counter, work ledger and metric
 * registry; a crashed one is replaced at once by a new one that knows only what it reads from the
 * API server; the last one is stopped as on SIGTERM.
 *
 * Expected flow: `bootOperator` (the first process) → `settle` ticks the virtual clock, restarting
 * a crashed process → (`restart` for a `stale` restart) → `stop`.
 *
 * Guarantees: at most one process is alive (`ChaosState.incarnation`): an older one's clients
 * never answer again; its scope is closed in the background (its in-flight reconciles never
 * finish, so its graceful stop takes its timeout of virtual time). Nothing more is ticked once the
 * operator storms (`storm`).
 *
 * @module
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Metric from "effect/Metric"
import * as Scope from "effect/Scope"
import { TestClock } from "effect/testing"
import { Faults } from "../apiserver/faults.ts"
import { makeMemoryClient } from "../apiserver/memoryClient.ts"
import type { FakeApiServer } from "../apiserver/server.ts"
import type { KubeClientShape } from "../kube/client.ts"
import { ReflectorObserver } from "../reflector/observer.ts"
import { WorkObserver } from "../workqueue/observer.ts"
import { type ChaosState, chaosClient } from "./faultyClient.ts"
import { InformerLedger } from "./informers.ts"
import { ChaosDefaults } from "./perturbations.ts"
import { clientName, FiberCounter, leakedWatches, WorkLedger } from "./resources.ts"
import type { RunPlan } from "./runPlan.ts"
import type { RunServers, ServerEntry } from "./servers.ts"
import type { SuiteContext } from "./suite.ts"

/** One operator process's live fibers, work, reflectors and metrics. */
export interface Process {
  readonly fibers: FiberCounter
  readonly work: WorkLedger
  readonly informers: InformerLedger
  readonly metrics: Metric.MetricRegistry
}

/** The operator of a run: its processes, by incarnation, and how the run drives them. */
export interface Operator {
  readonly processes: ReadonlyArray<Process>
  /** Servers the operator reaches through perturbed clients (their watches expire after a drop). */
  readonly reachedServers: ReadonlySet<FakeApiServer>
  /** The live process is replaced by a new one. */
  readonly restart: Effect.Effect<void>
  /** Whether the operator wrote too often or made an object too large. */
  readonly storm: () => boolean
  /** Ticks, restarting a crashed operator at once; nothing more once the operator storms. */
  readonly settle: (ticks: number) => Effect.Effect<void>
  /** Stops the live process (`stopAll`); the leaks found. */
  readonly stop: Effect.Effect<ReadonlyArray<string>>
}

/** Advances the virtual clock by `ticks` ticks, counting them in `state`. */
const advance = (state: ChaosState, ticks: number): Effect.Effect<void> =>
  Effect.gen(function* () {
    for (let i = 0; i < ticks; i++) {
      yield* TestClock.adjust(ChaosDefaults.tickMillis)
      state.ticks++
    }
  })

/** The perturbed clients of a run: every process's, on the management server and on workload servers. */
const makePerturber = (plan: RunPlan, servers: RunServers, state: ChaosState) => {
  const { mgmt } = servers
  const suite = plan.suite
  const p = plan.perturbation
  const at = p.kind === "none" ? -1 : p.at
  let reordered = false
  const faults = new Faults()
  const reachedServers = new Set<FakeApiServer>([mgmt])
  const perturb = (server: FakeApiServer, base: KubeClientShape) =>
    chaosClient(base, server, state, {
      faults,
      staleReads: (o) => server === mgmt && (suite.staleList?.(o) ?? true),
      crashAfterWrite: p.kind === "crash" ? at : undefined,
      transientFrom: p.kind === "transient" ? at : undefined,
      transientKind: plan.transientKind ?? "InternalError",
      beforeWrite: (n, written) =>
        p.kind === "reorder" && n === at && !reordered
          ? Effect.gen(function* () {
              reordered = true
              const edit = yield* suite.thirdParty(mgmt, written, n)
              if (edit === undefined) return Effect.void
              state.fired.reorder++
              return edit.release
            })
          : Effect.succeed(Effect.void),
    })
  return { reachedServers, perturb }
}

type Perturber = ReturnType<typeof makePerturber>

/** What process `me` of the suite's operator is started with. */
const suiteContext = (
  plan: RunPlan,
  servers: RunServers,
  state: ChaosState,
  perturber: Perturber,
  base: KubeClientShape,
  me: number,
): SuiteContext => {
  const perturbed = perturber.perturb(servers.mgmt, base)
  return {
    mgmt: servers.mgmt,
    client: plan.mutant?.wrap === undefined ? perturbed : plan.mutant.wrap(perturbed, state.incarnation),
    workload: servers.workload,
    clientName: clientName(me),
    perturbed: (server) =>
      Effect.map(makeMemoryClient(server, {}, clientName(me)), (c) => {
        perturber.reachedServers.add(server)
        const perturbed = perturber.perturb(server, c)
        return plan.mutant?.wrapWorkload === undefined ? perturbed : plan.mutant.wrapWorkload(perturbed)
      }),
    controllers: plan.controllers,
    mutant: plan.mutant,
    violation: (message) => servers.violations.push(message),
    exit: Effect.sync(() => {
      if (state.incarnation === me) state.crashed = true
    }),
  }
}

/** Boots the operator's first process; returns once its start is forked. */
export const bootOperator = (
  plan: RunPlan,
  servers: RunServers,
  state: ChaosState,
): Effect.Effect<Operator> =>
  Effect.gen(function* () {
    const perturber = makePerturber(plan, servers, state)
    const processes: Array<Process> = []
    const boot = () =>
      Effect.gen(function* () {
        const me = state.incarnation
        const process = {
          fibers: new FiberCounter(),
          work: new WorkLedger(() => state.ticks),
          informers: new InformerLedger(),
          metrics: new Map(),
        }
        processes[me] = process
        const base = yield* makeMemoryClient(servers.mgmt, {}, clientName(me))
        const s = yield* Scope.make()
        const start = plan.suite
          .start(suiteContext(plan, servers, state, perturber, base, me))
          .pipe(
            Scope.provide(s),
            Effect.provideService(WorkObserver, process.work),
            Effect.provideService(ReflectorObserver, process.informers),
            Effect.provideService(Metric.FiberRuntimeMetrics, process.fibers.service),
            Effect.provideService(Metric.MetricRegistry, process.metrics),
          )
        yield* Effect.forkIn(start, s)
        return s
      })
    let scope = yield* boot()
    // A crash: the old process never answers again (its client is dead); its scope is closed in
    // the background (in-flight reconciles of a dead process never finish, so the controller's
    // graceful stop takes its timeout of virtual time).
    const restart = Effect.gen(function* () {
      state.incarnation++
      state.crashed = false
      yield* Effect.forkDetach(Scope.close(scope, Exit.void))
      scope = yield* boot()
    })
    const storm = () => state.writes > ChaosDefaults.writeStorm || servers.oversized() !== undefined
    const settle = (ticks: number) =>
      Effect.gen(function* () {
        for (let i = 0; i < ticks && !storm(); i++) {
          yield* advance(state, 1)
          if (state.crashed) yield* restart
        }
      })
    const operator: Operator = {
      processes,
      reachedServers: perturber.reachedServers,
      restart,
      storm,
      settle,
      stop: Effect.suspend(() => stopAll(state, scope, processes, servers.all)),
    }
    return operator
  })

/** Ticks a stopping operator gets to close its scope (its graceful stop takes up to 30 s). */
const STOP_TICKS = 60

/**
 * Closes the live process's scope and waits (in virtual time) for it; then every process's fibers
 * must have ended and no server may hold a watch for any of them.
 */
const stopAll = (
  state: ChaosState,
  scope: Scope.Closeable,
  processes: ReadonlyArray<Process>,
  servers: () => ReadonlyArray<ServerEntry>,
) =>
  Effect.gen(function* () {
    const closing = yield* Effect.forkChild(Scope.close(scope, Exit.void))
    for (let t = 0; t < STOP_TICKS && closing.pollUnsafe() === undefined; t++) yield* advance(state, 1)
    const found: Array<string> = []
    if (closing.pollUnsafe() === undefined)
      found.push(`leak: the operator's scope did not close within ${STOP_TICKS} ticks of its stop`)
    for (const [n, p] of processes.entries())
      for (const informer of p.informers.stillRunning())
        found.push(`leak: ${informer} of ${clientName(n)} still running after its scope closed`)
    for (const [n, p] of processes.entries())
      if (p.fibers.live > 0)
        found.push(
          `leak: ${p.fibers.live} fiber${p.fibers.live === 1 ? "" : "s"} of ${clientName(n)} still running after its scope closed`,
        )
    for (const [url, server] of servers()) found.push(...leakedWatches(url, server, undefined, false))
    return found
  })
