/**
 * The engine under every provider: the provider discovers candidates (a name, a generation, a
 * way to connect); the engine connects each one, health-gates it (`health.ts`) and engages and
 * disengages it with the `Aware`, one fiber per cluster, so that a slow or hanging cluster holds
 * up no other.
 *
 * # Expected flow (one candidate)
 * connect (client, `GET /` within the probe timeout) → cache made and started → cache synced →
 * the provider's indexes applied → `aware.engage(cluster, scope)` (seed 003, Proposal: "start the
 * cluster, wait for its cache to sync, apply indexes, engage") → probe every interval → at the
 * failure threshold or on a 401: engage scope closed, `aware.disengage`, cache stopped → probe
 * every interval → on success, connect and engage again (a new `Cluster`, same generation). With
 * `health.probes` false an engaged cluster is not probed: it stays engaged until its source
 * removes or replaces it.
 *
 * # Guarantees
 * - Per cluster name, transitions are serialized: a new generation (rotated credentials) first
 *   disengages and stops the old `Cluster`, then connects the new one; removal disengages it.
 * - An engage scope is closed exactly once, and `aware.disengage` is called once per successful
 *   or attempted engage, also when the provider stops (its run scope closes).
 * - No lock spans I/O: the state maps are plain maps updated between effects; connecting,
 *   syncing and probing run on the cluster's own fiber.
 * - At most `connectConcurrency` clusters connect at once (client built, first `GET /`): a
 *   provider that discovers a thousand clusters at start opens their connections in waves
 *   instead of a thousand TLS handshakes at once, whose probes would all miss their timeout and
 *   wait a probe interval to try again. A permit is held at most for the probe's timeout, so a
 *   hanging cluster delays others by that much at most; syncing the cache runs outside it.
 *
 * # Caveats
 * - A cluster that never became reachable is retried every probe interval (not seed 000's 30 s
 *   connection retry): the gate has one rhythm for probing, engaged or not.
 *
 * @module
 */
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Scope from "effect/Scope"
import * as Semaphore from "effect/Semaphore"
import { byName } from "../../../core/krtt/compare.ts"
import type { Cache, CacheFactory } from "../../cache/types.ts"
import type { KubeClientShape } from "../../kube/client.ts"
import type { KubeObject, ResourceRef } from "../../kube/resource.ts"
import type { IndexFunc } from "../../reflector/store.ts"
import { type Aware, type Cluster, type ClusterName, ClusterNotFound, type ClusterState } from "../types.ts"
import {
  type HealthOptions,
  type HealthState,
  healthStep,
  millis,
  type ProbeOutcome,
  probeOutcome,
} from "./health.ts"

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

/** The engine's options. */
export interface ClusterSetOptions {
  /** The provider's name, for logs. */
  readonly provider: string
  readonly health: HealthOptions
  readonly cacheFactory: CacheFactory
  /**
   * How long a new cluster's cache may take to sync before the attempt counts as failed. Default
   * 5 min (seed 000's `InitialSyncTimeout`), see `ClusterSetDefaults`.
   */
  readonly syncTimeout: Duration.Input
  /**
   * How many clusters may be connecting (client built, first `GET /` answered) at once. Default
   * 16, see `ClusterSetDefaults`.
   */
  readonly connectConcurrency?: number | undefined
}

/** The engine's own documented numbers. */
export const ClusterSetDefaults = {
  /** Seed 000, clusterAccessor row 3: "Wait for cache to sync (`InitialSyncTimeout`: 5 minutes)". */
  syncTimeout: "5 minutes",
  /**
   * Clusters connecting at once (derived, docs/benchmarks.md "Multi-cluster runtime beside
   * multicluster-runtime"): a thousand at once on 2 cores missed every probe's 5 s timeout;
   * multicluster-runtime's kubeconfig provider connects one at a time.
   */
  connectConcurrency: 16,
} as const

