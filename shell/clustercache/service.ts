/**
 * The ClusterCache service (seed 000): one accessor per Cluster, connections to workload
 * clusters, health probes, watches and cluster source events, driven by the pure tables of
 * `core/clustercache`.
 *
 * Expected flow: a controller's work queue calls `reconcile(cluster)`; it feeds the ClusterCache
 * Reconciler table the accessor's state, the Cluster and `now`, and performs the actions the
 * deciding rows ask for: Connect (through the clusterAccessor table's steps), the `GET /` probe,
 * disconnects, events to cluster sources, metrics. It returns the requeue and the rows.
 *
 * Guarantees: no lock is held across I/O (seed 000's critical design decision): reading the
 * Secret, building clients, the reachability check and probes run without holding anything;
 * the accessor's state is replaced atomically afterwards, so `getClient()` never waits on a slow
 * cluster. Kubeconfig contents are never logged.
 *
 * Assumptions: one `reconcile` per Cluster at a time (the work queue's promise).
 *
 * @module
 */
import { createHash } from "node:crypto"
import type { KubeConfig } from "@kubernetes/client-node"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Queue from "effect/Queue"
import * as Ref from "effect/Ref"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import {
  type AccessorState,
  accessorTransition,
  type ClusterCacheConfig,
  ClusterCacheDefaults,
  type ClusterSource,
  type ClusterView,
  type HealthCheckingState,
  type ReconcilerAction,
  type ReconcilerTrigger,
  reconcilerTransition,
  watchTransition,
} from "../../core/clustercache/index.ts"
import type { RowId } from "../../core/krtt/index.ts"
import type { Cache, CacheFactory } from "../cache/types.ts"
import { KubeClient, type KubeClientShape } from "../kube/client.ts"
import { isKubeError, type KubeError } from "../kube/errors.ts"
import { type KubeObject, keyOf, type ObjectKey, type ResourceRef, Resources } from "../kube/resource.ts"
import { makeRestClient } from "../kube/restClient.ts"
import { make as makeReflector, type ReflectorEvent } from "../reflector/reflector.ts"
import type { ReadonlyStore } from "../reflector/store.ts"
import {
  InvalidKubeconfig,
  kubeconfigFromSecret,
  kubeconfigSecretName,
  parseKubeconfig,
} from "./kubeconfig.ts"
import { applyMetrics, removeClusterMetrics } from "./metrics.ts"

/** The Cluster resource of `cluster.x-k8s.io/v1beta2`. */
export const ClusterResource: ResourceRef = {
  group: "cluster.x-k8s.io",
  version: "v1beta2",
  resource: "clusters",
  kind: "Cluster",
  namespaced: true,
}

/** A Cluster: namespace and name. */
export interface ClusterKey {
  readonly namespace: string
  readonly name: string
}

/** Returned when the cluster has no connection (accessor absent or disconnected). */
export class ErrClusterNotConnected extends Data.TaggedError("ErrClusterNotConnected")<{
  readonly cluster: string
  readonly message: string
}> {}

/** `Watch()` failed: an empty name, or the watch could not start. */
export class WatchError extends Data.TaggedError("WatchError")<{
  readonly cluster: string
  readonly message: string
}> {}

/** A connection to one workload cluster. */
interface Connection {
  readonly config: KubeConfig
  readonly client: KubeClientShape
  readonly uncached: KubeClientShape
  /** Owns the cache's watches; closed on disconnect. */
  readonly scope: Scope.Closeable
  /** Objects seen by each watch, by watch name then `namespace/name`. */
  readonly stores: Map<string, { readonly resource: ResourceRef; readonly store: ReadonlyStore<KubeObject> }>
  /** The cluster's cache when `ClusterCacheOptions.cacheFactory` is set; Watch() takes its informers. */
  readonly cache?: Cache | undefined
  /** A digest of the kubeconfig the connection was made with: a rotated Secret differs. */
  readonly kubeconfigDigest?: string | undefined
}

interface Entry {
  readonly state: AccessorState
  readonly connection: Connection | undefined
}

