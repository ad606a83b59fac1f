/**
 * What the engagement table (`multicluster.engagement`) reads for one pair, and its decision:
 * the pair's engagement (observed), the controller's and its watches' engage options with the
 * cluster filters' verdicts (desired), and the clock.
 *
 * # Expected flow
 * `decide(state, cluster)` is the table runner's `decide` for the pair of `cluster`: it reads
 * the pair, asks `engagementTransition` for the trigger at the current time, and stores the
 * answer's status on the pair before any of its actions runs.
 *
 * # Guarantees
 * - Reading the pair, deciding and storing the status is one synchronous step (no lock, no
 *   `yield` in between), so triggers of one pair are decided one at a time.
 * - Each decision of a trigger other than `RequestArrived` is logged at debug level with its row.
 *
 * @module
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import {
  type EngagementOptions,
  type EngagementResult,
  type EngagementTrigger,
  engagementTransition,
  sourcesFor,
  type WatchSpec,
} from "../../core/multicluster/index.ts"
import type { ControllerState } from "./controllerState.ts"
import { type Filters, pairOf } from "./pairs.ts"
import type { ClusterAware } from "./request.ts"
import type { ClusterName } from "./types.ts"

/** The engage options of the controller and its watches for `cluster`: the table's desired state. */
export const desiredFor = <Req extends ClusterAware>(
  state: ControllerState<Req>,
  cluster: ClusterName,
  filters: Filters,
): EngagementOptions => ({
  cluster,
  hasProvider: state.host.hasProvider,
  engageWithLocalCluster: state.engage.engageWithLocalCluster,
  engageWithProviderClusters: state.engage.engageWithProviderClusters,
  clusterFilter: filters.controller,
  watches: state.watches.map(
    (w): WatchSpec => ({
      name: w.name,
      kind: w.kind,
      engageWithLocalCluster: w.engageWithLocalCluster,
      engageWithProviderClusters: w.engageWithProviderClusters,
      clusterFilter: filters.watches.get(w.name),
    }),
  ),
})

/** The names of the watches whose sources run on `cluster` (the table's `sourcesFor`). */
export const runningWatches = <Req extends ClusterAware>(
  state: ControllerState<Req>,
  cluster: ClusterName,
): ReadonlyArray<string> => sourcesFor(desiredFor(state, cluster, pairOf(state.pairs, cluster).filter))

/** The table's decision for a trigger of the pair of `cluster`; the pair keeps its status. */
export const decide =
  <Req extends ClusterAware>(state: ControllerState<Req>, cluster: ClusterName) =>
  (trigger: EngagementTrigger): Effect.Effect<EngagementResult> =>
    Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      const pair = pairOf(state.pairs, cluster)
      const result = engagementTransition(
        { observed: pair.engagement, desired: desiredFor(state, cluster, pair.filter), trigger, now },
        state.config,
      )
      pair.engagement = result.status
      if (trigger._tag !== "RequestArrived")
        yield* Effect.logDebug("engagement").pipe(
          Effect.annotateLogs({
            controller: state.name,
            cluster,
            trigger: trigger._tag,
            state: result.status.state._tag,
            row: result.row,
          }),
        )
      return result
    })
