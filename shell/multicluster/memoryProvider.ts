/**
 * An in-memory `Provider` over `FakeApiServer`s, driven by calls instead of discovery: the test
 * double of the providers (controller-runtime ships its doubles as packages too, `client/fake`).
 * Tests and the runnable examples use it to add, replace, remove clusters and to turn them
 * unhealthy and healthy again, on virtual time.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { makeMemoryClient } from "../apiserver/memoryClient.ts"
import type { FakeApiServer } from "../apiserver/server.ts"
import type { CacheFactory } from "../cache/types.ts"
import type { KubeObject, ResourceRef } from "../kube/resource.ts"
import type { IndexFunc } from "../reflector/store.ts"
import { ClusterName } from "../workqueue/request.ts"
import { makeCluster } from "./cluster.ts"
import { type Aware, type Cluster, ClusterNotFound, type ClusterState, type Provider } from "./types.ts"

/** A provider whose clusters are added and removed by calls. */
export interface MemoryProvider extends Provider {
  /** Adds (or replaces, with a new generation) a cluster served by `fake`; engages it once running. */
  readonly add: (
    name: string,
    fake: FakeApiServer,
    options?: { readonly generation?: string | undefined },
  ) => Effect.Effect<Cluster>
  /**
   * Replaces a cluster with one served by `fake` under a new `generation` (rotated credentials),
   * engaging the new one BEFORE closing the old one's scope, as a provider that swaps may.
   */
  readonly rotate: (name: string, fake: FakeApiServer, generation: string) => Effect.Effect<Cluster>
  /** Removes a cluster: its engage scope closes, its cache stops. */
  readonly remove: (name: string) => Effect.Effect<void>
  /** Marks a cluster unhealthy (disengaged, kept) or healthy again (engaged again). */
  readonly setHealthy: (name: string, healthy: boolean, reason?: string) => Effect.Effect<void>
}

interface Entry {
  readonly cluster: Cluster
  /** The cluster's own scope: its cache lives in it. */
  readonly scope: Scope.Closeable
  /** The scope given to `engage`, while engaged. */
  engaged: Scope.Closeable | undefined
  healthy: boolean
  reason: string
}

type Options = { readonly name?: string | undefined; readonly cacheFactory?: CacheFactory | undefined }

/** What the provider's calls share. */
interface MemoryState {
  readonly options: Options
  /** The provider's scope: each cluster's scope is a child of it. */
  readonly root: Scope.Scope
  readonly entries: Map<string, Entry>
  readonly indexes: Array<{ resource: ResourceRef; name: string; extract: IndexFunc<KubeObject> }>
  /** The `Aware` the provider runs with, while it runs. */
  aware: Aware | undefined
}

/** Engages a healthy, not yet engaged cluster; a failing engage is logged and undone. */
const engage = (state: MemoryState, entry: Entry): Effect.Effect<void> =>
  Effect.gen(function* () {
    const aware = state.aware
    if (aware === undefined || !entry.healthy || entry.engaged !== undefined) return
    const scope = yield* Scope.fork(entry.scope)
    entry.engaged = scope
    yield* aware.engage(entry.cluster, scope).pipe(
      Effect.catch((e) =>
        Effect.andThen(
          Effect.logWarning("engage failed").pipe(
            Effect.annotateLogs({ cluster: entry.cluster.name, error: e.message }),
          ),
          Effect.suspend(() => {
            entry.engaged = undefined
            return Scope.close(scope, Exit.void)
          }),
        ),
      ),
    )
  })

/** Closes the engage scope of a cluster, if engaged. */
const disengage = (entry: Entry): Effect.Effect<void> =>
  Effect.suspend(() => {
    const scope = entry.engaged
    entry.engaged = undefined
    return scope === undefined ? Effect.void : Scope.close(scope, Exit.void)
  })

/** Removes a cluster: disengaged, then its own scope (and cache) closed. */
const remove = (state: MemoryState, name: string): Effect.Effect<void> =>
  Effect.suspend(() => {
    const entry = state.entries.get(name)
    if (entry === undefined) return Effect.void
    state.entries.delete(name)
    return Effect.andThen(disengage(entry), Scope.close(entry.scope, Exit.void))
  })

/** Builds the cluster `name` served by `fake`, with the indexes so far, records it and engages it. */
const install = (state: MemoryState, name: string, fake: FakeApiServer, generation: string) =>
  Effect.gen(function* () {
    const scope = yield* Scope.fork(state.root)
    const client = yield* makeMemoryClient(fake)
    const cluster = yield* makeCluster({
      name: ClusterName(name),
      client,
      cacheFactory: state.options.cacheFactory,
      generation,
    }).pipe(Scope.provide(scope))
    for (const i of state.indexes) yield* cluster.cache.indexField(i.resource, i.name, i.extract)
    const entry: Entry = { cluster, scope, engaged: undefined, healthy: true, reason: "" }
    state.entries.set(name, entry)
    yield* engage(state, entry)
    return cluster
  })

/** Makes a memory provider named `name` (default `memory`); its clusters live until the scope closes. */
export const makeMemoryProvider = (
  options: Options = {},
): Effect.Effect<MemoryProvider, never, Scope.Scope> =>
  Effect.map(Effect.scope, (root) => {
    const state: MemoryState = { options, root, entries: new Map(), indexes: [], aware: undefined }
    const { entries } = state
    return {
      name: options.name ?? "memory",
      get: (name) =>
        Effect.suspend(() => {
          const entry = entries.get(name)
          return entry === undefined
            ? Effect.fail(new ClusterNotFound({ cluster: name, message: `cluster "${name}" not found` }))
            : Effect.succeed(entry.cluster)
        }),
      indexField: (resource, name, extract) =>
        Effect.gen(function* () {
          const fn = extract as unknown as IndexFunc<KubeObject>
          state.indexes.push({ resource, name, extract: fn })
          for (const e of entries.values()) yield* e.cluster.cache.indexField(resource, name, fn)
        }),
      run: (a) =>
        Effect.gen(function* () {
          state.aware = a
          yield* Effect.addFinalizer(() =>
            Effect.sync(() => {
              state.aware = undefined
            }),
          )
          yield* Effect.forEach([...entries.values()], (e) => engage(state, e), { discard: true })
        }),
      clusters: Effect.sync(() =>
        [...entries.values()].map(
          (e): ClusterState => ({
            name: e.cluster.name,
            engaged: e.engaged !== undefined,
            healthy: e.healthy,
            reason: e.reason,
          }),
        ),
      ),
      add: (name, fake, o = {}) =>
        Effect.andThen(remove(state, name), install(state, name, fake, o.generation ?? "1")),
      rotate: (name, fake, generation) =>
        Effect.gen(function* () {
          const old = entries.get(name)
          const cluster = yield* install(state, name, fake, generation)
          if (old !== undefined) yield* Effect.andThen(disengage(old), Scope.close(old.scope, Exit.void))
          return cluster
        }),
      remove: (name) => remove(state, name),
      setHealthy: (name, healthy, reason = "probe failed") =>
        Effect.gen(function* () {
          const entry = entries.get(name)
          if (entry === undefined) return
          entry.healthy = healthy
          entry.reason = healthy ? "" : reason
          yield* healthy ? engage(state, entry) : disengage(entry)
        }),
    }
  })
