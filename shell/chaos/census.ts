/**
 * The census: a second controller of the multi-cluster suite, added to the manager after it
 * started, with a field index added after it started too (controller-runtime's and
 * multicluster-runtime's `Add` and `IndexField` on a running manager: the index reaches the hub,
 * the provider and every cluster engaged so far, and each cluster engaged later). For every
 * namespace of a cluster it annotates each ConfigMap to stamp with how many there are, as the
 * cluster's cache counts them through the index.
 *
 * Each reconcile also logs what the manager's public accessors say at that moment (`clusters`,
 * `controllers`, `runnables`, `getCluster` of the hub and of an unknown name, the census's own
 * `pairs` and `isEngaged`, of the request's cluster and of an unknown one): the log is in every run's digest, so a runtime that answers them
 * differently from the real one is seen.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import type * as Scope from "effect/Scope"
import type { CacheError } from "../cache/types.ts"
import { done, type ReconcileResult } from "../controller/result.ts"
import type { KubeError } from "../kube/errors.ts"
import { mergePatch } from "../kube/patch.ts"
import { type KubeObject, Resources } from "../kube/resource.ts"
import {
  type BuilderError,
  type Cluster,
  type ClusterNotFound,
  controllerManagedBy,
  enqueueRequestsFromMapFunc,
  type MultiClusterController,
  type MultiClusterManager,
} from "../multicluster/index.ts"
import { ClusterName, type Request } from "../workqueue/request.ts"

/** The annotation the census writes: how many ConfigMaps to stamp its namespace holds. */
export const CENSUS_ANNOTATION = "krtt.dev/census"
const INDEX = "chaos-stamped"
/** A cluster name no provider knows. */
const UNKNOWN = ClusterName("chaos-no-such-cluster")
/** The name of a namespace's census request. */
const CENSUS = "census"

/** What the manager's accessors and the census's own say, as one log line's fields. */
const managerView = (
  manager: MultiClusterManager,
  census: MultiClusterController | undefined,
  request: Request,
) =>
  Effect.gen(function* () {
    const clusters = yield* manager.clusters
    const hub = yield* Effect.result(manager.getCluster(""))
    const unknown = yield* Effect.result(manager.getCluster(UNKNOWN))
    return {
      clusters: clusters.map((c) => c.name).sort(),
      controllers: (yield* manager.controllers).map((c) => c.name),
      runnables: (yield* manager.runnables).map((r) => r.name),
      hub: hub._tag === "Success" ? `"${hub.success.name}"` : hub.failure._tag,
      unknown:
        unknown._tag === "Success"
          ? `"${unknown.success.name}"`
          : `${unknown.failure._tag} ${unknown.failure.cluster}: ${unknown.failure.message}`,
      pairs: census === undefined ? [] : (yield* census.pairs).map((p) => `${p.cluster}:${p.state}`).sort(),
      engaged: census === undefined ? false : yield* census.isEngaged(request.cluster),
      unknownEngaged: census === undefined ? false : yield* census.isEngaged(UNKNOWN),
    }
  })

/** Counts the namespace's ConfigMaps to stamp (through the index) and writes the count on each. */
const reconcile =
  (manager: MultiClusterManager, self: Ref.Ref<MultiClusterController | undefined>) =>
  (request: Request): Effect.Effect<ReconcileResult, ClusterNotFound | CacheError | KubeError> =>
    Effect.gen(function* () {
      const view = yield* managerView(manager, yield* Ref.get(self), request)
      yield* Effect.logInfo("census: the manager's view").pipe(Effect.annotateLogs(view))
      const cluster: Cluster = yield* manager.getCluster(request.cluster)
      const stamped = yield* cluster.cache.list(Resources.configMaps, {
        namespace: request.namespace,
        index: { name: INDEX, value: "true" },
      })
      const count = String(stamped.length)
      for (const o of stamped) {
        if (o.metadata.annotations?.[CENSUS_ANNOTATION] === count) continue
        yield* cluster.client.patch(
          Resources.configMaps,
          { namespace: request.namespace, name: o.metadata.name ?? "" },
          mergePatch({ metadata: { annotations: { [CENSUS_ANNOTATION]: count } } }),
        )
      }
      return done()
    })

/**
 * Adds the census to a started manager: its index first, then the controller (which starts and
 * is engaged with every cluster at once). `stampLabel` marks the ConfigMaps it counts.
 */
export const addCensus = (
  manager: MultiClusterManager,
  stampLabel: string,
): Effect.Effect<void, BuilderError, Scope.Scope> =>
  Effect.gen(function* () {
    const stamped = (o: KubeObject) => o.metadata.labels?.[stampLabel] === "true"
    const self = yield* Ref.make<MultiClusterController | undefined>(undefined)
    yield* manager.indexField(Resources.configMaps, INDEX, (o) => (stamped(o) ? ["true"] : []))
    const census = yield* controllerManagedBy(manager)
      .named("chaos-census")
      .watches(
        Resources.configMaps,
        enqueueRequestsFromMapFunc((o: KubeObject, c: Cluster) => [
          { cluster: c.name, namespace: o.metadata.namespace ?? "", name: CENSUS },
        ]),
        { predicates: [(e) => stamped(e.object)] },
      )
      .complete(reconcile(manager, self))
    yield* Ref.set(self, census)
  })
