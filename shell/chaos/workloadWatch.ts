/**
 * A user of the ClusterCache's `watch()` in the operator suite, as the controllers of a workload
 * cluster's objects are (upstream's Machine controller watches Nodes through it): every time a
 * Cluster connects, it watches the ConfigMaps of that workload cluster through the Cluster's
 * cache. The operator of `krtt run` registers no such watch, so without this user a connection's
 * cache runs no informer, and a connection left open (a disconnect or a rotation that does not
 * close it) would hold nothing the resource oracle can see; with it, such a connection keeps a
 * watch open on a server no accessor reaches.
 *
 * Guarantees: it only reads; its watches live in the connection's scope (closed with it), its
 * fiber in the process's scope. A connect event can come before the accessor is recorded as
 * connected: the watch is then tried again each second, ten times at most.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type { ClusterKey } from "../clustercache/cluster.ts"
import type { ClusterCacheShape } from "../clustercache/service.ts"
import { Resources } from "../kube/resource.ts"

const WATCHER = { name: "chaos-configmaps", resource: Resources.configMaps, onEvent: () => Effect.void }

/** Adds the watch to a connected cluster's cache (nothing when it is there already). */
const watchOnce = (cache: ClusterCacheShape, cluster: ClusterKey) =>
  Effect.gen(function* () {
    for (let attempt = 0; attempt < 10; attempt++) {
      const added = yield* Effect.result(cache.watch(cluster, WATCHER))
      if (added._tag === "Success" || added.failure._tag !== "ClusterNotConnectedError") return
      yield* Effect.sleep("1 second")
    }
  })

/** Watches every workload cluster's ConfigMaps as its Cluster connects, until the scope closes. */
export const watchWorkloads = (cache: ClusterCacheShape): Effect.Effect<void, never, Scope.Scope> =>
  Effect.gen(function* () {
    const events = yield* cache.clusterSource("chaos-workload-watch")
    yield* Effect.forkScoped(Stream.runForEach(events, (cluster) => watchOnce(cache, cluster)))
  })
