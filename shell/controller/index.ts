/**
 * Package controller: runs a reconcile function over a cluster-fair work queue fed by sources
 * (`Source.kind`: a reflector's events through an event handler, which enqueues the object, its
 * owner, what a map function says or a fan-out; `Source.channel`: a stream), with
 * controller-runtime's requeue rules, logs and metrics, and a graceful stop.
 *
 * @module
 */
export { type Controller, ControllerDefaults, type ControllerOptions, make } from "./controller.ts"
export {
  type EventCluster,
  type EventHandler,
  enqueueRequestForObject,
  enqueueRequestForOwner,
  enqueueRequestsForClusters,
  enqueueRequestsFromMapFunc,
  eventRequests,
  type FanOutOptions,
  handlerFor,
  mapHandler,
  type OwnerHandlerOptions,
} from "./handler.ts"
export * as ControllerMetrics from "./metrics.ts"
export type { Predicate } from "./predicate.ts"
export * as Predicates from "./predicate.ts"
export { type ClusterAware, requestDataKey } from "./requestData.ts"
export {
  done,
  type ReconcileResult,
  type ResultLabel,
  requeue,
  requeueAfter,
  requeueAfterMillis,
  TerminalError,
} from "./result.ts"
export * as Source from "./source.ts"
export { reconcileResult, runTable, type Table } from "./table.ts"
