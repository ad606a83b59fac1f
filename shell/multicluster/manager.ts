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
import type { MultiClusterController } from "./controller.ts"
import {
  type Aware,
  type Cluster,
  type ClusterAwareRunnable,
  type ClusterName,
  ClusterNotFound,
  type ClusterState,
  type EngageFailed,
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

const isController = (r: ClusterAwareRunnable): r is MultiClusterController =>
  "queue" in r && "pairs" in r && "inner" in r

/** Provider clusters engaged with a manager now (the hub not counted). */
export const engagedClusters = Metric.gauge("krtt_multicluster_engaged_clusters", {
  description: "Provider clusters engaged with the multi-cluster manager (the hub not counted).",
})

/** Makes a manager; call `start` to run it. */
export const make = (options: ManagerOptions): Effect.Effect<MultiClusterManager, never, Scope.Scope> =>
  Effect.gen(function* () {
    const { hub, provider } = options
    const engaged = new Map<ClusterName, Engaged>()
    const runnables: Array<ClusterAwareRunnable> = []
    const indexes: Array<IndexSpec> = []
    let started: Scope.Scope | undefined
    const countEngaged = Effect.suspend(() => Metric.update(engagedClusters, engaged.size))

    const engageRunnable = (runnable: ClusterAwareRunnable, e: Engaged) =>
      runnable.engage(e.cluster, e.scope).pipe(
        Effect.catch((err) =>
          Effect.logWarning("engaging a runnable failed").pipe(
            Effect.annotateLogs({
              runnable: runnable.name,
              cluster: e.cluster.name,
              error: err.message,
            }),
          ),
        ),
      )

    const engage = (cluster: Cluster, scope: Scope.Scope): Effect.Effect<void, EngageFailed> =>
      Effect.gen(function* () {
        const record: Engaged = { cluster, scope }
        if (cluster.name !== HubCluster) engaged.set(cluster.name, record)
        yield* countEngaged
        yield* Scope.addFinalizer(
          scope,
          Effect.suspend(() => {
            if (engaged.get(cluster.name) === record) engaged.delete(cluster.name)
            return countEngaged
          }),
        )
        yield* Effect.logInfo("engaging cluster").pipe(
          Effect.annotateLogs({ cluster: cluster.name, runnables: runnables.length }),
        )
        yield* Effect.forEach(runnables, (c) => engageRunnable(c, record), { discard: true })
      })

    const disengage = (cluster: Cluster): Effect.Effect<void> =>
      Effect.gen(function* () {
        const record = engaged.get(cluster.name)
        if (record === undefined || record.cluster !== cluster) return
        engaged.delete(cluster.name)
        yield* countEngaged
        yield* Effect.forEach(runnables, (c) => c.disengage(cluster), { discard: true })
      })

    const applyIndexes = (cluster: Cluster): Effect.Effect<void> =>
      Effect.forEach(indexes, (i) => cluster.cache.indexField(i.resource, i.name, i.extract), {
        discard: true,
      })

    const manager: MultiClusterManager = {
      hub,
      provider,
      hasProvider: provider !== undefined,
      engage,
      disengage,
      getCluster: (name) =>
        Effect.suspend(() => {
          if (name === HubCluster) return Effect.succeed(hub)
          const record = engaged.get(name as ClusterName)
          return record === undefined
            ? Effect.fail(
                new ClusterNotFound({
                  cluster: name as ClusterName,
                  message: `cluster "${name}" is not engaged with this manager`,
                }),
              )
            : Effect.succeed(record.cluster)
        }),
      clusters: Effect.sync(() => [...engaged.values()].map((e) => e.cluster)),
      indexField: (resource, name, extract) =>
        Effect.gen(function* () {
          const spec: IndexSpec = { resource, name, extract: extract as unknown as IndexFunc<KubeObject> }
          indexes.push(spec)
          yield* hub.cache.indexField(resource, name, spec.extract)
          if (provider !== undefined) yield* provider.indexField(resource, name, spec.extract)
          yield* Effect.forEach(
            [...engaged.values()],
            (e) => e.cluster.cache.indexField(resource, name, spec.extract),
            {
              discard: true,
            },
          )
        }),
      add: (runnable) =>
        Effect.gen(function* () {
          runnables.push(runnable)
          if (started === undefined) return
          if (runnable.start !== undefined) yield* runnable.start.pipe(Scope.provide(started))
          yield* engageRunnable(runnable, { cluster: hub, scope: started })
          yield* Effect.forEach([...engaged.values()], (e) => engageRunnable(runnable, e), {
            discard: true,
          })
        }),
      controllers: Effect.sync(() => runnables.filter(isController)),
      runnables: Effect.sync(() => [...runnables]),
      applyIndexes,
      unhealthyReason: (name) =>
        provider === undefined
          ? Effect.succeed(undefined)
          : Effect.map(provider.clusters, (all: ReadonlyArray<ClusterState>) => {
              const state = all.find((c) => c.name === name)
              return state !== undefined && !state.healthy ? state.reason || "unhealthy" : undefined
            }),
      start: Effect.gen(function* () {
        const scope = yield* Scope.fork(yield* Effect.scope)
        yield* Effect.addFinalizer(() => Scope.close(scope, Exit.void))
        started = scope
        yield* Effect.forEach(
          runnables,
          (c) => (c.start === undefined ? Effect.void : c.start.pipe(Scope.provide(scope))),
          { discard: true },
        )
        const hubRecord: Engaged = { cluster: hub, scope }
        yield* Effect.forEach(runnables, (c) => engageRunnable(c, hubRecord), { discard: true })
        if (provider !== undefined) {
          const aware =
            options.gate === undefined ? manager : yield* options.gate(manager).pipe(Scope.provide(scope))
          // run may block until the scope closes or return after forking: either way it must not hold start.
          yield* Effect.forkIn(provider.run(aware).pipe(Scope.provide(scope)), scope)
        }
        yield* Effect.logInfo("multi-cluster manager started").pipe(
          Effect.annotateLogs({
            provider: provider?.name ?? "none",
            runnables: runnables.map((c) => c.name).join(","),
          }),
        )
      }),
    }
    return manager
  })
