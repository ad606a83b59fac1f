/**
 * The cluster of the request being reconciled, for code called from a reconcile (upstream's
 * `mccontext.ClusterFrom(ctx)`, seed 003's "GetCluster(ctx, req.ClusterName)"). The controller
 * provides it around every reconcile; code far from the request reads it instead of threading
 * the cluster through every call.
 *
 * ```ts
 * const cluster = yield* currentCluster          // Cluster: name, client, cache
 * const name = yield* clusterFromContext         // ClusterName only
 * ```
 *
 * # Guarantees
 * - Inside a reconcile of a multi-cluster controller both succeed with the request's cluster,
 *   the one the controller is engaged with for that request.
 * - Elsewhere they fail with `NoClusterInContextError` (a typed error, never a default cluster).
 *
 * @module
 */
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import type { Cluster, ClusterName } from "./types.ts"

/** The cluster of the reconcile in progress; `undefined` outside one. */
export const ReconcileCluster: Context.Reference<Cluster | undefined> = Context.Reference<
  Cluster | undefined
>("krtt/multicluster/ReconcileCluster", { defaultValue: () => undefined })

/** Asked for the reconcile's cluster outside a reconcile. */
export class NoClusterInContextError extends Data.TaggedError("NoClusterInContextError")<{
  readonly message: string
}> {}

const missing = new NoClusterInContextError({
  message: "no cluster in context: only code called from a multi-cluster reconcile has one",
})

/** The `Cluster` (client, cache) of the request being reconciled. */
export const currentCluster: Effect.Effect<Cluster, NoClusterInContextError> = Effect.flatMap(
  Effect.service(ReconcileCluster),
  (c) => (c === undefined ? Effect.fail(missing) : Effect.succeed(c)),
)

/** The name of the cluster of the request being reconciled (`""` for the hub). */
export const clusterFromContext: Effect.Effect<ClusterName, NoClusterInContextError> = Effect.map(
  currentCluster,
  (c) => c.name,
)

/** Runs `effect` with `cluster` as the reconcile's cluster (the controller does this). */
export const withCluster =
  (cluster: Cluster) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.provideService(effect, ReconcileCluster, cluster)
