/**
 * Event handlers (controller-runtime's `handler` package): what an event on one cluster
 * enqueues. One vocabulary for single-cluster sources (`Source.kind(reflector, handler)`) and
 * multi-cluster watches (`Builder.watches(resource, handler)`): the object itself
 * (`enqueueRequestForObject`), its owner (`enqueueRequestForOwner`), whatever a map function says
 * (`enqueueRequestsFromMapFunc`), or one request per cluster an object names
 * (`enqueueRequestsForClusters`, the fan-out).
 *
 * # Expected flow
 * A source (single-cluster) or a multi-cluster controller's watch hands each reflector event of
 * cluster `X`, with `X` itself, to `requests`; the requests it answers are queued. A handler is
 * typed by its object, its request type (`Request`, `{cluster, namespace, name}`, unless the
 * controller brings its own) and the cluster it is given (`EventCluster`, at least a name; the
 * multi-cluster runtime gives its `Cluster`, with a client and a cache). A handler that must
 * remember its cluster implements `deepCopyFor` (seed 003, Proposal: "a passed
 * TypedEventHandler will be duplicated per engaged cluster if they fulfil ...
 * DeepCopyFor(c cluster.Cluster)"): the caller then uses `handlerFor(handler, cluster)`.
 *
 * # Guarantees
 * - For an update, the requests of the old and of the new object are both answered, without
 *   duplicates (`eventRequests`), so a moved reference reconciles both sides.
 * - The built-ins never fail and never read anything but the event and the cluster's name (the
 *   map function and the fan-out's `clusters` are the caller's).
 *
 * @module
 */
import { type KubeObject, parseApiVersion } from "../kube/resource.ts"
import type { ReflectorEvent } from "../reflector/reflector.ts"
import { type ClusterName, makeRequest, type Request } from "../workqueue/request.ts"
import { type ClusterAware, requestDataKey } from "./requestData.ts"

/** The cluster an event came from, as a handler sees it: at least its name. */
export interface EventCluster {
  readonly name: ClusterName
}

/** Maps events of one cluster to requests (controller-runtime's `TypedEventHandler`). */
export interface EventHandler<
  T extends KubeObject = KubeObject,
  Req extends ClusterAware = Request,
  C extends EventCluster = EventCluster,
> {
  /** For logs, e.g. `objects`, `owner Widget`. */
  readonly description: string
  /** The requests an event of `cluster` causes (without duplicates). */
  readonly requests: (event: ReflectorEvent<T>, cluster: C) => ReadonlyArray<Req>
  /** A copy for one cluster (seed 003's `DeepCopyFor`); used instead of this handler there. */
  readonly deepCopyFor?: ((cluster: C) => EventHandler<T, Req, C>) | undefined
  /**
   * When a multi-cluster controller engages a cluster, hand this watch's objects of the other
   * engaged clusters to the handler again and queue the requests naming the new cluster (a
   * fan-out whose target arrives after the object). Default false.
   */
  readonly replayOnEngage?: boolean | undefined
}

/** The handler to use for `cluster`: the handler's copy for it when it makes copies. */
export const handlerFor = <T extends KubeObject, Req extends ClusterAware, C extends EventCluster>(
  handler: EventHandler<T, Req, C>,
  cluster: C,
): EventHandler<T, Req, C> => handler.deepCopyFor?.(cluster) ?? handler

/** The handler's requests turned into another request type (e.g. `For` of a controller's own type). */
export const mapHandler = <
  T extends KubeObject,
  A extends ClusterAware,
  B extends ClusterAware,
  C extends EventCluster,
>(
  handler: EventHandler<T, A, C>,
  f: (request: A) => B,
): EventHandler<T, B, C> => ({
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
export const enqueueRequestForObject = <T extends KubeObject = KubeObject>(): EventHandler<T> => ({
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
  /** Only the controller reference (`controller: true`). Default true (`OnlyControllerOwner`). */
  readonly onlyController?: boolean | undefined
  /** The owner is cluster-scoped (requests get namespace `""`). Default false. */
  readonly ownerClusterScoped?: boolean | undefined
}

/**
 * A request for the object's owner, in the cluster of the event (`EnqueueRequestForOwner`); a
 * namespaced owner lives in the object's namespace.
 */
export const enqueueRequestForOwner = <T extends KubeObject = KubeObject>(
  options: OwnerHandlerOptions,
): EventHandler<T> => ({
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
  C extends EventCluster = EventCluster,
>(
  map: (object: T, cluster: C) => ReadonlyArray<Req>,
  description = "map function",
): EventHandler<T, Req, C> => ({
  description,
  requests: (event, cluster) => eventRequests((o) => map(o, cluster), event),
})

/** What `enqueueRequestsForClusters` needs. */
export interface FanOutOptions<
  T extends KubeObject,
  Req extends ClusterAware,
  C extends EventCluster = EventCluster,
> {
  /**
   * The clusters an object names (e.g. from a label, an annotation or its spec). Names that are
   * not strings, and duplicates, are skipped.
   */
  readonly clusters: (object: T, from: C) => ReadonlyArray<string>
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
 * A multi-cluster controller reconciles a request of cluster `X` only while it is engaged with
 * `X`, that is while one of its watches runs there (usually a watch of the copies it writes,
 * which also repairs drift); requests of other clusters are dropped (engagement table, rows 17
 * and 18). When the controller engages `X` later, the objects naming it are replayed
 * (`replayOnEngage`), so a cluster that arrives after the object still gets its request.
 */
export const enqueueRequestsForClusters = <
  T extends KubeObject = KubeObject,
  Req extends ClusterAware = Request,
  C extends EventCluster = EventCluster,
>(
  options: FanOutOptions<T, Req, C>,
): EventHandler<T, Req, C> => {
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
