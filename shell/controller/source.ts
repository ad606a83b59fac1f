/**
 * Sources (controller-runtime's `source` package): where a single-cluster controller's requests
 * come from. Import it as a namespace: `Source.kind(reflector, handler)` maps each event of a
 * reflector through an event handler (`handler.ts`: the object itself, its owner, a map
 * function), like `source.Kind`; `Source.channel(stream)` forwards a stream of requests (e.g. a
 * ClusterCache's cluster events), like `source.Channel`.
 *
 * ```ts
 * yield* controller.watch(Source.kind(clusters, enqueueRequestForObject()))
 * yield* controller.watch(Source.kind(secrets, enqueueRequestsFromMapFunc(clusterOf), { predicates }))
 * ```
 *
 * # Guarantees
 * - A source is data plus a `start` that subscribes until the scope closes; it never reconciles.
 * - An event that fails any predicate enqueues nothing.
 * - The handler is the one `handlerFor` gives for the source's cluster (its `deepCopyFor` copy
 *   when it makes copies), taken once when the source is made.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type { KubeObject } from "../kube/resource.ts"
import type { Reflector } from "../reflector/reflector.ts"
import { type ClusterName, HubCluster, type Request } from "../workqueue/request.ts"
import { type EventCluster, type EventHandler, handlerFor } from "./handler.ts"
import type { Predicate } from "./predicate.ts"

/** Feeds requests to `enqueue` until the scope closes. */
export interface Source {
  /** For logs, e.g. `configmaps (owner Widget)`. */
  readonly description: string
  readonly start: (
    enqueue: (request: Request) => Effect.Effect<void>,
  ) => Effect.Effect<void, never, Scope.Scope>
}

/** Options of `kind`. */
export interface KindOptions<T extends KubeObject> {
  /** The cluster of the events (what the handler is given). Default: the hub cluster `""`. */
  readonly cluster?: ClusterName | undefined
  /** Events that fail any predicate enqueue nothing. */
  readonly predicates?: ReadonlyArray<Predicate<T>> | undefined
  /** For logs. Default: the handler's description. */
  readonly description?: string | undefined
}

/** The requests `handler` makes of each event of `reflector` that passes the predicates (`source.Kind`). */
export const kind = <T extends KubeObject>(
  reflector: Reflector<T>,
  handler: EventHandler<T, Request, EventCluster>,
  options: KindOptions<T> = {},
): Source => {
  const cluster: EventCluster = { name: options.cluster ?? HubCluster }
  const predicates = options.predicates ?? []
  const forCluster = handlerFor(handler, cluster)
  return {
    description: options.description ?? forCluster.description,
    start: (enqueue) =>
      reflector.subscribe((event) =>
        predicates.every((p) => p(event))
          ? Effect.forEach(forCluster.requests(event, cluster), enqueue, { discard: true })
          : Effect.void,
      ),
  }
}

/** Requests from a stream (`source.Channel`); runs until the scope closes. */
export const channel = (stream: Stream.Stream<Request>, description = "stream"): Source => ({
  description,
  start: (enqueue) => Effect.asVoid(Effect.forkScoped(Stream.runForEach(stream, enqueue))),
})
