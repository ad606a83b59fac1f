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
 * cluster. `getClient()` is the cached client of the connection (`cachedClient.ts`); `watch()`
 * never waits for an informer. A rotated kubeconfig Secret with the same server and CA replaces
 * the credentials of the connection's clients (`rotatingClient.ts`) and keeps its cache.
 * Kubeconfig contents are never logged.
 *
 * Assumptions: one `reconcile` per Cluster at a time (the work queue's promise); the rotation's
 * update of a connection's credentials relies on it.
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
  type ConnectStep,
  type HealthCheckingState,
  type ReconcilerAction,
  type ReconcilerTrigger,
  reconcilerTransition,
  watchTransition,
} from "../../core/clustercache/index.ts"
import type { RowId } from "../../core/krtt/index.ts"
import { informerCacheFactory } from "../cache/informerCache.ts"
import type { Cache, CacheFactory, Informer } from "../cache/types.ts"
import { KubeClient, type KubeClientShape } from "../kube/client.ts"
import { isKubeError, type KubeError, Timeout } from "../kube/errors.ts"
import { type KubeObject, keyOf, type ObjectKey, type ResourceRef, Resources } from "../kube/resource.ts"
import { makeRestClient } from "../kube/restClient.ts"
import type { ReflectorEvent } from "../reflector/reflector.ts"
import { type CachedReader, makeCachedClient, makeCachedReader } from "./cachedClient.ts"
import {
  endpointOf,
  InvalidKubeconfig,
  kubeconfigFromSecret,
  kubeconfigSecretName,
  parseKubeconfig,
} from "./kubeconfig.ts"
import { applyMetrics, removeClusterMetrics } from "./metrics.ts"
import { makeRotatingClient, type RotatingClient } from "./rotatingClient.ts"

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
  /** The REST config of the current credentials (replaced by a rotation that keeps the endpoint). */
  config: KubeConfig
  /** The live client the cache's informers, writes and probes use; its credentials can rotate. */
  readonly live: RotatingClient
  readonly uncached: RotatingClient
  /** `GetClient`'s client: reads from `cache`, writes on `live`. */
  readonly cached: KubeClientShape
  readonly reader: CachedReader
  /** Owns the cache and its watches; closed on disconnect. */
  readonly scope: Scope.Closeable
  /** The cluster's cache: Watch() takes its informers, the cached client reads its stores. */
  readonly cache: Cache
  /** A digest of the kubeconfig Secret the current credentials came from: a rotated Secret differs. */
  kubeconfigDigest: string
  /** The server and CA the connection was made to (`endpointOf`). */
  readonly endpoint: string
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
  /**
   * The cached client (seed 000: "a cached client"): `get` and `list` read the connection's
   * cache, writes go to the API server. The same object for the whole connection, including
   * credential rotations.
   */
  readonly getClient: (cluster: ClusterKey) => Effect.Effect<KubeClientShape, ErrClusterNotConnected>
  /** The cached client's reads, `get` and `list` (seed 000: `GetReader`). */
  readonly getReader: (cluster: ClusterKey) => Effect.Effect<CachedReader, ErrClusterNotConnected>
  readonly getUncachedClient: (cluster: ClusterKey) => Effect.Effect<KubeClientShape, ErrClusterNotConnected>
  readonly getRESTConfig: (cluster: ClusterKey) => Effect.Effect<KubeConfig, ErrClusterNotConnected>
  readonly getHealthCheckingState: (cluster: ClusterKey) => Effect.Effect<HealthCheckingState>
  /**
   * Adds a watch once per connection (Watch Management table) and returns at once: the informer
   * lists and syncs on its own fiber. A watch whose informer stops before it syncs, or does not
   * sync within the initial sync timeout, is dropped and forgotten, so the next call adds it again.
   */
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

/** The ClusterCache as an Effect service, for programs that provide it with `layer`. */
export class ClusterCache extends Context.Service<ClusterCache, ClusterCacheShape>()(
  "krtt/shell/ClusterCache",
) {}

/** A digest of a kubeconfig Secret's data (never logged, never the content itself). */
const kubeconfigDigest = (secret: SecretObject): string =>
  createHash("sha256")
    .update(JSON.stringify(secret.data ?? {}))
    .digest("hex")

type SecretObject = KubeObject & { data?: Record<string, string> }

/** The error of a `GET /` with a kubeconfig's credentials, without the kubeconfig. */
const refused = (secretName: string) => (e: KubeError) =>
  new InvalidKubeconfig({
    message:
      e._tag === "Unauthorized" || e._tag === "Forbidden"
        ? `the workload cluster refused the credentials of secret ${secretName} (${e._tag})`
        : `cluster is not reachable: ${e.message}`,
  })

