/**
 * One candidate's lifecycle in the engine (`clusterSet.ts`): connect under the engine's
 * concurrency limit, first probe, make and sync the cache, apply the indexes, engage, probe every
 * interval, disengage at the failure threshold or on a 401, connect again when it answers.
 *
 * # Expected flow
 * `lifecycle(engine, candidate, id)` runs on the candidate's own fiber: `connectStep` until the
 * cluster is connected and engaged, then `probeStep` every interval (or nothing, when its source
 * gates it or probes are off); on interrupt it tears the cluster down.
 *
 * # Guarantees
 * - `teardown` closes the pending scope, the engage scope and the cluster's scope at most once
 *   each, and calls `aware.disengage` once per engage it closes.
 * - Only the newest transition of a name writes its state (`setState`): a superseded one is
 *   leaving and must not overwrite its successor's.
 * - The engine's maps are plain maps updated between effects; no lock spans I/O.
 *
 * @module
 */
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Fiber from "effect/Fiber"
import * as Scope from "effect/Scope"
import type { Cache } from "../../cache/types.ts"
import type { KubeClientShape } from "../../kube/client.ts"
import type { KubeObject, ResourceRef } from "../../kube/resource.ts"
import type { IndexFunc } from "../../reflector/store.ts"
import type { Aware, Cluster, ClusterName, ClusterState } from "../types.ts"
import type { ClusterSetOptions } from "./clusterSet.ts"
import { type HealthState, healthStep, millis, type ProbeOutcome, probeOutcome } from "./health.ts"

/** What connecting to a candidate gives: a client, and optionally a cache the provider made itself. */
export interface Connection {
  readonly client: KubeClientShape
  /**
   * A cache the provider manages itself (the `namespaces` provider's facade over one shared
   * cache). Without it the engine makes one with the cache factory in the cluster's scope.
   */
  readonly cache?: Cache | undefined
}

/** A candidate could not be connected (bad kubeconfig, client construction failed, ...). */
export class ConnectFailedError extends Data.TaggedError("ConnectFailedError")<{
  readonly message: string
}> {}

/** A cluster as a provider discovered it. */
export interface Candidate {
  readonly name: ClusterName
  /** Changes when the credentials or endpoint change (a hash, never the credentials). */
  readonly generation: string
  /** Builds the client in the cluster's scope (closed on disengage). */
  readonly connect: Effect.Effect<Connection, ConnectFailedError, Scope.Scope>
  /**
   * Whether the engine probes it (default true). `false` when the provider's source already
   * health-gates it (the cluster-api provider: the ClusterCache probes and disconnects, and the
   * provider removes the cluster then).
   */
  readonly healthGated?: boolean | undefined
}

/** An index the provider asked for: applied to every cache, present and future. */
export interface IndexSpec {
  readonly resource: ResourceRef
  readonly name: string
  readonly extract: IndexFunc<KubeObject>
}

/** The newest transition of a cluster name: its fiber, and the generation it runs (none: removed). */
export interface ChainEntry {
  readonly id: number
  readonly generation: string | undefined
  readonly fiber: Fiber.Fiber<void>
}

/** Adds log annotations to an effect. */
export type Annotate = <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>

/** The engine's state a lifecycle reads and writes, shared by every candidate of one `bind`. */
export interface Engine {
  readonly options: ClusterSetOptions
  readonly states: Map<ClusterName, ClusterState>
  readonly engaged: Map<ClusterName, Cluster>
  readonly caches: Map<ClusterName, Cache>
  readonly indexes: Array<IndexSpec>
  /** Runs an effect under the engine's connect concurrency limit. */
  readonly connecting: Annotate
  readonly chain: ReadonlyMap<ClusterName, ChainEntry>
  readonly aware: Aware
}

/** Annotates logs with the provider and the cluster. */
export const annotateCluster = (
  provider: string,
  cluster: ClusterName,
  extra: Record<string, unknown> = {},
): Annotate => Effect.annotateLogs({ provider, cluster, ...extra })