/** What a provider's discovery tells the engine while it runs. */
export interface ClusterSink {
  /** A cluster appeared or changed; the same generation again is a no-op. */
  readonly upsert: (candidate: Candidate) => Effect.Effect<void>
  /** A cluster left: disengage it and forget it. */
  readonly remove: (name: ClusterName) => Effect.Effect<void>
  /**
   * A cluster is known but unusable (a malformed kubeconfig; disconnected by its source):
   * disengage it and say why. `healthy` is what `clusters` reports: default false, a verdict
   * (`krtt clusters` prints it at once instead of waiting for probes that will never come).
   */
  readonly reject: (name: ClusterName, reason: string, healthy?: boolean) => Effect.Effect<void>
  /** The names discovery has told the engine about and not removed. */
  readonly names: () => ReadonlyArray<ClusterName>
}

/** The engine: the provider's `get`, `indexField` and `clusters`, and `bind` for its `run`. */
export interface ClusterSet {
  readonly get: (name: ClusterName) => Effect.Effect<Cluster, ClusterNotFound>
  readonly indexField: <T extends KubeObject = KubeObject>(
    resource: ResourceRef,
    name: string,
    extract: IndexFunc<T>,
  ) => Effect.Effect<void>
  readonly clusters: Effect.Effect<ReadonlyArray<ClusterState>>
  /** Engages clusters with `aware` until the scope closes (then disengages them all). */
  readonly bind: (aware: Aware) => Effect.Effect<ClusterSink, never, Scope.Scope>
}

interface IndexSpec {
  readonly resource: ResourceRef
  readonly name: string
  readonly extract: IndexFunc<KubeObject>
}

interface Live {
  readonly cluster: Cluster
  readonly scope: Scope.Closeable
  engageScope: Scope.Closeable | undefined
}

