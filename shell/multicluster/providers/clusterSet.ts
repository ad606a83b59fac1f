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
 * One candidate's lifecycle (connect, probe, engage, disengage) is `clusterLifecycle.ts`; this
 * module holds the engine's maps and serializes the transitions of each cluster name.
 *
 * # Caveats
 * - A cluster that never became reachable is retried every probe interval (not seed 000's 30 s
 *   connection retry): the gate has one rhythm for probing, engaged or not.
 *
 * @module
 */
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import type * as Scope from "effect/Scope"
import * as Semaphore from "effect/Semaphore"
import { byName } from "../../../core/krtt/compare.ts"
import type { Cache, CacheFactory } from "../../cache/types.ts"
import type { KubeObject, ResourceRef } from "../../kube/resource.ts"
import type { IndexFunc } from "../../reflector/store.ts"
import { type Aware, type Cluster, type ClusterName, ClusterNotFound, type ClusterState } from "../types.ts"
import {
  annotateCluster,
  type Candidate,
  type ChainEntry,
  type Engine,
  type IndexSpec,
  lifecycle,
} from "./clusterLifecycle.ts"
import type { HealthOptions } from "./health.ts"

export { type Candidate, ConnectFailedError, type Connection } from "./clusterLifecycle.ts"

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

/**
 * Engages the candidates a provider's discovery reports with `aware` until the scope closes (then
 * disengages them all): one fiber per cluster name, each transition after the previous one ended.
 */
const bind = (
  shared: Omit<Engine, "chain" | "aware">,
  aware: Aware,
): Effect.Effect<ClusterSink, never, Scope.Scope> =>
  Effect.gen(function* () {
    const runScope = yield* Effect.scope
    const chain = new Map<ClusterName, ChainEntry>()
    let nextId = 0

    const engine: Engine = { ...shared, chain, aware }
    const { states } = shared

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
            : replace(c.name, c.generation, (id) => lifecycle(engine, c, id)),
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
            Effect.logWarning("cluster rejected").pipe(
              annotateCluster(shared.options.provider, name),
              Effect.annotateLogs({ reason }),
            ),
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

/** Makes the engine of one provider. */
export const makeClusterSet = (options: ClusterSetOptions): ClusterSet => {
  const states = new Map<ClusterName, ClusterState>()
  const engaged = new Map<ClusterName, Cluster>()
  const caches = new Map<ClusterName, Cache>()
  const indexes: Array<IndexSpec> = []
  const connecting = Semaphore.makeUnsafe(
    Math.max(1, options.connectConcurrency ?? ClusterSetDefaults.connectConcurrency),
  ).withPermits(1)

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

  return {
    get,
    indexField,
    clusters: Effect.sync(() => [...states.values()].sort(byName)),
    bind: (aware) => bind({ options, states, engaged, caches, indexes, connecting }, aware),
  }
}
