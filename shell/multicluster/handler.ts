/**
 * Event handlers of multi-cluster controllers: the handlers of `../controller/handler.ts`
 * (one vocabulary for single- and multi-cluster controllers), given the engaged `Cluster` an
 * event came from. The built-ins enqueue the object itself in that cluster (uniform
 * controllers), its owner there, whatever a map function says, which may be a request of the
 * hub `""` (aggregating controllers), or one request per cluster an object names (the fan-out).
 * A handler that must remember its cluster implements `deepCopyFor` (seed 003's `DeepCopyFor`):
 * the controller uses its copy for that cluster's source and the handler itself nowhere.
 *
 * @module
 */
import type { EventHandler } from "../controller/handler.ts"
import type { KubeObject } from "../kube/resource.ts"
import type { Request } from "../workqueue/request.ts"
import type { ClusterAware } from "./request.ts"
import type { Cluster } from "./types.ts"

export {
  enqueueRequestForObject,
  enqueueRequestForOwner,
  enqueueRequestsForClusters,
  enqueueRequestsFromMapFunc,
  eventRequests,
  type FanOutOptions,
  handlerFor,
  mapHandler,
  type OwnerHandlerOptions,
} from "../controller/handler.ts"

/** An event handler of a multi-cluster watch: it is given the engaged `Cluster` of each event. */
export type ClusterEventHandler<
  T extends KubeObject = KubeObject,
  Req extends ClusterAware = Request,
> = EventHandler<T, Req, Cluster>
