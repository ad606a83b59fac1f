/**
 * The multi-cluster runtime's vocabulary (seed 003, "Multi-Cluster Support"): clusters, the
 * providers that discover them, and the `Aware` components that providers engage and
 * disengage. The decisions (when a cluster is engaged with a controller, when a request is
 * dropped) are the pure table `multicluster.engagement` in `core/multicluster/`; this module is
 * only the contract between the shell's pieces.
 *
 * # Expected flow
 * A `Provider` runs (`run(aware)`): it discovers clusters (Secrets, kubeconfig contexts,
 * namespaces, Cluster API Clusters), builds a `Cluster` for each, and calls `aware.engage` with
 * a scope that it closes when the cluster leaves, turns unhealthy or changes credentials (then
 * it engages the new `Cluster`). The manager is the `Aware` that providers call; it engages each
 * of its multi-cluster controllers in turn, which start their sources on the cluster's cache.
 *
 * # Guarantees
 * - The hub (default) cluster is named `""` (`HubCluster`); provider clusters never are.
 * - A scope given to `engage` is closed exactly once, when the cluster leaves or is replaced;
 *   everything started in it (watches, handlers) stops with it.
 * - `get(name)` answers `ClusterNotFound` for a cluster the provider does not have (any more).
 *
 * @module
 */
import * as Data from "effect/Data"
import type * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type { Cache } from "../cache/types.ts"
import type { KubeClientShape } from "../kube/client.ts"
import type { KubeObject, ResourceRef } from "../kube/resource.ts"
import type { IndexFunc } from "../reflector/store.ts"
import type { ClusterName } from "../workqueue/request.ts"

export { type ClusterName, HubCluster } from "../workqueue/request.ts"

/** One cluster as controllers see it (seed 003's `cluster.Cluster` with `Name()`). */
export interface Cluster {
  /** The provider's name for it, as users see it; `""` only for the hub. */
  readonly name: ClusterName
  /** A client for this cluster (uncached reads and all writes). */
  readonly client: KubeClientShape
  /** The cluster's cache: informers shared by every controller engaged with it. */
  readonly cache: Cache
  /**
   * Identifies the credentials and endpoint the cluster was built from (e.g. a hash of its
   * kubeconfig). A provider that sees it change disengages the old `Cluster` and engages a new
   * one; never the kubeconfig itself (it must not reach logs).
   */
  readonly generation: string
}

/** No cluster of that name: never engaged, or gone. */
export class ClusterNotFound extends Data.TaggedError("ClusterNotFound")<{
  readonly cluster: ClusterName
  readonly message: string
}> {}

/** Engaging a cluster failed (its cache did not sync, a source could not start, ...). */
export class EngageFailedError extends Data.TaggedError("EngageFailedError")<{
  readonly cluster: ClusterName
  readonly message: string
}> {}

/**
 * A component that starts and stops work per cluster (seed 003's `cluster.Aware`). Both calls
 * must be re-entrant and must not block on one cluster's I/O longer than their own timeouts.
 */
export interface Aware {
  /**
   * Start operations for `cluster`. `scope` is tied to the cluster's lifecycle: the provider
   * closes it when the cluster leaves (or is replaced); work started here is forked into it.
   */
  readonly engage: (cluster: Cluster, scope: Scope.Scope) => Effect.Effect<void, EngageFailedError>
  /** Stop operations for `cluster` (also implied by the engage scope closing). */
  readonly disengage: (cluster: Cluster) => Effect.Effect<void>
}

/**
 * Anything the manager engages like a controller (seed 003: the manager "will call Engage and
 * Disengage on all its runnables that are cluster-aware"): an `Aware` with a name, and work to
 * start once with the manager (e.g. a per-cluster metrics exporter, a cross-cluster index).
 */
export interface ClusterAwareRunnable extends Aware {
  /** For logs. */
  readonly name: string
  /** Started once when the manager starts (or when added to a started manager), in its scope. */
  readonly start?: Effect.Effect<void, never, Scope.Scope> | undefined
}

/** What `krtt clusters` prints for one cluster. */
export interface ClusterState {
  readonly name: ClusterName
  /** Engaged with the manager now. */
  readonly engaged: boolean
  /**
   * The last health verdict: `true` until a probe says otherwise, and `false` at once for a
   * cluster the provider cannot even build (e.g. a malformed kubeconfig; `reason` says why).
   */
  readonly healthy: boolean
  /** Why it is (not) engaged, in a few words, e.g. `probe failed 5 times: connection refused`. */
  readonly reason: string
}

/** Discovers clusters and engages them with an `Aware` (seed 003's `cluster.Provider`). */
export interface Provider {
  /** e.g. `kubeconfig-secrets`; composed providers prefix their clusters' names with it. */
  readonly name: string
  /** The cluster of that name, as long as the provider has it. */
  readonly get: (name: ClusterName) => Effect.Effect<Cluster, ClusterNotFound>
  /** Adds an index to the caches of every current and future cluster of this provider. */
  readonly indexField: <T extends KubeObject = KubeObject>(
    resource: ResourceRef,
    name: string,
    extract: IndexFunc<T>,
  ) => Effect.Effect<void>
  /** Discovers clusters and engages/disengages them with `aware` until the scope closes. */
  readonly run: (aware: Aware) => Effect.Effect<void, never, Scope.Scope>
  /** Every cluster the provider knows, engaged or not, with its health and reason. */
  readonly clusters: Effect.Effect<ReadonlyArray<ClusterState>>
}