interface Live {
  readonly cluster: Cluster
  readonly scope: Scope.Closeable
  engageScope: Scope.Closeable | undefined
}

/** One candidate's state while its lifecycle runs. */
interface Run {
  readonly c: Candidate
  readonly id: number
  readonly gated: boolean
  readonly annotate: Annotate
  live: Live | undefined
  pending: Scope.Closeable | undefined
  health: HealthState
}

/** Only the newest transition of the name writes its state (a superseded one is leaving). */
const setState = (engine: Engine, run: Run, s: Omit<ClusterState, "name">): void => {
  if (engine.chain.get(run.c.name)?.id === run.id) engine.states.set(run.c.name, { name: run.c.name, ...s })
}

const teardown = (engine: Engine, run: Run, reason: string): Effect.Effect<void> =>
  Effect.gen(function* () {
    const name = run.c.name
    const p = run.pending
    run.pending = undefined
    if (p !== undefined) yield* Scope.close(p, Exit.void)
    const l = run.live
    run.live = undefined
    if (l === undefined) return
    if (engine.engaged.get(name) === l.cluster) engine.engaged.delete(name)
    if (engine.caches.get(name) === l.cluster.cache) engine.caches.delete(name)
    if (l.engageScope !== undefined) {
      yield* Scope.close(l.engageScope, Exit.void)
      yield* engine.aware.disengage(l.cluster)
      yield* Effect.logInfo("cluster disengaged").pipe(run.annotate, Effect.annotateLogs({ reason }))
    }
    yield* Scope.close(l.scope, Exit.void)
  })

/** Builds the client and answers the first probe (when gated), under the concurrency limit. */
const openConnection = (engine: Engine, run: Run, scope: Scope.Scope) =>
  engine.connecting(
    Effect.gen(function* () {
      const conn = yield* Scope.provide(run.c.connect, scope)
      if (run.gated) {
        const answer = probeOutcome(
          yield* Effect.result(conn.client.probe({ timeout: engine.options.health.timeout })),
          engine.options.health,
        )
        if (answer._tag === "Failure") return yield* Effect.fail(answer.error)
      }
      return conn
    }),
  )

/** Connects, makes and syncs the cache, applies the indexes: the steps before engage. */
const attempt = (engine: Engine, run: Run, scope: Scope.Scope) =>
  Effect.gen(function* () {
    const { options } = engine
    const conn = yield* openConnection(engine, run, scope)
    let cache = conn.cache
    if (cache === undefined) {
      cache = yield* Scope.provide(options.cacheFactory(conn.client, { cluster: run.c.name }), scope)
      yield* Scope.provide(cache.start, scope)
    }
    engine.caches.set(run.c.name, cache)
    const synced = yield* Effect.timeoutOption(cache.waitForCacheSync, options.syncTimeout)
    if (synced._tag === "None" || !synced.value) {
      return yield* new ConnectFailedError({
        message: `the cache did not sync within ${Duration.format(Duration.fromInputUnsafe(options.syncTimeout))}`,
      })
    }
    for (const ix of [...engine.indexes]) yield* cache.indexField(ix.resource, ix.name, ix.extract)
    return { client: conn.client, cache }
  })

/** Connect, probe, make and sync the cache, apply indexes: on success `run.live` is set. */
const connect = (engine: Engine, run: Run): Effect.Effect<ProbeOutcome> =>
  Effect.gen(function* () {
    const scope = yield* Scope.make()
    run.pending = scope
    const result = yield* Effect.result(attempt(engine, run, scope))
    run.pending = undefined
    if (result._tag === "Failure") {
      if (engine.caches.get(run.c.name) !== undefined && run.live === undefined)
        engine.caches.delete(run.c.name)
      yield* Scope.close(scope, Exit.void)
      return { _tag: "Failure", error: result.failure }
    }
    run.live = {
      cluster: {
        name: run.c.name,
        client: result.success.client,
        cache: result.success.cache,
        generation: run.c.generation,
      },
      scope,
      engageScope: undefined,
    }
    return { _tag: "Success" }
  })

