/**
 * The multi-cluster manager: the hub cluster, an optional provider, and the multi-cluster
 * controllers, engaged with every cluster the provider brings (seed 003, Proposal: "ctrl.Manager
 * will implement cluster.Aware ... The internal ctrl.Manager implementation in turn will call
 * Engage and Disengage on all its runnables that are cluster-aware").
 *
 * # Expected flow
 * `make({hub, provider})`, add controllers (`controllerManagedBy(manager)...complete(...)`) and
 * any other cluster-aware runnable (`add`), then `start`: the runnables start, the hub `""` is
 * engaged with every one (a controller's engagement table decides whether it takes it:
 * `engageWithLocalCluster`), and the
 * provider runs with the manager as its `Aware` (or with a shard's gate in front of it, see
 * `sharding.ts`). `engage(cluster, scope)` records the cluster (so `getCluster` finds it) and
 * engages every controller; `scope` closing disengages it from all of them.
 *
 * # Guarantees
 * - `getCluster("")` is the hub; `getCluster(name)` answers only clusters engaged with this
 *   manager now, else a typed `ClusterNotFound` (a replica of a sharded manager does not hand
 *   out clients of clusters another replica owns, unlike upstream's GetCluster, multicluster-runtime issue #172).
 * - `engage` does not wait for caches or sources: every controller's engagement of the cluster
 *   proceeds on the cluster's own fibers, so one cluster's slowness delays no other's.
 * - A runnable added after clusters were engaged is engaged with them at once; runnables are
 *   engaged in the order they were added, and one runnable's failing `engage` is logged and
 *   stops no other.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Metric from "effect/Metric"
import * as Scope from "effect/Scope"
import type { KubeObject, ResourceRef } from "../kube/resource.ts"
import type { IndexFunc } from "../reflector/store.ts"
import { isMultiClusterController, type MultiClusterController } from "./controller.ts"
import {
  type Aware,
  type Cluster,
  type ClusterAwareRunnable,
  type ClusterName,
  ClusterNotFound,
  type ClusterState,
  type EngageFailedError,
  HubCluster,
  type Provider,
} from "./types.ts"

/** A manager's parts. */
export interface ManagerOptions {
  /** The hub (default) cluster, `""`; build it with `makeCluster`. */
  readonly hub: Cluster
  /** The provider of the other clusters; none for a single-cluster manager. */
  readonly provider?: Provider | undefined
  /**
   * Put in front of the manager when the provider runs (e.g. the shard gate of `sharding.ts`):
   * gets the manager's `Aware` and returns the one the provider calls.
   */
  readonly gate?: ((aware: Aware) => Effect.Effect<Aware, never, Scope.Scope>) | undefined
}

/** A multi-cluster manager. */
export interface MultiClusterManager extends Aware {
  readonly hub: Cluster
  readonly provider: Provider | undefined
  /** The hub for `""`; an engaged provider cluster; else ClusterNotFound. */
  readonly getCluster: (name: ClusterName | string) => Effect.Effect<Cluster, ClusterNotFound>
  /** The provider clusters engaged with this manager now. */
  readonly clusters: Effect.Effect<ReadonlyArray<Cluster>>
  /** Adds a field index to the hub's cache and to every current and future provider cluster. */
  readonly indexField: <T extends KubeObject = KubeObject>(
    resource: ResourceRef,
    name: string,
    extract: IndexFunc<T>,
  ) => Effect.Effect<void>
  /**
   * Registers a controller or any other cluster-aware runnable: started with the manager and
   * engaged with every cluster, including those engaged so far.
   */
  readonly add: (runnable: ClusterAwareRunnable | MultiClusterController) => Effect.Effect<void>
  /** The multi-cluster controllers among the runnables. */
  readonly controllers: Effect.Effect<ReadonlyArray<MultiClusterController>>
  /** Every runnable added, controllers included, in the order they were added. */
  readonly runnables: Effect.Effect<ReadonlyArray<ClusterAwareRunnable>>
  /** Starts the runnables, engages the hub, runs the provider; all stop when the scope closes. */
  readonly start: Effect.Effect<void, never, Scope.Scope>
  /** What `ControllerHost` needs (see `controller.ts`). */
  readonly hasProvider: boolean
  readonly applyIndexes: (cluster: Cluster) => Effect.Effect<void>
  readonly unhealthyReason: (cluster: ClusterName) => Effect.Effect<string | undefined>
}

