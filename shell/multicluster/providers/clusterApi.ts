/**
 * The `cluster-api` provider: every Cluster API `Cluster` of the hub is a cluster named
 * `<namespace>/<name>`, engaged while our ClusterCache (seed 000) holds a connection to it
 * (seed 003, User Stories: "Multi-Cluster Integrator wanting to support cluster managers like
 * Cluster-API": "watching objects in the hub cluster ... For every new cluster create an instance
 * of `cluster.Cluster` and call `mgr.Engage`").
 *
 * # Expected flow
 * The provider runs a ClusterCache over the hub (a Cluster reflector, the ClusterCache and its
 * controller), or uses the manager's own. It listens to the ClusterCache's cluster source
 * (connect and disconnect events) and re-checks every Cluster every probe interval (10 s):
 * - connected, and not engaged or engaged with an older connection → engage a `Cluster` over the
 *   connection's client (a new generation per connection: a reconnect after a 401, i.e. rotated
 *   credentials, engages anew);
 * - disconnected (the ClusterCache's failure threshold of 5 probes, or a 401: ClusterCache
 *   Reconciler rows 10 and 11) → disengage, with the reason;
 * - the Cluster is gone → disengage and forget it.
 * This is health-gated engagement: no upstream provider has it; upstream's engages once the
 * control plane is initialized and never lets go while the Cluster exists.
 *
 * # Guarantees
 * - The gate is the ClusterCache's: its probes (GET / every 10 s, 5 s timeout, threshold 5)
 *   decide; the engine does not probe these clusters a second time.
 *
 * @module
 */
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import { type ClusterCacheConfig, clusterCacheConfig } from "../../../core/clustercache/index.ts"
import { informerCacheFactory } from "../../cache/informerCache.ts"
import type { CacheFactory } from "../../cache/types.ts"
import { makeClusterCacheController } from "../../clustercache/controller.ts"
import {
  type ClusterCacheShape,
  type ClusterKey,
  ClusterResource,
  type ConnectionFactory,
  make as makeClusterCache,
} from "../../clustercache/service.ts"
import { KubeClient, type KubeClientShape } from "../../kube/client.ts"
import type { KubeObject } from "../../kube/resource.ts"
import { make as makeReflector, type Reflector } from "../../reflector/reflector.ts"
import { ClusterName } from "../../workqueue/request.ts"
import type { Provider } from "../types.ts"
import { ClusterSetDefaults, type ClusterSink, makeClusterSet } from "./clusterSet.ts"
import { checkKeys, type Given, type ProviderUsageError, withDefaults } from "./errors.ts"
import { HealthDefaults } from "./health.ts"

/** The provider's name, as `--provider` takes it. */
export const ClusterApiName = "cluster-api"

/** A ClusterCache the manager already runs, with the reflector of its Clusters. */
export interface ExistingClusterCache {
  readonly cache: ClusterCacheShape
  readonly clusters: Reflector<KubeObject>
}

/** Options of the cluster-api provider. */
export interface ClusterApiOptions {
  /** Only Clusters of this namespace (`--provider-namespace`). Default: every namespace. */
  readonly namespace: string | undefined
  /** The ClusterCache's configuration (seed 000's defaults). Ignored with `existing`. */
  readonly clusterCache: ClusterCacheConfig
  /** ClusterCache reconciles at a time. Default 100 (Cluster API's `--clustercache-concurrency`). */
  readonly concurrency: number
  /** How often every Cluster is checked besides the ClusterCache's events. Default 10 s (its probe interval). */
  readonly resyncInterval: Duration.Input
  /** Use this ClusterCache instead of starting one. */
  readonly existing: ExistingClusterCache | undefined
  /** The ClusterCache's connections (tests map servers to in-memory fakes). Default: REST clients. */
  readonly connectionFactory: ConnectionFactory | undefined
  readonly cacheFactory: CacheFactory
  readonly syncTimeout: Duration.Input
}

/** The cluster-api provider's defaults: every namespace, the ClusterCache's documented numbers, 100 reconciles at a time. */
export const ClusterApiDefaults: ClusterApiOptions = {
  namespace: undefined,
  clusterCache: clusterCacheConfig(),
  concurrency: 100,
  resyncInterval: "10 seconds",
  existing: undefined,
  connectionFactory: undefined,
  cacheFactory: informerCacheFactory,
  syncTimeout: ClusterSetDefaults.syncTimeout,
}

/** The cluster name of a Cluster: `<namespace>/<name>`. */
export const clusterApiName = (key: ClusterKey): ClusterName => ClusterName(`${key.namespace}/${key.name}`)

/** The ClusterCache the provider listens to, with the reflector of its Clusters. */
interface Source extends ExistingClusterCache {
  /** The ClusterCache's connect and disconnect events. */
  readonly events: Stream.Stream<ClusterKey>
}