const engage = (engine: Engine, run: Run, l: Live): Effect.Effect<boolean> =>
  Effect.gen(function* () {
    const engageScope = yield* Scope.fork(l.scope)
    l.engageScope = engageScope
    engine.engaged.set(run.c.name, l.cluster)
    const r = yield* Effect.result(engine.aware.engage(l.cluster, engageScope))
    if (r._tag === "Success") {
      setState(engine, run, { engaged: true, healthy: true, reason: "engaged" })
      yield* Effect.logInfo("cluster engaged").pipe(run.annotate)
      return true
    }
    const reason = `engage failed: ${r.failure.message}`
    yield* teardown(engine, run, reason)
    setState(engine, run, { engaged: false, healthy: true, reason })
    yield* Effect.logWarning("cluster not engaged").pipe(run.annotate, Effect.annotateLogs({ reason }))
    return false
  })

/** Not connected: connect, and engage on success; on failure record why. */
const connectStep = (engine: Engine, run: Run): Effect.Effect<void> =>
  Effect.gen(function* () {
    const outcome = yield* connect(engine, run)
    const step = healthStep(run.health, outcome, engine.options.health)
    run.health = step.state
    const next = run.live
    if (next !== undefined) {
      yield* engage(engine, run, next)
      return
    }
    setState(engine, run, {
      engaged: false,
      healthy: step.verdict !== "unhealthy",
      reason: `not engaged: ${step.reason}`,
    })
    if (run.health.consecutiveFailures === 1 || step.verdict === "unhealthy")
      yield* Effect.logWarning("cluster not reachable").pipe(
        run.annotate,
        Effect.annotateLogs({ reason: step.reason }),
      )
  })

/** Engaged and gated: probe, and disengage at the failure threshold. */
const probeStep = (engine: Engine, run: Run, l: Live): Effect.Effect<void> =>
  Effect.gen(function* () {
    const { health } = engine.options
    const outcome = probeOutcome(
      yield* Effect.result(l.cluster.client.probe({ timeout: health.timeout })),
      health,
    )
    const step = healthStep(run.health, outcome, health)
    run.health = step.state
    if (step.verdict === "unhealthy") {
      // Unhealthy before the scope closes: the manager asks why it closes (unhealthy, not removed).
      setState(engine, run, { engaged: false, healthy: false, reason: step.reason })
      yield* teardown(engine, run, step.reason)
      yield* Effect.logWarning("cluster unhealthy, disengaged").pipe(
        run.annotate,
        Effect.annotateLogs({ reason: step.reason }),
      )
    } else {
      setState(engine, run, {
        engaged: true,
        healthy: true,
        reason: step.verdict === "healthy" ? "engaged" : step.reason,
      })
    }
  })

/** Runs candidate `c` as transition `id` of its name until interrupted, then tears it down. */
export const lifecycle = (engine: Engine, c: Candidate, id: number): Effect.Effect<void> => {
  const run: Run = {
    c,
    id,
    gated: c.healthGated ?? true,
    annotate: annotateCluster(engine.options.provider, c.name, { generation: c.generation }),
    live: undefined,
    pending: undefined,
    health: { consecutiveFailures: 0 },
  }
  const intervalMs = millis(engine.options.health.interval)
  const loop = Effect.gen(function* () {
    setState(engine, run, { engaged: false, healthy: true, reason: "connecting" })
    while (true) {
      const l = run.live
      if (l === undefined) yield* connectStep(engine, run)
      else if (!run.gated || !engine.options.health.probes) {
        // Its source gates it, or probes are off: stay engaged until the source removes or
        // replaces it.
        yield* Effect.never
      } else yield* probeStep(engine, run, l)
      yield* Effect.sleep(intervalMs)
    }
  })
  return Effect.ensuring(
    loop,
    Effect.suspend(() => teardown(engine, run, "the cluster left the provider")),
  )
}