/** Makes the engine of one provider. */
export const makeClusterSet = (options: ClusterSetOptions): ClusterSet => {
  const states = new Map<ClusterName, ClusterState>()
  const engaged = new Map<ClusterName, Cluster>()
  const caches = new Map<ClusterName, Cache>()
  const indexes: Array<IndexSpec> = []
  const connecting = Semaphore.makeUnsafe(
    Math.max(1, options.connectConcurrency ?? ClusterSetDefaults.connectConcurrency),
  ).withPermits(1)
  const intervalMs = millis(options.health.interval)
  const timeout = options.health.timeout
  const log = (cluster: ClusterName, extra: Record<string, unknown> = {}) =>
    Effect.annotateLogs({ provider: options.provider, cluster, ...extra })

  const get = (name: ClusterName): Effect.Effect<Cluster, ClusterNotFound> =>
    Effect.suspend(() => {
      const c = engaged.get(name)
      if (c !== undefined) return Effect.succeed(c)
      const state = states.get(name)
      return Effect.fail(
        new ClusterNotFound({
          cluster: name,
          message:
            state === undefined
              ? `provider ${options.provider} has no cluster "${name}"`
              : `cluster "${name}" of provider ${options.provider} is not engaged: ${state.reason}`,
        }),
      )
    })

  const indexField = <T extends KubeObject = KubeObject>(
    resource: ResourceRef,
    name: string,
    extract: IndexFunc<T>,
  ): Effect.Effect<void> =>
    Effect.gen(function* () {
      const spec: IndexSpec = { resource, name, extract: extract as IndexFunc<KubeObject> }
      indexes.push(spec)
      for (const cache of [...caches.values()]) yield* cache.indexField(resource, name, spec.extract)
    })

  const bind = (aware: Aware): Effect.Effect<ClusterSink, never, Scope.Scope> =>
    Effect.gen(function* () {
      const runScope = yield* Effect.scope
      const chain = new Map<
        ClusterName,
        { readonly id: number; readonly generation: string | undefined; readonly fiber: Fiber.Fiber<void> }
      >()
      let nextId = 0

      const lifecycle = (c: Candidate, id: number): Effect.Effect<void> => {
        let live: Live | undefined
        let pending: Scope.Closeable | undefined
        let health: HealthState = { consecutiveFailures: 0 }
        const gated = c.healthGated ?? true
        /** Only the newest transition of the name writes its state (a superseded one is leaving). */
        const setState = (s: Omit<ClusterState, "name">) => {
          if (chain.get(c.name)?.id === id) states.set(c.name, { name: c.name, ...s })
        }
        const annotate = log(c.name, { generation: c.generation })

        const teardown = (reason: string): Effect.Effect<void> =>
          Effect.gen(function* () {
            const p = pending
            pending = undefined
            if (p !== undefined) yield* Scope.close(p, Exit.void)
            const l = live
            live = undefined
            if (l === undefined) return
            if (engaged.get(c.name) === l.cluster) engaged.delete(c.name)
            if (caches.get(c.name) === l.cluster.cache) caches.delete(c.name)
            if (l.engageScope !== undefined) {
              yield* Scope.close(l.engageScope, Exit.void)
              yield* aware.disengage(l.cluster)
              yield* Effect.logInfo("cluster disengaged").pipe(annotate, Effect.annotateLogs({ reason }))
            }
            yield* Scope.close(l.scope, Exit.void)
          })

        /** Connect, probe, make and sync the cache, apply indexes: the steps before engage. */
        const connect: Effect.Effect<ProbeOutcome> = Effect.gen(function* () {
          const scope = yield* Scope.make()
          pending = scope
          const attempt = Effect.gen(function* () {
            const conn = yield* connecting(
              Effect.gen(function* () {
                const conn = yield* Scope.provide(c.connect, scope)
                if (gated) {
                  const answer = probeOutcome(
                    yield* Effect.result(conn.client.probe({ timeout })),
                    options.health,
                  )
                  if (answer._tag === "Failure") return yield* Effect.fail(answer.error)
                }
                return conn
              }),
            )
            let cache = conn.cache
            if (cache === undefined) {
              cache = yield* Scope.provide(options.cacheFactory(conn.client, { cluster: c.name }), scope)
              yield* Scope.provide(cache.start, scope)
            }
            caches.set(c.name, cache)
            const synced = yield* Effect.timeoutOption(cache.waitForCacheSync, options.syncTimeout)
            if (synced._tag === "None" || !synced.value) {
              return yield* new ConnectFailedError({
                message: `the cache did not sync within ${Duration.format(Duration.fromInputUnsafe(options.syncTimeout))}`,
              })
            }
            for (const ix of [...indexes]) yield* cache.indexField(ix.resource, ix.name, ix.extract)
            return { client: conn.client, cache }
          })
          const result = yield* Effect.result(attempt)
          pending = undefined
          if (result._tag === "Failure") {
            if (caches.get(c.name) !== undefined && live === undefined) caches.delete(c.name)
            yield* Scope.close(scope, Exit.void)
            return { _tag: "Failure", error: result.failure }
          }
          live = {
            cluster: {
              name: c.name,
              client: result.success.client,
              cache: result.success.cache,
              generation: c.generation,
            },
            scope,
            engageScope: undefined,
          }
          return { _tag: "Success" }
        })

        const engage = (l: Live): Effect.Effect<boolean> =>
          Effect.gen(function* () {
            const engageScope = yield* Scope.fork(l.scope)
            l.engageScope = engageScope
            engaged.set(c.name, l.cluster)
            const r = yield* Effect.result(aware.engage(l.cluster, engageScope))
            if (r._tag === "Success") {
              setState({ engaged: true, healthy: true, reason: "engaged" })
              yield* Effect.logInfo("cluster engaged").pipe(annotate)
              return true
            }
            const reason = `engage failed: ${r.failure.message}`
            yield* teardown(reason)
            setState({ engaged: false, healthy: true, reason })
            yield* Effect.logWarning("cluster not engaged").pipe(annotate, Effect.annotateLogs({ reason }))
            return false
          })

        const probe = (client: KubeClientShape): Effect.Effect<ProbeOutcome> =>
          Effect.map(Effect.result(client.probe({ timeout })), (r) => probeOutcome(r, options.health))

        const loop = Effect.gen(function* () {
          setState({ engaged: false, healthy: true, reason: "connecting" })
          while (true) {
            const l = live
            if (l === undefined) {
              const outcome = yield* connect
              const step = healthStep(health, outcome, options.health)
              health = step.state
              const next = live
              if (next !== undefined) yield* engage(next)
              else {
                setState({
                  engaged: false,
                  healthy: step.verdict !== "unhealthy",
                  reason: `not engaged: ${step.reason}`,
                })
                if (health.consecutiveFailures === 1 || step.verdict === "unhealthy")
                  yield* Effect.logWarning("cluster not reachable").pipe(
                    annotate,
                    Effect.annotateLogs({ reason: step.reason }),
                  )
              }
            } else if (!gated || !options.health.probes) {
              // Its source gates it, or probes are off: stay engaged until the source removes or
              // replaces it.
              yield* Effect.never
            } else {
              const step = healthStep(health, yield* probe(l.cluster.client), options.health)
              health = step.state
              if (step.verdict === "unhealthy") {
                // Unhealthy before the scope closes: the manager asks why it closes (unhealthy, not removed).
                setState({ engaged: false, healthy: false, reason: step.reason })
                yield* teardown(step.reason)
                yield* Effect.logWarning("cluster unhealthy, disengaged").pipe(
                  annotate,
                  Effect.annotateLogs({ reason: step.reason }),
                )
              } else {
                setState({
                  engaged: true,
                  healthy: true,
                  reason: step.verdict === "healthy" ? "engaged" : step.reason,
                })
              }
            }
            yield* Effect.sleep(intervalMs)
          }
        })
        return Effect.ensuring(
          loop,
          Effect.suspend(() => teardown("the cluster left the provider")),
        )
      }

      /** Runs `body` for `name` after the previous transition of that name has ended. */
      const replace = (
        name: ClusterName,
        generation: string | undefined,
        body: (id: number) => Effect.Effect<void>,
      ) =>
        Effect.gen(function* () {
          const prev = chain.get(name)
          const id = ++nextId
          const stopPrev =
            prev === undefined ? Effect.void : Effect.uninterruptible(Fiber.interrupt(prev.fiber))
          const fiber = yield* Effect.forkIn(Effect.andThen(stopPrev, body(id)), runScope)
          chain.set(name, { id, generation, fiber })
        })

      const sink: ClusterSink = {
        upsert: (c) =>
          Effect.suspend(() =>
            chain.get(c.name)?.generation === c.generation
              ? Effect.void
              : replace(c.name, c.generation, (id) => lifecycle(c, id)),
          ),
        remove: (name) =>
          Effect.suspend(() => {
            const prev = chain.get(name)
            if (prev === undefined || prev.generation === undefined) return Effect.void
            return replace(name, undefined, () =>
              Effect.sync(() => {
                states.delete(name)
              }),
            )
          }),
        reject: (name, reason, healthy = false) =>
          Effect.suspend(() => {
            const generation = `rejected: ${healthy} ${reason}`
            if (chain.get(name)?.generation === generation) return Effect.void
            // The verdict first: when the engaged generation's scope closes, the manager reads it.
            states.set(name, { name, engaged: false, healthy, reason })
            return replace(name, generation, () =>
              Effect.logWarning("cluster rejected").pipe(log(name), Effect.annotateLogs({ reason })),
            )
          }),
        names: () => [...chain.entries()].flatMap(([name, e]) => (e.generation === undefined ? [] : [name])),
      }
      yield* Effect.addFinalizer(() =>
        Effect.gen(function* () {
          yield* Effect.forEach([...chain.values()], (e) => Fiber.interrupt(e.fiber), {
            concurrency: "unbounded",
            discard: true,
          })
          chain.clear()
          states.clear()
        }),
      )
      return sink
    })

  return {
    get,
    indexField,
    clusters: Effect.sync(() => [...states.values()].sort(byName)),
    bind,
  }
}
