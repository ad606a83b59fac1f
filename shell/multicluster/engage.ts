/**
 * The `Aware` side of a multi-cluster controller (seed 003: "cluster-aware controllers implement
 * the cluster.Aware interface"): the provider's calls become triggers of the pair's engagement
 * table.
 *
 * # Expected flow
 * `engage(cluster, scope)` records the cluster and its lifetime `scope` on the pair, judges the
 * cluster filters (provider clusters only, upstream's `WithClusterFilter`), and feeds
 * `ClusterAdded`, `CredentialsChanged` (a new generation of a known cluster) or `ClusterHealthy`
 * (an unhealthy one back). When `scope` closes the pair is fed `ClusterUnhealthy` if the provider
 * reports the cluster unhealthy, else `ClusterRemoved`; `disengage` feeds `ClusterRemoved`.
 *
 * # Guarantees
 * - Only the generation a scope belongs to leaves when it closes: a newer one stays engaged.
 * - `engage` returns once the table has decided: waiting for caches and sources runs on the
 *   pair's fibers, never in the provider's call.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import * as Scope from "effect/Scope"
import type { EngagementTrigger } from "../../core/multicluster/index.ts"
import type { ControllerState } from "./controllerState.ts"
import type { Feed } from "./interpret.ts"
import { judge, noFilters, type Pair, pairOf } from "./pairs.ts"
import type { ClusterAware } from "./request.ts"
import type { Cluster, EngageFailedError } from "./types.ts"

/** The trigger of an engagement: a new cluster, new credentials, or an unhealthy one back. */
const engageTrigger = (pair: Pair, cluster: Cluster, replacing: boolean): EngagementTrigger =>
  replacing
    ? { _tag: "CredentialsChanged", generation: cluster.generation }
    : pair.engagement.state._tag === "Unhealthy"
      ? { _tag: "ClusterHealthy" }
      : { _tag: "ClusterAdded", generation: cluster.generation }

/** When the lifetime of `cluster` closes: unhealthy or removed, unless a newer generation took over. */
const onLeave = <Req extends ClusterAware>(
  state: ControllerState<Req>,
  pair: Pair,
  cluster: Cluster,
  feed: Feed,
): Effect.Effect<void> =>
  Effect.suspend(() => {
    if (pair.cluster !== cluster) return Effect.void
    return Effect.flatMap(state.host.unhealthyReason(cluster.name), (reason) =>
      Effect.andThen(
        feed(
          cluster.name,
          reason === undefined ? { _tag: "ClusterRemoved" } : { _tag: "ClusterUnhealthy", reason },
        ),
        Effect.sync(() => {
          if (pair.cluster === cluster) pair.lifetime = undefined
        }),
      ),
    )
  })

/** Engages a cluster: its scope closing disengages it (seed 003's `Aware.Engage`). */
export const engage =
  <Req extends ClusterAware>(state: ControllerState<Req>, feed: Feed) =>
  (cluster: Cluster, scope: Scope.Scope): Effect.Effect<void, EngageFailedError> =>
    Effect.gen(function* () {
      const pair = pairOf(state.pairs, cluster.name)
      const replacing =
        pair.cluster !== undefined &&
        pair.engagement.state._tag !== "Absent" &&
        pair.cluster.generation !== cluster.generation
      pair.cluster = cluster
      pair.lifetime = scope
      pair.filter =
        cluster.name === ""
          ? noFilters
          : {
              controller: judge(state.engage.clusterFilter, cluster),
              watches: new Map(state.watches.map((w) => [w.name, judge(w.clusterFilter, cluster)])),
            }
      yield* Scope.addFinalizer(scope, onLeave(state, pair, cluster, feed))
      yield* feed(cluster.name, engageTrigger(pair, cluster, replacing))
    })

/** Disengages a cluster of the current generation (`ClusterRemoved`). */
export const disengage =
  <Req extends ClusterAware>(state: ControllerState<Req>, feed: Feed) =>
  (cluster: Cluster): Effect.Effect<void> =>
    Effect.suspend(() => {
      const pair = state.pairs.get(cluster.name)
      if (pair === undefined || pair.cluster !== cluster) return Effect.void
      return feed(cluster.name, { _tag: "ClusterRemoved" })
    })
