/**
 * Event handlers of multi-cluster controllers: what an event on one engaged cluster enqueues.
 * Handlers are typed by the controller's request type (`Request`, `{cluster, namespace, name}`,
 * unless the controller brings its own, see `request.ts`).
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
import { type ClusterName, makeRequest, type Request } from "../workqueue/request.ts"
import { type ClusterAware, requestDataKey } from "./request.ts"
import type { Cluster } from "./types.ts"

/** Maps events of one cluster to requests. */
export interface ClusterEventHandler<T extends KubeObject = KubeObject, Req extends ClusterAware = Request> {
  /** For logs, e.g. `objects`, `owner Widget`. */
  readonly description: string
  /** The requests an event of `cluster` causes (duplicates are removed by the caller). */
  readonly requests: (event: ReflectorEvent<T>, cluster: Cluster) => ReadonlyArray<Req>
  /** A copy for one engaged cluster (seed 003's `DeepCopyFor`); used instead of this handler. */
  readonly deepCopyFor?: ((cluster: Cluster) => ClusterEventHandler<T, Req>) | undefined
  /**
   * When the controller engages a cluster, hand this watch's objects of the other engaged
   * clusters to the handler again and queue the requests naming the new cluster (a fan-out whose
   * target arrives after the object). Default false.
   */
  readonly replayOnEngage?: boolean | undefined
}

/** The handler a controller uses for `cluster`: the handler's copy for it when it makes copies. */
export const handlerFor = <T extends KubeObject, Req extends ClusterAware>(
  handler: ClusterEventHandler<T, Req>,
  cluster: Cluster,
): ClusterEventHandler<T, Req> => handler.deepCopyFor?.(cluster) ?? handler

/** The handler's requests turned into another request type (e.g. `For` of a controller's own type). */
export const mapHandler = <T extends KubeObject, A extends ClusterAware, B extends ClusterAware>(
  handler: ClusterEventHandler<T, A>,
  f: (request: A) => B,
): ClusterEventHandler<T, B> => ({
  description: handler.description,
  replayOnEngage: handler.replayOnEngage,
  requests: (event, cluster) => handlerFor(handler, cluster).requests(event, cluster).map(f),
})

/** The requests of an update (old and new side) or another event, without duplicates. */
export const eventRequests = <T extends KubeObject, Req extends ClusterAware = Request>(
  map: (object: T) => ReadonlyArray<Req>,
  event: ReflectorEvent<T>,
): ReadonlyArray<Req> => {
  const all = event._tag === "Updated" ? [...map(event.old), ...map(event.object)] : map(event.object)
  const seen = new Set<string>()
  return all.filter((r) => {
    const key = requestDataKey(r)
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
export const enqueueRequestsFromMapFunc = <
  T extends KubeObject = KubeObject,
  Req extends ClusterAware = Request,
>(
  map: (object: T, cluster: Cluster) => ReadonlyArray<Req>,
  description = "map function",
): ClusterEventHandler<T, Req> => ({
  description,
  requests: (event, cluster) => eventRequests((o) => map(o, cluster), event),
})

/** What `enqueueRequestsForClusters` needs. */
export interface FanOutOptions<T extends KubeObject, Req extends ClusterAware> {
  /**
   * The clusters an object names (e.g. from a label, an annotation or its spec). Names that are
   * not strings, and duplicates, are skipped.
   */
  readonly clusters: (object: T, from: Cluster) => ReadonlyArray<string>
  /** The request for the object on one named cluster. Default: its namespace and name there. */
  readonly request?: ((object: T, cluster: ClusterName) => Req) | undefined
  /** For logs. Default `fan-out`. */
  readonly description?: string | undefined
}

/**
 * Fans one object (typically of the hub) out to the clusters it names: one request per named
 * cluster. On an update the clusters of the old and of the new object are both enqueued, so a
 * cluster the object no longer names is reconciled too (and can be cleaned up).
 *
 * The controller reconciles a request of cluster `X` only while it is engaged with `X`, that is
 * while one of its watches runs there (usually a watch of the copies it writes, which also
 * repairs drift); requests of other clusters are dropped (engagement table, rows 17 and 18).
 * When the controller engages `X` later, the objects naming it are replayed (`replayOnEngage`),
 * so a cluster that arrives after the object still gets its request.
 */
export const enqueueRequestsForClusters = <
  T extends KubeObject = KubeObject,
  Req extends ClusterAware = Request,
>(
  options: FanOutOptions<T, Req>,
): ClusterEventHandler<T, Req> => {
  const request =
    options.request ??
    ((o: T, cluster: ClusterName) =>
      makeRequest(
        { namespace: o.metadata.namespace ?? "", name: o.metadata.name ?? "" },
        cluster,
      ) as unknown as Req)
  return {
    replayOnEngage: true,
    description: options.description ?? "fan-out",
    requests: (event, from) =>
      eventRequests((o) => {
        const names = [...new Set(options.clusters(o, from).filter((c) => typeof c === "string"))]
        return names.map((c) => request(o, c as ClusterName))
      }, event),
  }
}
