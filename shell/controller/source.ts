/**
 * Sources: where a controller's requests come from. A source maps reflector events (or any
 * stream) to `Request`s of one cluster: the object itself (`forObjects`, like
 * `EnqueueRequestForObject`), its owner (`forOwner`, like `EnqueueRequestForOwner`), or anything
 * a map function says (`forMap`, like `EnqueueRequestsFromMapFunc`).
 *
 * A source is data plus a `start` that subscribes until the scope closes; it never reconciles.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { type KubeObject, parseApiVersion } from "../kube/resource.ts"
import type { Reflector, ReflectorEvent } from "../reflector/reflector.ts"
import { type ClusterName, HubCluster, makeRequest, type Request, requestKey } from "../workqueue/request.ts"
import type { Predicate } from "./predicate.ts"

/** Feeds requests to `enqueue` until the scope closes. */
export interface Source {
  /** For logs, e.g. `configmaps (owner Widget)`. */
  readonly description: string
  readonly start: (
    enqueue: (request: Request) => Effect.Effect<void>,
  ) => Effect.Effect<void, never, Scope.Scope>
}

/** Options common to reflector sources. */
export interface SourceOptions<T extends KubeObject> {
  /** The cluster of the requests. Default: the hub cluster `""`. */
  readonly cluster?: ClusterName | undefined
  /** Events that fail any predicate enqueue nothing. */
  readonly predicates?: ReadonlyArray<Predicate<T>> | undefined
}

/** Maps an object to the requests it causes. */
export type MapFunc<T extends KubeObject> = (object: T, cluster: ClusterName) => ReadonlyArray<Request>

/**
 * Requests from `map` for each event of `reflector` that passes the predicates; for an update,
 * the requests of the old and the new object (de-duplicated), so a moved reference reconciles
 * both sides.
 */
export const forMap = <T extends KubeObject>(
  reflector: Reflector<T>,
  map: MapFunc<T>,
  options: SourceOptions<T> & { readonly description?: string | undefined } = {},
): Source => {
  const cluster = options.cluster ?? HubCluster
  const predicates = options.predicates ?? []
  const requestsOf = (event: ReflectorEvent<T>): ReadonlyArray<Request> => {
    if (!predicates.every((p) => p(event))) return []
    const all =
      event._tag === "Updated"
        ? [...map(event.old, cluster), ...map(event.object, cluster)]
        : map(event.object, cluster)
    const seen = new Set<string>()
    return all.filter((r) => {
      const key = requestKey(r)
      if (seen.has(key)) return false
      seen.add(key)
      return true
    })
  }
  return {
    description: options.description ?? "map function",
    start: (enqueue) =>
      reflector.subscribe((event) => Effect.forEach(requestsOf(event), enqueue, { discard: true })),
  }
}

/** A request for the object itself. */
export const forObjects = <T extends KubeObject>(
  reflector: Reflector<T>,
  options: SourceOptions<T> = {},
): Source =>
  forMap(
    reflector,
    (o, cluster) => [
      makeRequest({ namespace: o.metadata.namespace ?? "", name: o.metadata.name ?? "" }, cluster),
    ],
    { ...options, description: "objects" },
  )

/** Which owner references `forOwner` follows. */
export interface OwnerOptions<T extends KubeObject> extends SourceOptions<T> {
  /** The owner's API group (`""` for core) and kind. */
  readonly ownerGroup: string
  readonly ownerKind: string
  /** Only the controller reference (`controller: true`). Default true, like `OnlyControllerOwner`. */
  readonly onlyController?: boolean | undefined
  /** Whether the owner is cluster-scoped (then requests have namespace `""`). Default false. */
  readonly ownerClusterScoped?: boolean | undefined
}

/** A request for the owner of the object (owners live in the object's namespace). */
export const forOwner = <T extends KubeObject>(reflector: Reflector<T>, options: OwnerOptions<T>): Source =>
  forMap(
    reflector,
    (o, cluster) =>
      (o.metadata.ownerReferences ?? [])
        .filter(
          (ref) =>
            ref.kind === options.ownerKind &&
            parseApiVersion(ref.apiVersion).group === options.ownerGroup &&
            (options.onlyController === false || ref.controller === true),
        )
        .map((ref) =>
          makeRequest(
            { namespace: options.ownerClusterScoped ? "" : (o.metadata.namespace ?? ""), name: ref.name },
            cluster,
          ),
        ),
    { ...options, description: `owner ${options.ownerKind}` },
  )

/** Requests from a stream (e.g. a ClusterCache's cluster events); runs until the scope closes. */
export const fromStream = (stream: Stream.Stream<Request>, description = "stream"): Source => ({
  description,
  start: (enqueue) => Effect.asVoid(Effect.forkScoped(Stream.runForEach(stream, enqueue))),
})
