/**
 * Event handlers of multi-cluster controllers: what an event on one engaged cluster enqueues.
 *
 * A handler maps an informer event of cluster `X` to requests. The built-ins enqueue the object
 * itself in `X` (uniform controllers), its owner in `X`, or whatever a map function says, which
 * may be a request of the hub `""` (aggregating controllers). A handler that must remember its
 * cluster implements `deepCopyFor` (seed 003, Proposal: "a passed TypedEventHandler will be
 * duplicated per engaged cluster if they fulfil ... DeepCopyFor(c cluster.Cluster)"): the
 * controller then uses `handler.deepCopyFor(cluster)` for that cluster's source and the handler
 * itself nowhere.
 *
 * @module
 */
import { type KubeObject, parseApiVersion } from "../kube/resource.ts"
import type { ReflectorEvent } from "../reflector/reflector.ts"
import { makeRequest, type Request, requestKey } from "../workqueue/request.ts"
import type { Cluster } from "./types.ts"

/** Maps events of one cluster to requests. */
export interface ClusterEventHandler<T extends KubeObject = KubeObject> {
  /** For logs, e.g. `objects`, `owner Widget`. */
  readonly description: string
  /** The requests an event of `cluster` causes (duplicates are removed by the caller). */
  readonly requests: (event: ReflectorEvent<T>, cluster: Cluster) => ReadonlyArray<Request>
  /** A copy for one engaged cluster (seed 003's `DeepCopyFor`); used instead of this handler. */
  readonly deepCopyFor?: ((cluster: Cluster) => ClusterEventHandler<T>) | undefined
}

/** The handler a controller uses for `cluster`: the handler's copy for it when it makes copies. */
export const handlerFor = <T extends KubeObject>(
  handler: ClusterEventHandler<T>,
  cluster: Cluster,
): ClusterEventHandler<T> => handler.deepCopyFor?.(cluster) ?? handler

/** The requests of an update (old and new side) or another event, without duplicates. */
export const eventRequests = <T extends KubeObject>(
  map: (object: T) => ReadonlyArray<Request>,
  event: ReflectorEvent<T>,
): ReadonlyArray<Request> => {
  const all = event._tag === "Updated" ? [...map(event.old), ...map(event.object)] : map(event.object)
  const seen = new Set<string>()
  return all.filter((r) => {
    const key = requestKey(r)
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}

/** A request for the object itself, in the cluster of the event (`EnqueueRequestForObject`). */
export const enqueueRequestForObject = <T extends KubeObject = KubeObject>(): ClusterEventHandler<T> => ({
  description: "objects",
  requests: (event, cluster) =>
    eventRequests(
      (o) => [
        makeRequest({ namespace: o.metadata.namespace ?? "", name: o.metadata.name ?? "" }, cluster.name),
      ],
      event,
    ),
})

/** Which owner references `enqueueRequestForOwner` follows. */
export interface OwnerHandlerOptions {
  /** The owner's API group (`""` for core) and kind. */
  readonly ownerGroup: string
  readonly ownerKind: string
  /** Only the controller reference. Default true (`OnlyControllerOwner`). */
  readonly onlyController?: boolean | undefined
  /** The owner is cluster-scoped (requests get namespace `""`). Default false. */
  readonly ownerClusterScoped?: boolean | undefined
}

/** A request for the object's owner, in the cluster of the event (`EnqueueRequestForOwner`). */
export const enqueueRequestForOwner = <T extends KubeObject = KubeObject>(
  options: OwnerHandlerOptions,
): ClusterEventHandler<T> => ({
  description: `owner ${options.ownerKind}`,
  requests: (event, cluster) =>
    eventRequests(
      (o) =>
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
              cluster.name,
            ),
          ),
      event,
    ),
})

/**
 * Requests from a map function (`EnqueueRequestsFromMapFunc`). The function gets the cluster the
 * event came from and may name any cluster, e.g. the hub `""` for an aggregating controller.
 */
export const enqueueRequestsFromMapFunc = <T extends KubeObject = KubeObject>(
  map: (object: T, cluster: Cluster) => ReadonlyArray<Request>,
  description = "map function",
): ClusterEventHandler<T> => ({
  description,
  requests: (event, cluster) => eventRequests((o) => map(o, cluster), event),
})
