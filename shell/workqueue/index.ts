/**
 * Package workqueue: the shared, cluster-fair, de-duplicating, delaying, rate-limited queue of
 * reconcile requests, the `Request`/`ClusterName` vocabulary, and workers that drain the queue.
 *
 * @module
 */
export {
  BackoffDefaults,
  type BackoffOptions,
  BucketDefaults,
  type BucketOptions,
  ItemBackoff,
  TokenBucket,
} from "./backoff.ts"
export { type AddOutcome, FairQueue } from "./fairQueue.ts"
export * as WorkQueueMetrics from "./metrics.ts"
export { WorkObserver, type WorkObserverShape } from "./observer.ts"
export * from "./request.ts"
export { runWorkers } from "./workers.ts"
export { make, type WorkQueue, type WorkQueueOptions, WorkQueueShutDownError } from "./workQueue.ts"