interface Engaged {
  readonly cluster: Cluster
  readonly scope: Scope.Scope
}

interface IndexSpec {
  readonly resource: ResourceRef
  readonly name: string
  readonly extract: IndexFunc<KubeObject>
}

/** What the manager's operations share. */
interface ManagerState {
  readonly hub: Cluster
  readonly provider: Provider | undefined
  /** Provider clusters engaged now, by name (the hub is not among them). */
  readonly engaged: Map<ClusterName, Engaged>
  /** Every runnable added, in order. */
  readonly runnables: Array<ClusterAwareRunnable>
  readonly indexes: Array<IndexSpec>
  /** The manager's scope once `start` ran. */
  started: Scope.Scope | undefined
}

/** Provider clusters engaged with a manager now (the hub not counted). */
export const engagedClusters = Metric.gauge("krtt_multicluster_engaged_clusters", {
  description: "Provider clusters engaged with the multi-cluster manager (the hub not counted).",
})

const countEngaged = (state: ManagerState) =>
  Effect.suspend(() => Metric.update(engagedClusters, state.engaged.size))

/** Engages one runnable; its failure is logged and stops nothing else. */
const engageRunnable = (runnable: ClusterAwareRunnable, e: Engaged): Effect.Effect<void> =>
  runnable
    .engage(e.cluster, e.scope)
    .pipe(
      Effect.catch((err) =>
        Effect.logWarning("engaging a runnable failed").pipe(
          Effect.annotateLogs({ runnable: runnable.name, cluster: e.cluster.name, error: err.message }),
        ),
      ),
    )

/** Records the cluster until its scope closes and engages every runnable with it. */
const engage =
  (state: ManagerState) =>
  (cluster: Cluster, scope: Scope.Scope): Effect.Effect<void, EngageFailedError> =>
    Effect.gen(function* () {
      const record: Engaged = { cluster, scope }
      if (cluster.name !== HubCluster) state.engaged.set(cluster.name, record)
      yield* countEngaged(state)
      yield* Scope.addFinalizer(
        scope,
        Effect.suspend(() => {
          if (state.engaged.get(cluster.name) === record) state.engaged.delete(cluster.name)
          return countEngaged(state)
        }),
      )
      yield* Effect.logInfo("engaging cluster").pipe(
        Effect.annotateLogs({ cluster: cluster.name, runnables: state.runnables.length }),
      )
      yield* Effect.forEach(state.runnables, (c) => engageRunnable(c, record), { discard: true })
    })

/** Forgets the cluster (of this generation) and disengages every runnable from it. */
const disengage =
  (state: ManagerState) =>
  (cluster: Cluster): Effect.Effect<void> =>
    Effect.gen(function* () {
      const record = state.engaged.get(cluster.name)
      if (record === undefined || record.cluster !== cluster) return
      state.engaged.delete(cluster.name)
      yield* countEngaged(state)
      yield* Effect.forEach(state.runnables, (c) => c.disengage(cluster), { discard: true })
    })

/** The hub for `""`, an engaged provider cluster, else `ClusterNotFound`. */
const getCluster =
  (state: ManagerState) =>
  (name: ClusterName | string): Effect.Effect<Cluster, ClusterNotFound> =>
    Effect.suspend(() => {
      if (name === HubCluster) return Effect.succeed(state.hub)
      const record = state.engaged.get(name as ClusterName)
      return record === undefined
        ? Effect.fail(
            new ClusterNotFound({
              cluster: name as ClusterName,
              message: `cluster "${name}" is not engaged with this manager`,
            }),
          )
        : Effect.succeed(record.cluster)
    })