/** Uses the manager's ClusterCache, or starts one over the hub (reflector, cache, controller). */
const openSource = (hub: KubeClientShape, options: ClusterApiOptions) =>
  Effect.gen(function* () {
    if (options.existing !== undefined) {
      const events = yield* options.existing.cache.clusterSource(`multicluster-${ClusterApiName}`)
      return { ...options.existing, events } satisfies Source
    }
    const clusters = yield* makeReflector(hub, {
      resource: ClusterResource,
      namespace: options.namespace,
      name: `${ClusterApiName}/clusters`,
    })
    const cache = yield* makeClusterCache({
      config: options.clusterCache,
      clusters: clusters.store,
      connectionFactory: options.connectionFactory,
    }).pipe(Effect.provideService(KubeClient, hub))
    // Registered before the controller starts, so that no connect event is missed.
    const events = yield* cache.clusterSource(`multicluster-${ClusterApiName}`)
    const controller = yield* makeClusterCacheController(cache, clusters, {
      concurrency: options.concurrency,
    })
    yield* controller.start
    return { cache, clusters, events } satisfies Source
  })

/** Why a Cluster without a connection is not engaged, from its ClusterCache health. */
const rejectReason = (consecutiveFailures: number, failureThreshold: number, wasEngaged: boolean): string =>
  consecutiveFailures >= failureThreshold
    ? `the ClusterCache disconnected it: ${consecutiveFailures} probes failed in a row (threshold ${failureThreshold})`
    : wasEngaged
      ? "the ClusterCache disconnected it (credentials refused, 401, or the connection stopped); waiting to reconnect"
      : "waiting for the ClusterCache to connect"

/**
 * The checks that tell the engine about Clusters: `check` one Cluster (engage its connection,
 * reject it while disconnected, remove it when gone) and `checkAll` (every Cluster of the store
 * and every name the engine knows).
 */
const makeChecks = (sink: ClusterSink, source: Source, options: ClusterApiOptions) => {
  const { cache, clusters } = source
  const failureThreshold = options.clusterCache.healthProbe.failureThreshold
  /** The connection each engaged cluster was built on, and a counter for generations. */
  const engagedOn = new Map<string, KubeClientShape>()
  const generations = new WeakMap<KubeClientShape, number>()
  let nextGeneration = 0

  const check = (key: ClusterKey): Effect.Effect<void> =>
    Effect.gen(function* () {
      if (options.namespace !== undefined && key.namespace !== options.namespace) return
      const name = clusterApiName(key)
      if (clusters.store.get(key) === undefined) {
        engagedOn.delete(name)
        return yield* sink.remove(name)
      }
      const client = yield* Effect.result(cache.getClient(key))
      if (client._tag === "Success") {
        if (engagedOn.get(name) === client.success) return
        engagedOn.set(name, client.success)
        let generation = generations.get(client.success)
        if (generation === undefined) {
          generation = ++nextGeneration
          generations.set(client.success, generation)
        }
        return yield* sink.upsert({
          name,
          generation: `connection-${generation}`,
          healthGated: false,
          connect: Effect.succeed({ client: client.success }),
        })
      }
      const health = yield* cache.getHealthCheckingState(key)
      const wasEngaged = engagedOn.delete(name)
      const reason = rejectReason(health.consecutiveFailures, failureThreshold, wasEngaged)
      return yield* sink.reject(name, reason, !(wasEngaged || health.consecutiveFailures >= failureThreshold))
    })

  const checkAll = Effect.gen(function* () {
    const keys = new Map<string, ClusterKey>()
    for (const o of clusters.store.list()) {
      const key = { namespace: o.metadata.namespace ?? "", name: o.metadata.name ?? "" }
      keys.set(clusterApiName(key), key)
    }
    for (const name of sink.names()) {
      if (keys.has(name)) continue
      const at = name.indexOf("/")
      keys.set(name, { namespace: name.slice(0, at), name: name.slice(at + 1) })
    }
    yield* Effect.forEach([...keys.values()], check, { discard: true })
  })

  return { check, checkAll }
}

/** Makes the provider over the hub's client. */
export const makeClusterApiProvider = (
  hub: KubeClientShape,
  given: Given<ClusterApiOptions> = {},
): Effect.Effect<Provider, ProviderUsageError> =>
  Effect.gen(function* () {
    yield* checkKeys(`${ClusterApiName} options`, given, Object.keys(ClusterApiDefaults))
    const options = withDefaults(ClusterApiDefaults, given)
    const probe = options.clusterCache.healthProbe
    const set = makeClusterSet({
      provider: ClusterApiName,
      // Used for the retry rhythm of a connection that failed to engage; the probes are the ClusterCache's.
      health: {
        ...HealthDefaults,
        interval: probe.interval,
        timeout: probe.timeout,
        failureThreshold: probe.failureThreshold,
      },
      cacheFactory: options.cacheFactory,
      syncTimeout: options.syncTimeout,
    })

    const run: Provider["run"] = (aware) =>
      Effect.gen(function* () {
        const sink = yield* set.bind(aware)
        const source = yield* openSource(hub, options)
        const { check, checkAll } = makeChecks(sink, source, options)
        yield* Effect.forkScoped(Stream.runForEach(source.events, check))
        yield* source.clusters.subscribe((event) =>
          check({ namespace: event.object.metadata.namespace ?? "", name: event.object.metadata.name ?? "" }),
        )
        yield* Effect.forkScoped(Effect.repeat(checkAll, Schedule.spaced(options.resyncInterval)))
      })

    return {
      name: ClusterApiName,
      get: set.get,
      indexField: set.indexField,
      run,
      clusters: set.clusters,
    } satisfies Provider
  })
