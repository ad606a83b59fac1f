/**
 * The errors of the ClusterCache service, as its callers see them (seed 000, "Error Handling"):
 * a cluster without connection, and a watch that could not be added. Both are tagged classes,
 * told apart by `_tag` (`Effect.catchTag`) or `instanceof`.
 *
 * Retrying: `ClusterNotConnectedError` is the caller's to handle (upstream: "Caller should handle
 * gracefully"); the next reconcile of the Cluster connects again. `WatchError` is retried by
 * calling `watch()` again: a watch that failed is not recorded.
 *
 * @module
 */
import * as Data from "effect/Data"

/** Returned when the cluster has no connection (accessor absent or disconnected). */
export class ClusterNotConnectedError extends Data.TaggedError("ClusterNotConnectedError")<{
  readonly cluster: string
  readonly message: string
}> {}

/** `Watch()` failed: an empty name, or the watch could not start. */
export class WatchError extends Data.TaggedError("WatchError")<{
  readonly cluster: string
  readonly message: string
}> {}
