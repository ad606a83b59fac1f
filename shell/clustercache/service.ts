/**
 * The ClusterCache service (seed 000): one accessor per Cluster, connections to workload
 * clusters, health probes, watches and cluster source events, driven by the pure tables of
 * `core/clustercache`.
 *
 * # Expected flow
 * A controller's work queue calls `reconcile(cluster)` (`reconcile.ts`): one run of the
 * ClusterCache Reconciler table on the table runner, whose actions `interpret.ts` carries out:
 * Connect (the clusterAccessor table, `connect.ts`), the `GET /` probe (`health.ts`),
 * disconnects, events to cluster sources (`sources.ts`), metrics (`metrics.ts`). It returns the
 * requeue and the rows. Callers read clients, readers and REST configs of connected clusters
 * (`registry.ts`, `cachedClient.ts`) and add watches (`watches.ts`).
 *
 * # Guarantees
 * - No lock is held across I/O (seed 000's critical design decision): reading the Secret,
 *   building clients, the reachability check and probes run without holding anything; the
 *   accessor's state is replaced atomically afterwards, so `getClient()` never waits on a slow
 *   cluster.
 * - `getClient()` is the cached client of the connection (`cachedClient.ts`); `watch()` never
 *   waits for an informer. A rotated kubeconfig Secret with the same server and CA replaces the
 *   credentials of the connection's clients (`rotation.ts`, `rotatingClient.ts`) and keeps its
 *   cache. Kubeconfig contents are never logged.
 * - Errors are typed: `ClusterNotConnectedError`, `WatchError`, and `TableLoopError` for a
 *   reconcile whose run does not end within `maxTransitionsPerReconcile` transitions.
 *
 * # Assumptions
 * One `reconcile` per Cluster at a time (the work queue's promise); the rotation's update of a
 * connection's credentials relies on it.
 *
 * @module
 */
import type { KubeConfig } from "@kubernetes/client-node"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import type * as Stream from "effect/Stream"
import {
  type ClusterCacheConfig,
  ClusterCacheDefaults,
  type HealthCheckingState,
} from "../../core/clustercache/index.ts"
import type { TableLoopError } from "../../core/krtt/run.ts"
import { informerCacheFactory } from "../cache/informerCache.ts"
import type { CacheFactory } from "../cache/types.ts"
import { KubeClient, type KubeClientShape } from "../kube/client.ts"
import { type ResourceRef, Resources } from "../kube/resource.ts"
import type { CachedReader } from "./cachedClient.ts"
import type { ClusterKey, ObjectStore } from "./cluster.ts"
import { makeConnect } from "./connect.ts"
import { type ConnectionFactory, restConnectionFactory, type SecretObject } from "./connection.ts"
import type { ClusterNotConnectedError, WatchError } from "./errors.ts"
import { healthCheckingState } from "./health.ts"
import { makeInterpret } from "./interpret.ts"
import { kubeconfigSecretName } from "./kubeconfig.ts"
import { makeObserve } from "./observe.ts"
import { makeReconcile, type ReconcileOutcome } from "./reconcile.ts"
import { makeRegistry } from "./registry.ts"
import { makeReconnectIfRotated } from "./rotation.ts"
import { makeSources } from "./sources.ts"
import { makeWatch, type Watcher } from "./watches.ts"

export { type ClusterKey, ClusterResource } from "./cluster.ts"
export { type ConnectionFactory, restConnectionFactory } from "./connection.ts"
export { ClusterNotConnectedError, WatchError } from "./errors.ts"
export type { ReconcileOutcome } from "./reconcile.ts"
export type { Watcher } from "./watches.ts"

/**
 * Options of a ClusterCache: its numbers, how it connects, where it reads Clusters and kubeconfig
 * Secrets, and the cache its watches run on.
 */
export interface ClusterCacheOptions {
  readonly config?: ClusterCacheConfig | undefined
  readonly connectionFactory?: ConnectionFactory | undefined
  /**
   * Where to read Clusters: the store of a synced Cluster reflector (no request per reconcile).
   * Without it every reconcile GETs its Cluster.
   */
  readonly clusters?: ObjectStore | undefined
  /**
   * The cache of each connection: Watch() takes its informers and the cached client reads its
   * stores. Default: the informer cache (`informerCacheFactory`, an informer per resource started
   * on first use). `scopedCacheFactory` of `krtt/scopedcache` suits an identity that may read only
   * some namespaces.
   */
  readonly cacheFactory?: CacheFactory | undefined
  /**
   * Resources the cached client always reads from the API server (upstream's
   * `Client.Cache.DisableFor`). Default: none.
   */
  readonly disableFor?: ReadonlyArray<ResourceRef> | undefined
  /**
   * Where to read `<cluster>-kubeconfig` Secrets: the store of a synced Secret reflector
   * (label-selected, no request per connect). A Secret not in it is read with a GET. When the
   * Secret in the store no longer matches the one the credentials came from (a rotation), the next
   * reconcile takes the new credentials: for new requests, informers kept, when the server and CA
   * are the same; by disconnecting and connecting again when they changed.
   */
  readonly secrets?: ObjectStore | undefined
}

