/**
 * Cluster sources (seed 000, "Cluster Source Events"): the controllers that asked for a stream
 * of Cluster events, each with its probe failure durations and the queue its stream reads.
 *
 * # Expected flow
 * `clusterSource(name, options)` registers a source for the life of the caller's scope and
 * returns its stream; a reconcile reads the registered sources (the Event Trigger Conditions
 * table decides which of them hear of the Cluster) and `send`s the Cluster to each one it chose.
 *
 * # Guarantees
 * - Registering and unregistering are atomic swaps of the map; sending never blocks (unbounded
 *   queues), so a slow controller does not hold a reconcile.
 * - A reconcile sends to the sources registered when it began (`registered` is a snapshot).
 *
 * @module
 */
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import * as Ref from "effect/Ref"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type { ClusterSource } from "../../core/clustercache/index.ts"
import type { ClusterKey } from "./cluster.ts"

/** A registered source: what the tables read of it, and its queue. */
export interface RegisteredSource {
  readonly source: ClusterSource
  readonly queue: Queue.Queue<ClusterKey>
}

/** The cluster sources of a ClusterCache. */
export interface Sources {
  /** Registers a source for `controllerName` until the scope closes; its stream of Clusters. */
  readonly clusterSource: (
    controllerName: string,
    options?: { readonly probeFailureDurations?: ReadonlyArray<number> },
  ) => Effect.Effect<Stream.Stream<ClusterKey>, never, Scope.Scope>
  /** The sources registered now, by controller name. */
  readonly registered: Effect.Effect<ReadonlyMap<string, RegisteredSource>>
}

/** Makes an empty set of cluster sources. */
export const makeSources: Effect.Effect<Sources> = Effect.map(
  Ref.make<ReadonlyMap<string, RegisteredSource>>(new Map()),
  (sources): Sources => ({
    registered: Ref.get(sources),
    clusterSource: (controllerName, options = {}) =>
      Effect.gen(function* () {
        const queue = yield* Queue.unbounded<ClusterKey>()
        const source = { name: controllerName, probeFailureDurations: options.probeFailureDurations ?? [] }
        yield* Ref.update(sources, (m) => new Map(m).set(controllerName, { source, queue }))
        yield* Effect.addFinalizer(() =>
          Ref.update(sources, (m) => {
            const next = new Map(m)
            next.delete(controllerName)
            return next
          }),
        )
        return Stream.fromQueue(queue)
      }),
  }),
)

/** Sends the Cluster to the source named `name`, if it is registered. */
export const send = (
  registered: ReadonlyMap<string, RegisteredSource>,
  name: string,
  cluster: ClusterKey,
): Effect.Effect<void> => {
  const s = registered.get(name)
  return s === undefined ? Effect.void : Effect.asVoid(Queue.offer(s.queue, cluster))
}
