/**
 * Multi-cluster engagement (seed 003, "Multi-Cluster Support") as a pure transition: for one
 * (controller, cluster) pair, table `multicluster.engagement` decides when the controller's
 * sources start and stop on the cluster, and what happens to a request that names it.
 *
 * # Expected flow (for the shell)
 * The shell keeps one {@link Engagement} per (controller, cluster) pair, starting at
 * {@link absent}, and feeds every trigger of that pair through {@link engagementTransition}
 * one at a time (a per-pair lock or queue; never held across the I/O below). The result's
 * `status` is the pair's next state; its `actions` are performed in order:
 *
 * | action | the shell does | then feeds |
 * | --- | --- | --- |
 * | `StartCache` | makes sure the cluster's cache runs (one per cluster, shared; idempotent) | `CacheStarted{generation}` or `EngageFailed{step:"startCache"}` |
 * | `WaitForCacheSync` | waits, at most `timeout` ms, for the informers of the controller's watches | `CacheSynced` or `CacheSyncFailed{timedOut}` |
 * | `ApplyIndexes` | adds the provider's `indexField` indexes to that cache | `IndexesApplied` or `EngageFailed{step:"indexes"}` |
 * | `StartSources` | opens the engage scope of (controller, cluster, generation) and starts one source per listed watch in it, each with its own handler copy (`DeepCopyFor`) | `SourcesStarted` or `EngageFailed{step:"sources"}`; later `EngageFailed{step:"sources"}` if a source dies |
 * | `CancelEngageScope` | closes that scope: every source of that engagement stops (idempotent) | nothing |
 * | `Reconcile` | runs the reconciler for `cluster://cluster/namespace/name` | nothing |
 * | `RequeueRequest` | puts the request back on the queue after `after` ms | `RequestArrived` when it comes back |
 * | `DropRequest` | forgets the request (not requeued); logs `detail` once when `log`, always counts it | nothing |
 * | `RetryAfter` | arms a timer | `RetryDue` after `after` ms |
 * | `Log` | writes the line | nothing |
 *
 * The provider's calls become triggers: `engage` → `ClusterAdded{generation}` for every
 * controller (the hub `""` is added by the manager at start), a replaced cluster (new
 * kubeconfig) → `CredentialsChanged{generation}`, the engage scope closing or `disengage` →
 * `ClusterRemoved`, health verdicts → `ClusterUnhealthy`/`ClusterHealthy`.
 *
 * # The engage scope (what the shell must keep)
 * - `StartCache` opens the pair's engage scope; `WaitForCacheSync`, `ApplyIndexes` and
 *   `StartSources` of that engagement run as fibers in it, and the sources live in it.
 * - `CancelEngageScope` closes it: sources stop and steps still running are interrupted.
 *   **An interrupted step reports nothing.** This matters: a retry or a re-engagement after
 *   `ClusterHealthy` reuses the same generation, so a late `SourcesStarted` of the cancelled
 *   attempt would otherwise be taken for the new attempt's (and sources started after the
 *   cancel would leak). Opening the scope only at `StartSources` is not enough: a
 *   `CancelEngageScope` that arrives while `StartSources` runs would find nothing to close.
 * - Every outcome carries the generation its step ran for; a late outcome of another
 *   generation is ignored (row 24).
 * - Triggers of one pair are fed one at a time: read the pair, run the transition, store the
 *   status, without an `await`/`yield` in between (or under a per-pair lock that is never held
 *   across the actions' I/O).
 *
 * `property-tests/multicluster/sequences.test.ts` runs a model shell that keeps these rules and
 * checks the table's promises over random sequences.
 *
 * # Guarantees
 * See `engagement.ts`; the table's rows are transcribed in `spec/multicluster/engagement.ts`
 * and generated into `docs/krtt/multicluster.md`.
 *
 * @module
 */
import { engagementTransition } from "./engagement.ts"
import { ENGAGEMENT } from "./types.ts"

export * from "./config.ts"
export * from "./engagement.ts"
export * from "./types.ts"
export * from "./verdict.ts"

/** The multi-cluster transitions by table id. */
export const transitions = {
  [ENGAGEMENT]: engagementTransition,
} as const