const probeOutcome = (e: KubeError) => (e._tag === "Unauthorized" ? "unauthorized" : "failure")
const describe = (e: unknown) => (isKubeError(e) || e instanceof InvalidKubeconfig ? e.message : String(e))

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

    const cacheFactory = options.cacheFactory ?? informerCacheFactory

    /** The Cluster's kubeconfig Secret: from the Secret store, else a GET. */
    const readSecret = (cluster: ClusterKey): Effect.Effect<SecretObject, KubeError> => {
      const key = { namespace: cluster.namespace, name: kubeconfigSecretName(cluster.name) }
      const cached = options.secrets?.get(key) as SecretObject | undefined
      return cached !== undefined
        ? Effect.succeed(cached)
        : management.get<SecretObject>(Resources.secrets, key)
    }

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
        const scope = parent._tag === "Some" ? yield* Scope.fork(parent.value) : yield* Scope.make()
        let failedStep: ConnectStep = "createConnection"
        const attempt = Effect.gen(function* () {
          // Row 1: the REST config from the kubeconfig Secret, and reachability (`GET /`).
          const secret = yield* readSecret(cluster)
          const kc = yield* parseKubeconfig(yield* kubeconfigFromSecret(secret, secretName), secretName)
          const client = yield* factory(kc, config)
          yield* client
            .probe({ timeout: config.healthProbe.timeout })
            .pipe(Effect.mapError(refused(secretName)))
          yield* step({ _tag: "ConnectionCreated" }, state)
          // Row 2: clients and a started cache (its informers come with reads and Watch()).
          failedStep = "createClients"
          const live = makeRotatingClient(client)
          const uncached = makeRotatingClient(yield* factory(kc, config))
          const cache = yield* Effect.tap(
            cacheFactory(live.client, { cluster: keyOf(cluster) }),
            (c) => c.start,
          ).pipe(Scope.provide(scope))
          const readerOptions = {
            live: live.client,
            cache,
            timeout: config.client.timeout,
            disableFor: options.disableFor,
          }
          yield* step({ _tag: "CacheStarted" }, state)
          // Row 3: wait for the cache's informers to sync, up to the initial sync timeout.
          failedStep = "cacheSync"
          const synced = yield* Effect.timeoutOption(cache.waitForCacheSync, config.initialSyncTimeout)
          if (synced._tag === "None" || !synced.value)
            return yield* new Timeout({
              verb: "list",
              path: "/",
              message: `the cache did not sync within the initial sync timeout (${config.initialSyncTimeout} ms)`,
            })
          const connection: Connection = {
            config: kc,
            live,
            uncached,
            cached: makeCachedClient(readerOptions),
            reader: makeCachedReader(readerOptions),
            scope,
            cache,
            kubeconfigDigest: kubeconfigDigest(secret),
            endpoint: endpointOf(kc),
          }
          return connection
        })
        const result = yield* Effect.result(attempt)
        if (result._tag === "Failure") {
          yield* Scope.close(scope, Exit.void)
          const r = yield* step(
            { _tag: "ConnectionFailed", step: failedStep, error: describe(result.failure) },
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
     * A rotated kubeconfig Secret (its content differs from the one the credentials came from, as
     * the Secret store shows it, without a request). Same server and CA: the new credentials are
     * tried with a `GET /` and, once accepted, serve every new request while the cache's informers
     * go on (`rotateCredentials`). Another server or CA: Disconnect() (clusterAccessor row 6), so
     * that this reconcile connects again at once. Seed 000 only disconnects on a 401 (Reconciler
     * row 11); see docs/clustercache.md, "A rotated kubeconfig".
     */
    const reconnectIfRotated = (cluster: ClusterKey, entry: Entry | undefined, rows: Array<RowId>) =>
      Effect.gen(function* () {
        const c = entry?.connection
        if (entry === undefined || c === undefined || !entry.state.connected || options.secrets === undefined)
          return entry
        const secret = options.secrets.get({
          namespace: cluster.namespace,
          name: kubeconfigSecretName(cluster.name),
        }) as SecretObject | undefined
        if (secret === undefined || kubeconfigDigest(secret) === c.kubeconfigDigest) return entry
        const rotated = yield* rotateCredentials(cluster, c, secret)
        if (rotated !== "endpoint changed") return entry
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
        yield* Effect.logInfo("the kubeconfig Secret changed: another server or CA, reconnecting").pipe(
          Effect.annotateLogs({ cluster: keyOf(cluster), row: r.row }),
        )
        const next: Entry = { state: r.status.accessor, connection: undefined }
        yield* setEntry(cluster, next)
        return next
      })

    /**
     * Takes the rotated Secret's credentials into connection `c` when its server and CA are the
     * same: "rotated" once the new credentials answered `GET /`, "kept" when the Secret does not
     * parse or the server refused them (the current credentials stay; the Secret is tried again
     * at the next reconcile), "endpoint changed" otherwise.
     */
    const rotateCredentials = (cluster: ClusterKey, c: Connection, secret: SecretObject) =>
      Effect.gen(function* () {
        const secretName = kubeconfigSecretName(cluster.name)
        const attempt = Effect.gen(function* () {
          const kc = yield* parseKubeconfig(yield* kubeconfigFromSecret(secret, secretName), secretName)
          if (endpointOf(kc) !== c.endpoint) return "endpoint changed" as const
          const client = yield* factory(kc, config)
          yield* client
            .probe({ timeout: config.healthProbe.timeout })
            .pipe(Effect.mapError(refused(secretName)))
          yield* c.live.replace(client)
          yield* c.uncached.replace(yield* factory(kc, config))
          c.config = kc
          c.kubeconfigDigest = kubeconfigDigest(secret)
          return "rotated" as const
        })
        const result = yield* Effect.result(attempt)
        const outcome = result._tag === "Success" ? result.success : ("kept" as const)
        const log = Effect.annotateLogs({
          cluster: keyOf(cluster),
          ...(result._tag === "Failure" ? { error: describe(result.failure) } : {}),
        })
        if (outcome === "rotated")
          yield* Effect.logInfo(
            "the kubeconfig Secret changed: new requests use its credentials, informers kept",
          ).pipe(log)
        if (outcome === "kept")
          yield* Effect.logWarning(
            "the kubeconfig Secret changed but was not taken; the current credentials stay",
          ).pipe(log)
        return outcome
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
                const probe = connection?.live.client.probe({ timeout: action.timeout }) ?? Effect.void
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
        // The watch subscribes to the cache's informer in a scope of the connection: a disconnect
        // stops it with the cache. The informer lists and syncs on its own fiber.
        const watchScope = yield* Scope.fork(c.scope)
        const informer = yield* Effect.result(
          c.cache.getInformer(watcher.resource, { namespace: watcher.namespace }),
        )
        if (informer._tag === "Failure") {
          yield* Scope.close(watchScope, Exit.void)
          const failed = watchTransition({
            observed,
            desired: { name: watcher.name },
            trigger: {
              _tag: "WatchFailed",
              error: `the cache has no informer for it: ${informer.failure.message}`,
            },
            now,
          })
          return yield* new WatchError({
            cluster: keyOf(cluster),
            message: failed.status.error?.message ?? "watch failed",
          })
        }
        yield* informer.success.subscribe(watcher.onEvent).pipe(Scope.provide(watchScope))
        const done = watchTransition({
          observed,
          desired: { name: watcher.name },
          trigger: { _tag: "WatchStarted" },
          now,
        })
        yield* setWatches(cluster, c, () => done.status.watches)
        yield* Effect.forkIn(awaitWatchSync(cluster, c, watcher.name, informer.success, watchScope), c.scope)
      })

    /** Replaces the watch names of the accessor, if it still has connection `c`. */
    const setWatches = (
      cluster: ClusterKey,
      c: Connection,
      f: (watches: ReadonlyArray<string>) => ReadonlyArray<string>,
    ) =>
      Ref.update(entries, (m) => {
        const cur = m.get(keyOf(cluster))
        if (cur === undefined || cur.connection !== c) return m
        const next = new Map(m)
        next.set(keyOf(cluster), { ...cur, state: { ...cur.state, watches: f(cur.state.watches) } })
        return next
      })

    /**
     * Waits, off the caller's fiber, for a new watch's informer to sync within the initial sync
     * timeout. An informer that stops first (the scoped cache's after a 403) or does not sync in
     * time: the watch is stopped and forgotten (Watch Management row 5, "watch not added"), so that
     * the next Watch() call adds it again.
     */
    const awaitWatchSync = (
      cluster: ClusterKey,
      c: Connection,
      name: string,
      informer: Informer,
      watchScope: Scope.Closeable,
    ) =>
      Effect.gen(function* () {
        const synced = yield* Effect.timeoutOption(
          Effect.andThen(informer.waitForSync, informer.hasSynced),
          config.initialSyncTimeout,
        )
        if (synced._tag === "Some" && synced.value) return
        yield* Scope.close(watchScope, Exit.void)
        yield* setWatches(cluster, c, (watches) => watches.filter((w) => w !== name))
        yield* Effect.logWarning("a watch was dropped: its informer did not sync").pipe(
          Effect.annotateLogs({
            cluster: keyOf(cluster),
            watch: name,
            reason:
              synced._tag === "None"
                ? `not synced within ${config.initialSyncTimeout} ms`
                : "the cache's informer stopped before it synced",
          }),
        )
      })

    return ClusterCache.of({
      reconcile,
      getClient: (cluster) => Effect.map(connected(cluster), (c) => c.cached),
      getUncachedClient: (cluster) => Effect.map(connected(cluster), (c) => c.uncached.client),
      getRESTConfig: (cluster) => Effect.map(connected(cluster), (c) => c.config),
      getReader: (cluster) => Effect.map(connected(cluster), (c) => c.reader),
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
