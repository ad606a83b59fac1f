/**
 * What a reconcile observes before its run: the Cluster (from a reflector's store, else a GET),
 * the registered cluster sources, and the Cluster's accessor.
 *
 * # Expected flow
 * `observe(cluster)` reads the three once per reconcile; the Reconciler's `desired` is the
 * Cluster's view (found, infrastructure provisioned, deleting; not found; the GET failed) and the
 * sources' settings, the `entry` its observed accessor.
 *
 * # Guarantees
 * - Reads only: no state changes, nothing held.
 * - A failed GET is not an error of the reconcile: it is Error Handling's "Error getting Cluster
 *   object", which the Reconciler answers (requeue after the default interval).
 *
 * @module
 */
import * as Effect from "effect/Effect"
import type { ClusterView, ReconcilerDesired } from "../../core/clustercache/index.ts"
import type { KubeClientShape } from "../kube/client.ts"
import type { KubeObject } from "../kube/resource.ts"
import { type ClusterKey, ClusterResource, type ObjectStore } from "./cluster.ts"
import type { Entry, Registry } from "./registry.ts"
import type { RegisteredSource, Sources } from "./sources.ts"

/** What one reconcile starts from. */
export interface Observed {
  readonly desired: ReconcilerDesired
  /** The sources registered when the reconcile began: its events go to these. */
  readonly registered: ReadonlyMap<string, RegisteredSource>
  readonly entry: Entry | undefined
}

const viewOf = (obj: KubeObject): ClusterView => ({
  _tag: "Found",
  infrastructureProvisioned:
    (obj as { status?: { initialization?: { infrastructureProvisioned?: boolean } } }).status?.initialization
      ?.infrastructureProvisioned === true,
  deleting: obj.metadata.deletionTimestamp !== undefined,
})

/** Makes `observe(cluster)` over the management cluster, its Cluster store, the sources and the registry. */
export const makeObserve = (deps: {
  readonly management: KubeClientShape
  readonly clusters: ObjectStore | undefined
  readonly sources: Sources
  readonly registry: Registry
}) => {
  const store = deps.clusters
  const readCluster = (cluster: ClusterKey): Effect.Effect<ClusterView> =>
    store !== undefined
      ? Effect.sync(() => {
          const obj = store.get(cluster)
          return obj === undefined ? ({ _tag: "NotFound" } as const) : viewOf(obj)
        })
      : deps.management.get(ClusterResource, cluster).pipe(
          Effect.map(viewOf),
          Effect.catch(
            (e): Effect.Effect<ClusterView> =>
              Effect.succeed(
                e._tag === "NotFound" ? { _tag: "NotFound" } : { _tag: "GetFailed", error: e.message },
              ),
          ),
        )
  return (cluster: ClusterKey): Effect.Effect<Observed> =>
    Effect.gen(function* () {
      const view = yield* readCluster(cluster)
      const registered = yield* deps.sources.registered
      const entry = yield* deps.registry.get(cluster)
      return {
        desired: { cluster: view, sources: [...registered.values()].map((s) => s.source) },
        registered,
        entry,
      }
    })
}