/** What a ClusterCache does: reconcile a Cluster's connection, and clients, readers and watches for connected clusters. */
export interface ClusterCacheShape {
  /**
   * Reconciles the accessor of one Cluster (the ClusterCache Reconciler table). Fails with
   * `TableLoopError` only when the tables loop (a run longer than `maxTransitionsPerReconcile`).
   */
  readonly reconcile: (cluster: ClusterKey) => Effect.Effect<ReconcileOutcome, TableLoopError>
  /**
   * The cached client (seed 000: "a cached client"): `get` and `list` read the connection's
   * cache, writes go to the API server. The same object for the whole connection, including
   * credential rotations.
   */
  readonly getClient: (cluster: ClusterKey) => Effect.Effect<KubeClientShape, ClusterNotConnectedError>
  /** The cached client's reads, `get` and `list` (seed 000: `GetReader`). */
  readonly getReader: (cluster: ClusterKey) => Effect.Effect<CachedReader, ClusterNotConnectedError>
  readonly getUncachedClient: (
    cluster: ClusterKey,
  ) => Effect.Effect<KubeClientShape, ClusterNotConnectedError>
  readonly getRESTConfig: (cluster: ClusterKey) => Effect.Effect<KubeConfig, ClusterNotConnectedError>
  readonly getHealthCheckingState: (cluster: ClusterKey) => Effect.Effect<HealthCheckingState>
  /**
   * Adds a watch once per connection (Watch Management table) and returns at once: the informer
   * lists and syncs on its own fiber. A watch whose informer stops before it syncs, or does not
   * sync within the initial sync timeout, is dropped and forgotten, so the next call adds it again.
   */
  readonly watch: (
    cluster: ClusterKey,
    watcher: Watcher,
  ) => Effect.Effect<void, ClusterNotConnectedError | WatchError>
  /**
   * A source of Cluster events for a controller: connect, disconnect, and (with
   * `probeFailureDurations`) probes failing for that long. Scoped: closing it unregisters.
   */
  readonly clusterSource: (
    controllerName: string,
    options?: { readonly probeFailureDurations?: ReadonlyArray<number> },
  ) => Effect.Effect<Stream.Stream<ClusterKey>, never, Scope.Scope>
  /** The clusters that have an accessor, and whether each is connected. */
  readonly accessors: () => Effect.Effect<
    ReadonlyArray<{ readonly cluster: ClusterKey; readonly connected: boolean }>
  >
}

/** The ClusterCache as an Effect service, for programs that provide it with `layer`. */
export class ClusterCache extends Context.Service<ClusterCache, ClusterCacheShape>()(
  "krtt/shell/ClusterCache",
) {}

/**
 * Makes a ClusterCache over the management cluster's `KubeClient`. Made in a scope, its
 * connections (their caches, informers and watches) close when that scope closes; made without
 * one, they close only on disconnect.
 */
export const make = (options: ClusterCacheOptions = {}) =>
  Effect.gen(function* () {
    const management = yield* KubeClient
    const parent = yield* Effect.serviceOption(Scope.Scope)
    const config = options.config ?? ClusterCacheDefaults
    const factory = options.connectionFactory ?? restConnectionFactory
    const registry = yield* makeRegistry
    const sources = yield* makeSources
    const secrets = options.secrets
    const connect = makeConnect({
      config,
      factory,
      cacheFactory: options.cacheFactory ?? informerCacheFactory,
      disableFor: options.disableFor,
      parent,
      // The Cluster's kubeconfig Secret: from the Secret store, else a GET.
      readSecret: (cluster) => {
        const key = { namespace: cluster.namespace, name: kubeconfigSecretName(cluster.name) }
        const cached = secrets?.get(key) as SecretObject | undefined
        return cached !== undefined
          ? Effect.succeed(cached)
          : management.get<SecretObject>(Resources.secrets, key)
      },
    })
    const reconcile = makeReconcile({
      config,
      registry,
      observe: makeObserve({ management, clusters: options.clusters, sources, registry }),
      reconnectIfRotated: makeReconnectIfRotated({ config, factory, registry, secrets }),
      interpret: makeInterpret(connect),
    })
    return ClusterCache.of({
      reconcile,
      getClient: (cluster) => Effect.map(registry.connected(cluster), (c) => c.cached),
      getUncachedClient: (cluster) => Effect.map(registry.connected(cluster), (c) => c.uncached.client),
      getRESTConfig: (cluster) => Effect.map(registry.connected(cluster), (c) => c.config),
      getReader: (cluster) => Effect.map(registry.connected(cluster), (c) => c.reader),
      getHealthCheckingState: (cluster) => Effect.map(registry.get(cluster), healthCheckingState),
      watch: makeWatch(config, registry),
      clusterSource: sources.clusterSource,
      accessors: registry.accessors,
    })
  })

/** The ClusterCache over the `KubeClient` of the management cluster. */
export const layer = (options: ClusterCacheOptions = {}): Layer.Layer<ClusterCache, never, KubeClient> =>
  Layer.effect(ClusterCache, make(options))
