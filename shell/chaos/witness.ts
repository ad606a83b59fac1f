/**
 * The witness: a cluster-aware runnable of the multi-cluster suite, added to the manager before
 * its controller, with no `start` (a `ClusterAwareRunnable` may have none). It logs each engage
 * and disengage and the close of each engage scope, and refuses the hub (it serves provider
 * clusters only): the manager must log that refusal and still engage every runnable added after
 * it ("one runnable's failing `engage` is logged and stops no other"). Its log lines are in every
 * run's digest.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import * as Scope from "effect/Scope"
import { type ClusterAwareRunnable, EngageFailedError, HubCluster } from "../multicluster/index.ts"

/** The witness runnable. */
export const witness: ClusterAwareRunnable = {
  name: "chaos-witness",
  engage: (cluster, scope) =>
    cluster.name === HubCluster
      ? Effect.fail(
          new EngageFailedError({
            cluster: cluster.name,
            message: "the witness serves provider clusters only",
          }),
        )
      : Effect.andThen(
          Effect.logInfo("witness: engaged").pipe(Effect.annotateLogs({ cluster: cluster.name })),
          Scope.addFinalizer(
            scope,
            Effect.logInfo("witness: engage scope closed").pipe(
              Effect.annotateLogs({ cluster: cluster.name }),
            ),
          ),
        ),
  disengage: (cluster) =>
    Effect.logInfo("witness: disengaged").pipe(Effect.annotateLogs({ cluster: cluster.name })),
}
