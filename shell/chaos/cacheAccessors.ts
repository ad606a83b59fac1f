/**
 * A reader of workload clusters through the ClusterCache's accessors in the operator suite, as
 * the controllers of a workload cluster's objects are (upstream's controllers take
 * `GetClient`, `GetReader`, `GetRESTConfig` and the uncached client of a connected Cluster): every
 * time a Cluster connects, it takes each accessor and reads through it: the REST config's server,
 * the Namespaces from the API server through the uncached client, the ConfigMaps from the
 * connection's cache through the cached client and the reader. It logs what it read (in every
 * run's digest).
 *
 * Oracle: the accessors of a connected Cluster give a working client, reader and REST config; one
 * that dies when used is a safety violation. A read that fails (the cluster went away, its server
 * is down) is logged as such, as a user would see it.
 *
 * Guarantees: it only reads; its fiber lives in the process's scope. A connect event can come
 * before the accessor is recorded as connected: the read is then tried again each second, ten
 * times at most.
 *
 * @module
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type { ClusterKey } from "../clustercache/cluster.ts"
import type { ClusterCacheShape } from "../clustercache/service.ts"
import type { ObjectList } from "../kube/resource.ts"
import { Resources } from "../kube/resource.ts"

/** The names a list read gave, or the tag of its failure. */
const names = <E extends { readonly _tag: string }>(read: Effect.Effect<ObjectList, E>) =>
  Effect.map(Effect.result(read), (r) =>
    r._tag === "Success" ? r.success.items.map((o) => o.metadata.name ?? "").sort() : r.failure._tag,
  )

/** Reads the cluster through each accessor; fails with `ClusterNotConnectedError` when it is not connected. */
const readThrough = (cache: ClusterCacheShape, cluster: ClusterKey) =>
  Effect.gen(function* () {
    const config = yield* cache.getRESTConfig(cluster)
    const uncached = yield* cache.getUncachedClient(cluster)
    const cached = yield* cache.getClient(cluster)
    const reader = yield* cache.getReader(cluster)
    return {
      cluster: `${cluster.namespace}/${cluster.name}`,
      server: config.getCurrentCluster()?.server,
      namespaces: yield* names(uncached.list(Resources.namespaces)),
      configMaps: yield* names(cached.list(Resources.configMaps)),
      readerConfigMaps: yield* names(reader.list(Resources.configMaps)),
    }
  })

/** Reads a connected cluster once, logs what it read; a defect of an accessor is a violation. */
const readOnce = (cache: ClusterCacheShape, cluster: ClusterKey, violation: (message: string) => void) =>
  Effect.gen(function* () {
    for (let attempt = 0; attempt < 10; attempt++) {
      const read = yield* Effect.result(readThrough(cache, cluster))
      if (read._tag === "Success") {
        yield* Effect.logInfo("accessors: read a connected cluster").pipe(Effect.annotateLogs(read.success))
        return
      }
      yield* Effect.sleep("1 second")
    }
  }).pipe(
    Effect.catchDefect((defect) =>
      Effect.sync(() =>
        violation(
          `the ClusterCache's accessors of connected cluster ${cluster.namespace}/${cluster.name} gave what died when used: ${Cause.pretty(Cause.die(defect)).split("\n", 1)[0]}`,
        ),
      ),
    ),
  )

/** Reads every workload cluster through the accessors as its Cluster connects, until the scope closes. */
export const readThroughAccessors = (
  cache: ClusterCacheShape,
  violation: (message: string) => void,
): Effect.Effect<void, never, Scope.Scope> =>
  Effect.gen(function* () {
    const events = yield* cache.clusterSource("chaos-accessors")
    yield* Effect.forkScoped(Stream.runForEach(events, (cluster) => readOnce(cache, cluster, violation)))
  })