/** A watch on a workload cluster: a resource and what to do with each event. */
export interface Watcher {
  readonly name: string
  readonly resource: ResourceRef
  readonly namespace?: string | undefined
  readonly onEvent: (event: ReflectorEvent<KubeObject>) => Effect.Effect<void>
}

/** Builds the clients of a workload cluster from its kubeconfig; replaceable in tests. */
export type ConnectionFactory = (kc: KubeConfig, config: ClusterCacheConfig) => Effect.Effect<KubeClientShape>

/** Connects over HTTP with the REST client, at the configured timeout, QPS, burst and user agent. */
export const restConnectionFactory: ConnectionFactory = (kc, config) =>
  makeRestClient(kc, {
    timeout: config.client.timeout,
    qps: config.client.qps,
    burst: config.client.burst,
    userAgent: config.client.userAgent,
  })

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
  readonly clusters?: { readonly get: (key: ObjectKey) => KubeObject | undefined } | undefined
  /**
   * Runs each cluster's watches on a cache of this factory (e.g. `scopedCacheFactory` of
   * `shell/scopedcache/`, for an identity that may read only some namespaces) instead of one
   * reflector per watch. Default: none, a reflector per watch.
   */
  readonly cacheFactory?: CacheFactory | undefined
  /**
   * Where to read `<cluster>-kubeconfig` Secrets: the store of a synced Secret reflector
   * (label-selected, no request per connect). A Secret not in it is read with a GET. When the
   * Secret in the store no longer matches the kubeconfig a connection was made with (a rotation),
   * the next reconcile disconnects and connects again with the new credentials at once.
   */
  readonly secrets?: { readonly get: (key: ObjectKey) => KubeObject | undefined } | undefined
}

/** The outcome of one reconcile. */
export interface ReconcileOutcome {
  readonly requeueAfter: number | undefined
  readonly rows: ReadonlyArray<RowId>
}

