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
import {
  type ClusterAwareRunnable,
  EngageFailedError,
  HubCluster,
  type MultiClusterManager,
} from "../multicluster/index.ts"

/** A witness runnable named `name`; its log lines carry that name. */
export const makeWitness = (name: string): ClusterAwareRunnable => ({
  name,
  engage: (cluster, scope) =>
    cluster.name === HubCluster
      ? Effect.fail(
          new EngageFailedError({
            cluster: cluster.name,
            message: "the witness serves provider clusters only",
          }),
        )
      : Effect.andThen(
          Effect.logInfo("witness: engaged").pipe(
            Effect.annotateLogs({ cluster: cluster.name, runnable: name }),
          ),
          Scope.addFinalizer(
            scope,
            Effect.logInfo("witness: engage scope closed").pipe(
              Effect.annotateLogs({ cluster: cluster.name, runnable: name }),
            ),
          ),
        ),
  disengage: (cluster) =>
    Effect.logInfo("witness: disengaged").pipe(
      Effect.annotateLogs({ cluster: cluster.name, runnable: name }),
    ),
})

/** The witness runnable, added before the manager starts. */
export const witness: ClusterAwareRunnable = makeWitness("chaos-witness")

/**
 * A second witness, added to the running manager once it has engaged a cluster (`add` on a
 * started manager): having no `start`, it is only engaged, with the hub (which it refuses) and
 * every cluster engaged so far. It looks every virtual second, for two minutes at most.
 */
export const addLateWitness = (manager: MultiClusterManager): Effect.Effect<void, never, Scope.Scope> =>
  Effect.asVoid(
    Effect.forkScoped(
      Effect.gen(function* () {
        for (let look = 0; look < 120; look++) {
          if ((yield* manager.clusters).length > 0)
            return yield* manager.add(makeWitness("chaos-late-witness"))
          yield* Effect.sleep("1 second")
        }
      }),
    ),
  )