/** Adds an index to the hub, the provider's clusters and every engaged cluster, and remembers it. */
const indexField =
  (state: ManagerState) =>
  <T extends KubeObject = KubeObject>(resource: ResourceRef, name: string, extract: IndexFunc<T>) =>
    Effect.gen(function* () {
      const spec: IndexSpec = { resource, name, extract: extract as unknown as IndexFunc<KubeObject> }
      state.indexes.push(spec)
      yield* state.hub.cache.indexField(resource, name, spec.extract)
      if (state.provider !== undefined) yield* state.provider.indexField(resource, name, spec.extract)
      yield* Effect.forEach(
        [...state.engaged.values()],
        (e) => e.cluster.cache.indexField(resource, name, spec.extract),
        { discard: true },
      )
    })

/** Registers a runnable; on a started manager it starts and is engaged with every cluster at once. */
const add =
  (state: ManagerState) =>
  (runnable: ClusterAwareRunnable): Effect.Effect<void> =>
    Effect.gen(function* () {
      state.runnables.push(runnable)
      const started = state.started
      if (started === undefined) return
      if (runnable.start !== undefined) yield* runnable.start.pipe(Scope.provide(started))
      yield* engageRunnable(runnable, { cluster: state.hub, scope: started })
      yield* Effect.forEach([...state.engaged.values()], (e) => engageRunnable(runnable, e), {
        discard: true,
      })
    })

/** The provider's verdict on a cluster: why it is unhealthy, or `undefined`. */
const unhealthyReason =
  (state: ManagerState) =>
  (name: ClusterName): Effect.Effect<string | undefined> =>
    state.provider === undefined
      ? Effect.succeed(undefined)
      : Effect.map(state.provider.clusters, (all: ReadonlyArray<ClusterState>) => {
          const found = all.find((c) => c.name === name)
          return found !== undefined && !found.healthy ? found.reason || "unhealthy" : undefined
        })

/** Starts the runnables, engages the hub with them, and runs the provider (behind the gate). */
const start = (
  state: ManagerState,
  manager: MultiClusterManager,
  gate: ManagerOptions["gate"],
): Effect.Effect<void, never, Scope.Scope> =>
  Effect.gen(function* () {
    const scope = yield* Scope.fork(yield* Effect.scope)
    yield* Effect.addFinalizer(() => Scope.close(scope, Exit.void))
    state.started = scope
    yield* Effect.forEach(
      state.runnables,
      (c) => (c.start === undefined ? Effect.void : c.start.pipe(Scope.provide(scope))),
      { discard: true },
    )
    const hubRecord: Engaged = { cluster: state.hub, scope }
    yield* Effect.forEach(state.runnables, (c) => engageRunnable(c, hubRecord), { discard: true })
    const provider = state.provider
    if (provider !== undefined) {
      const aware = gate === undefined ? manager : yield* gate(manager).pipe(Scope.provide(scope))
      // run may block until the scope closes or return after forking: either way it must not hold start.
      yield* Effect.forkIn(provider.run(aware).pipe(Scope.provide(scope)), scope)
    }
    yield* Effect.logInfo("multi-cluster manager started").pipe(
      Effect.annotateLogs({
        provider: provider?.name ?? "none",
        runnables: state.runnables.map((c) => c.name).join(","),
      }),
    )
  })

/** Makes a manager; call `start` to run it. */
export const make = (options: ManagerOptions): Effect.Effect<MultiClusterManager, never, Scope.Scope> =>
  Effect.sync(() => {
    const { hub, provider } = options
    const state: ManagerState = {
      hub,
      provider,
      engaged: new Map(),
      runnables: [],
      indexes: [],
      started: undefined,
    }
    const manager: MultiClusterManager = {
      hub,
      provider,
      hasProvider: provider !== undefined,
      engage: engage(state),
      disengage: disengage(state),
      getCluster: getCluster(state),
      clusters: Effect.sync(() => [...state.engaged.values()].map((e) => e.cluster)),
      indexField: indexField(state),
      add: add(state),
      controllers: Effect.sync(() => state.runnables.filter(isMultiClusterController)),
      runnables: Effect.sync(() => [...state.runnables]),
      applyIndexes: (cluster) =>
        Effect.forEach(state.indexes, (i) => cluster.cache.indexField(i.resource, i.name, i.extract), {
          discard: true,
        }),
      unhealthyReason: unhealthyReason(state),
      start: Effect.suspend(() => start(state, manager, options.gate)),
    }
    return manager
  })
