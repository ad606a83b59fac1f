/**
 * Package controller: runs a reconcile function over a cluster-fair work queue fed by sources
 * (reflector events mapped to requests, owner references, map functions, streams), with
 * controller-runtime's requeue rules, logs and metrics, and a graceful stop.
 *
 * @module
 */
export { type Controller, ControllerDefaults, type ControllerOptions, make } from "./controller.ts"
export * as ControllerMetrics from "./metrics.ts"
export type { Predicate } from "./predicate.ts"
export * as Predicates from "./predicate.ts"
export {
  done,
  type ReconcileResult,
  type ResultLabel,
  requeue,
  requeueAfter,
  requeueAfterMillis,
  TerminalError,
} from "./result.ts"
export {
  forMap,
  forObjects,
  forOwner,
  fromStream,
  type MapFunc,
  type OwnerOptions,
  type Source,
  type SourceOptions,
} from "./source.ts"
export { reconcileResult, runTable, type Table } from "./table.ts"