/** What a ClusterCache does: reconcile a Cluster's connection, and clients, readers and watches for connected clusters. */
export interface ClusterCacheShape {
  /** Reconciles the accessor of one Cluster (the ClusterCache Reconciler table). */
  readonly reconcile: (cluster: ClusterKey) => Effect.Effect<ReconcileOutcome>
  readonly getClient: (cluster: ClusterKey) => Effect.Effect<KubeClientShape, ErrClusterNotConnected>
  /** Reads served from the cache's watches where one covers the resource, else live. */
  readonly getReader: (cluster: ClusterKey) => Effect.Effect<CachedReader, ErrClusterNotConnected>
  readonly getUncachedClient: (cluster: ClusterKey) => Effect.Effect<KubeClientShape, ErrClusterNotConnected>
  readonly getRESTConfig: (cluster: ClusterKey) => Effect.Effect<KubeConfig, ErrClusterNotConnected>
  readonly getHealthCheckingState: (cluster: ClusterKey) => Effect.Effect<HealthCheckingState>
  /** Adds a watch once per connection (Watch Management table). */
  readonly watch: (
    cluster: ClusterKey,
    watcher: Watcher,
  ) => Effect.Effect<void, ErrClusterNotConnected | WatchError>
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

/** Reads from the cache. */
export interface CachedReader {
  readonly get: (resource: ResourceRef, key: ObjectKey) => Effect.Effect<KubeObject, KubeError>
}

/** The ClusterCache as an Effect service, for programs that provide it with `layer`. */
export class ClusterCache extends Context.Service<ClusterCache, ClusterCacheShape>()(
  "krtt/shell/ClusterCache",
) {}

/** A digest of a kubeconfig Secret's data (never logged, never the content itself). */
const kubeconfigDigest = (secret: KubeObject & { data?: Record<string, string> }): string =>
  createHash("sha256")
    .update(JSON.stringify(secret.data ?? {}))
    .digest("hex")

const probeOutcome = (e: KubeError) => (e._tag === "Unauthorized" ? "unauthorized" : "failure")
const describe = (e: unknown) => (isKubeError(e) || e instanceof InvalidKubeconfig ? e.message : String(e))

/** Makes a ClusterCache over the management cluster's `KubeClient`. */
export const make = (options: ClusterCacheOptions = {}) =>
  Effect.gen(function* () {
    const management = yield* KubeClient
    const config = options.config ?? ClusterCacheDefaults
    const factory = options.connectionFactory ?? restConnectionFactory
    const entries = yield* Ref.make(new Map<string, Entry>())
    const sources = yield* Ref.make(
      new Map<string, { readonly source: ClusterSource; readonly queue: Queue.Queue<ClusterKey> }>(),
    )

    const entryOf = (cluster: ClusterKey) => Effect.map(Ref.get(entries), (m) => m.get(keyOf(cluster)))
    const setEntry = (cluster: ClusterKey, entry: Entry | undefined) =>
      Ref.update(entries, (m) => {
        const next = new Map(m)
        if (entry === undefined) next.delete(keyOf(cluster))
        else next.set(keyOf(cluster), entry)
        return next
      })

    const viewOf = (obj: KubeObject): ClusterView => ({
      _tag: "Found",
      infrastructureProvisioned:
        (obj as { status?: { initialization?: { infrastructureProvisioned?: boolean } } }).status
          ?.initialization?.infrastructureProvisioned === true,
      deleting: obj.metadata.deletionTimestamp !== undefined,
    })
    const store = options.clusters
    const readCluster = (cluster: ClusterKey): Effect.Effect<ClusterView> =>
      store !== undefined
        ? Effect.sync(() => {
            const obj = store.get(cluster)
            return obj === undefined ? ({ _tag: "NotFound" } as const) : viewOf(obj)
          })
        : management.get(ClusterResource, cluster).pipe(
            Effect.map(viewOf),
            Effect.catch(
              (e): Effect.Effect<ClusterView> =>
                Effect.succeed(
                  e._tag === "NotFound" ? { _tag: "NotFound" } : { _tag: "GetFailed", error: e.message },
                ),
            ),
          )

    const closeConnection = (c: Connection | undefined) =>
      c === undefined ? Effect.void : Scope.close(c.scope, Exit.void)

    /** Connect(): the clusterAccessor table's steps, with the I/O between them done lock-free. */
    const connect = (cluster: ClusterKey, state: AccessorState, rows: Array<RowId>) =>
      Effect.gen(function* () {
        const desired = { clientCertificatePrivateKey: "disabled" as const }
        const step = (trigger: Parameters<typeof accessorTransition>[0]["trigger"], s: AccessorState) =>
          Effect.map(Clock.currentTimeMillis, (now) => {
            const r = accessorTransition({ observed: s, desired, trigger, now }, config)
            rows.push(r.row)
            return r
          })
        const first = yield* step({ _tag: "Connect" }, state)
        if (first.status.connect !== "pending") return { state: first.status.accessor, connection: undefined }
        const secretName = kubeconfigSecretName(cluster.name)
        const scope = yield* Scope.make()
        const attempt = Effect.gen(function* () {
          // Row 1: the REST config from the kubeconfig Secret, and reachability (`GET /`).
          const cached = options.secrets?.get({ namespace: cluster.namespace, name: secretName }) as
            | (KubeObject & { data?: Record<string, string> })
            | undefined
          const secret =
            cached ??
            (yield* management.get<KubeObject & { data?: Record<string, string> }>(Resources.secrets, {
              namespace: cluster.namespace,
              name: secretName,
            }))
          const kc = yield* parseKubeconfig(yield* kubeconfigFromSecret(secret, secretName), secretName)
          const client = yield* factory(kc, config)
          yield* client.probe({ timeout: config.healthProbe.timeout }).pipe(
            Effect.mapError(
              (e) =>
                new InvalidKubeconfig({
                  message:
                    e._tag === "Unauthorized" || e._tag === "Forbidden"
                      ? `the workload cluster refused the credentials of secret ${secretName} (${e._tag})`
                      : `cluster is not reachable: ${e.message}`,
                }),
            ),
          )
          yield* step({ _tag: "ConnectionCreated" }, state)
          // Row 2: clients and a started cache (its watches are added by Watch()).
          const uncached = yield* factory(kc, config)
          const cache =
            options.cacheFactory === undefined
              ? undefined
              : yield* Effect.tap(
                  options.cacheFactory(client, { cluster: keyOf(cluster) }),
                  (c) => c.start,
                ).pipe(Scope.provide(scope))
          const connection: Connection = {
            config: kc,
            client,
            uncached,
            scope,
            stores: new Map(),
            cache,
            kubeconfigDigest: kubeconfigDigest(secret),
          }
          yield* step({ _tag: "CacheStarted" }, state)
          // Row 3: the cache starts empty, so it is synced at once; watches sync on their own.
          return connection
        })
        const result = yield* Effect.result(attempt)
        if (result._tag === "Failure") {
          yield* Scope.close(scope, Exit.void)
          const r = yield* step(
            { _tag: "ConnectionFailed", step: "createConnection", error: describe(result.failure) },
            state,
          )
          yield* applyMetrics(cluster, r.actions)
          yield* Effect.logWarning("connection to the workload cluster failed").pipe(
            Effect.annotateLogs({ cluster: keyOf(cluster), error: describe(result.failure), row: r.row }),
          )
          return { state: r.status.accessor, connection: undefined }
        }
        const synced = yield* step({ _tag: "CacheSynced" }, state)
        yield* applyMetrics(cluster, synced.actions)
        return { state: synced.status.accessor, connection: result.success }
      })

    /**
     * A rotated kubeconfig Secret (its content differs from the one the connection was made
     * with, as the Secret store shows it, without a request): Disconnect() (clusterAccessor row
     * 6) so that this reconcile connects again with the new credentials at once, without waiting
     * for the old ones to fail (upstream's newer behaviour; seed 000 is silent).
     */
    const reconnectIfRotated = (cluster: ClusterKey, entry: Entry | undefined, rows: Array<RowId>) =>
      Effect.gen(function* () {
        const c = entry?.connection
        if (entry === undefined || c === undefined || !entry.state.connected || options.secrets === undefined)
          return entry
        const secret = options.secrets.get({
          namespace: cluster.namespace,
          name: kubeconfigSecretName(cluster.name),
        })
        if (secret === undefined || kubeconfigDigest(secret) === c.kubeconfigDigest) return entry
        const now = yield* Clock.currentTimeMillis
        const r = accessorTransition(
          {
            observed: entry.state,
            desired: { clientCertificatePrivateKey: "disabled" },
            trigger: { _tag: "Disconnect" },
            now,
          },
          config,
        )
        rows.push(r.row)
        yield* closeConnection(c)
        yield* applyMetrics(cluster, r.actions)
        yield* Effect.logInfo("the kubeconfig Secret changed: reconnecting with the new credentials").pipe(
          Effect.annotateLogs({ cluster: keyOf(cluster), row: r.row }),
        )
        const next: Entry = { state: r.status.accessor, connection: undefined }
        yield* setEntry(cluster, next)
        return next
      })

    const reconcile = (cluster: ClusterKey): Effect.Effect<ReconcileOutcome> =>
      Effect.gen(function* () {
        const rows: Array<RowId> = []
        const clusterView = yield* readCluster(cluster)
        const registered = yield* Ref.get(sources)
        const desired = { cluster: clusterView, sources: [...registered.values()].map((s) => s.source) }
        let entry = yield* entryOf(cluster)
        entry = yield* reconnectIfRotated(cluster, entry, rows)
        let trigger: ReconcilerTrigger = { _tag: "Reconcile" }
        let requeueAfter: number | undefined
        for (let guard = 0; guard < 16; guard++) {
          const now = yield* Clock.currentTimeMillis
          const r = reconcilerTransition(
            { observed: { accessor: entry?.state }, desired, trigger, now },
            config,
          )
          rows.push(r.row)
          let connection = entry?.connection
          let next: ReconcilerTrigger | undefined
          let state = r.status.accessor
          for (const action of r.actions as ReadonlyArray<ReconcilerAction>) {
            switch (action._tag) {
              case "Connect": {
                if (state === undefined) break
                const c = yield* connect(cluster, state, rows)
                state = c.state
                connection = c.connection
                next = { _tag: "ConnectFinished", ok: c.connection !== undefined }
                break
              }
              case "Probe": {
                const probe = connection?.client.probe({ timeout: action.timeout }) ?? Effect.void
                const outcome = yield* Effect.result(probe)
                next = {
                  _tag: "ProbeFinished",
                  outcome: outcome._tag === "Success" ? "success" : probeOutcome(outcome.failure),
                }
                break
              }
              case "StopCache":
                yield* closeConnection(connection)
                connection = undefined
                break
              case "SendEvent": {
                const s = registered.get(action.source)
                if (s !== undefined) yield* Queue.offer(s.queue, cluster)
                break
              }
              case "Continue":
                next = action.trigger
                break
              case "Requeue":
                requeueAfter = action.after
                break
              case "Log":
                yield* Effect.logDebug(action.message).pipe(
                  Effect.annotateLogs({ cluster: keyOf(cluster), row: r.row }),
                )
                break
              case "SetConnectionUp":
              case "SetHealthCheck":
              case "IncHealthChecksTotal":
                yield* applyMetrics(cluster, [action])
                break
              case "DeleteAccessor":
                yield* removeClusterMetrics(cluster)
                break
              case "CreateAccessor":
              case "CleanupSources":
                break
            }
          }
          entry = state === undefined ? undefined : { state, connection }
          yield* setEntry(cluster, entry)
          if (r.status.done || next === undefined) break
          trigger = next
        }
        yield* Effect.logDebug("clustercache reconciled").pipe(
          Effect.annotateLogs({
            cluster: keyOf(cluster),
            rows: rows.join(" "),
            requeueAfter: requeueAfter ?? "none",
          }),
        )
        return { requeueAfter, rows }
      })

    const connected = (cluster: ClusterKey) =>
      Effect.flatMap(entryOf(cluster), (e) =>
        e?.connection === undefined || !e.state.connected
          ? Effect.fail(
              new ErrClusterNotConnected({
                cluster: keyOf(cluster),
                message: "connection to the workload cluster is down",
              }),
            )
          : Effect.succeed(e.connection),
      )

    const watch = (
      cluster: ClusterKey,
      watcher: Watcher,
    ): Effect.Effect<void, ErrClusterNotConnected | WatchError> =>
      Effect.gen(function* () {
        const e = yield* entryOf(cluster)
        if (e === undefined) {
          return yield* new ErrClusterNotConnected({
            cluster: keyOf(cluster),
            message: "no accessor for the cluster",
          })
        }
        const now = yield* Clock.currentTimeMillis
        const observed = {
          connected: e.state.connected && e.connection !== undefined,
          watches: e.state.watches,
        }
        const r = watchTransition({
          observed,
          desired: { name: watcher.name },
          trigger: { _tag: "Watch" },
          now,
        })
        if (r.status.outcome === "ok") return
        if (r.status.outcome === "error") {
          const message = r.status.error?.message ?? "watch failed"
          return yield* r.status.error?._tag === "ErrClusterNotConnected"
            ? new ErrClusterNotConnected({ cluster: keyOf(cluster), message })
            : new WatchError({ cluster: keyOf(cluster), message })
        }
        const c = e.connection as Connection
        // The watch is a reflector (list, then watch with bookmarks) in the connection's scope:
        // a disconnect stops it with the cache. It must sync within the initial sync timeout.
        const watchScope = yield* Scope.fork(c.scope)
        const cache = c.cache
        const started = yield* Effect.gen(function* () {
          const reflector =
            cache === undefined
              ? yield* makeReflector(c.client, {
                  resource: watcher.resource,
                  namespace: watcher.namespace,
                  name: `${keyOf(cluster)}/${watcher.name}`,
                })
              : yield* Effect.catch(
                  cache.getInformer(watcher.resource, { namespace: watcher.namespace }),
                  (e) => Effect.succeed({ failed: e.message } as const),
                )
          if ("failed" in reflector) return reflector
          yield* reflector.subscribe(watcher.onEvent)
          return reflector
        }).pipe(Scope.provide(watchScope))
        // A cache's informer may stop without syncing (the scoped cache's on 403): not synced.
        const synced =
          "failed" in started
            ? ({ _tag: "None" } as const)
            : yield* Effect.timeoutOption(
                Effect.andThen(started.waitForSync, started.hasSynced),
                config.initialSyncTimeout,
              )
        if ("failed" in started || synced._tag === "None" || synced.value === false) {
          const status =
            "failed" in started
              ? { lastError: { message: started.failed } }
              : "status" in started
                ? yield* started.status
                : { lastError: undefined }
          yield* Scope.close(watchScope, Exit.void)
          const failed = watchTransition({
            observed,
            desired: { name: watcher.name },
            trigger: {
              _tag: "WatchFailed",
              error: `${"failed" in started ? "the cache has no informer for it" : synced._tag === "Some" ? "the cache's informer stopped before it synced" : `not synced within ${config.initialSyncTimeout} ms`}${status.lastError === undefined ? "" : `: ${status.lastError.message}`}`,
            },
            now,
          })
          return yield* new WatchError({
            cluster: keyOf(cluster),
            message: failed.status.error?.message ?? "watch failed",
          })
        }
        c.stores.set(watcher.name, { resource: watcher.resource, store: started.store })
        const done = watchTransition({
          observed,
          desired: { name: watcher.name },
          trigger: { _tag: "WatchStarted" },
          now,
        })
        yield* Ref.update(entries, (m) => {
          const cur = m.get(keyOf(cluster))
          if (cur === undefined || cur.connection !== c) return m
          const next = new Map(m)
          next.set(keyOf(cluster), { ...cur, state: { ...cur.state, watches: done.status.watches } })
          return next
        })
      })

    return ClusterCache.of({
      reconcile,
      getClient: (cluster) => Effect.map(connected(cluster), (c) => c.client),
      getUncachedClient: (cluster) => Effect.map(connected(cluster), (c) => c.uncached),
      getRESTConfig: (cluster) => Effect.map(connected(cluster), (c) => c.config),
      getReader: (cluster) =>
        Effect.map(connected(cluster), (c) => ({
          get: (resource: ResourceRef, key: ObjectKey) => {
            for (const { resource: watched, store } of c.stores.values()) {
              if (watched.group !== resource.group || watched.resource !== resource.resource) continue
              const hit = store.get(key)
              if (hit !== undefined) return Effect.succeed(hit)
            }
            return c.client.get(resource, key)
          },
        })),
      getHealthCheckingState: (cluster) =>
        Effect.map(entryOf(cluster), (e) => ({
          lastProbeTime: e?.state.lastProbeTime,
          lastProbeSuccessTime: e?.state.lastProbeSuccessTime,
          consecutiveFailures: e?.state.consecutiveFailures ?? 0,
        })),
      watch,
      clusterSource: (controllerName, opts = {}) =>
        Effect.gen(function* () {
          const queue = yield* Queue.unbounded<ClusterKey>()
          const source = { name: controllerName, probeFailureDurations: opts.probeFailureDurations ?? [] }
          yield* Ref.update(sources, (m) => new Map(m).set(controllerName, { source, queue }))
          yield* Effect.addFinalizer(() =>
            Ref.update(sources, (m) => {
              const next = new Map(m)
              next.delete(controllerName)
              return next
            }),
          )
          return Stream.fromQueue(queue)
        }),
      accessors: () =>
        Effect.map(Ref.get(entries), (m) =>
          [...m.entries()].map(([k, e]) => {
            const [namespace, name] = k.split("/") as [string, string]
            return { cluster: { namespace, name }, connected: e.state.connected }
          }),
        ),
    })
  })

/** The ClusterCache over the `KubeClient` of the management cluster. */
export const layer = (options: ClusterCacheOptions = {}): Layer.Layer<ClusterCache, never, KubeClient> =>
  Layer.effect(ClusterCache, make(options))
