/**
 * The vocabulary of the engagement table (`multicluster.engagement`): the state of one
 * (controller, cluster) pair, the controller's engage options, the triggers the provider and
 * the shell feed in, and the actions the shell performs. All are plain data (`_tag` unions);
 * no action is a callback.
 *
 * @module
 */
import type { TransitionInput, TransitionResult } from "../krtt/index.ts"

export const ENGAGEMENT = "multicluster.engagement"

/** The name of the hub (default, local) cluster: seed 003's `GetCluster(ctx, "")`. */
export const HUB = ""

/** How a watch was declared on the controller's builder (seed 003, Multi-Cluster-Compatible Reconcilers). */
export type WatchKind = "For" | "Owns" | "Watches"

/**
 * One watch of the controller: engaging a cluster starts one source per watch that applies to
 * it. A watch's own engage options override the controller's (upstream's per-watch
 * `WithEngageWithLocalCluster`, `WithEngageWithProviderClusters`, `WithClusterFilter`).
 */
export interface WatchSpec {
  /** Unique within the controller, e.g. `Watches(v1/ConfigMap)`. */
  readonly name: string
  readonly kind: WatchKind
  /** Source this watch on the hub. Unset: the controller's `engageWithLocalCluster`. */
  readonly engageWithLocalCluster?: boolean | undefined
  /**
   * Source this watch on provider clusters. Unset: for `Watches` the controller's
   * `engageWithProviderClusters`; `For` and `Owns` stay on the hub (seed 003: controllers
   * "triggered by events on the hub cluster can continue to use For and Owns").
   */
  readonly engageWithProviderClusters?: boolean | undefined
  /** The verdict of this watch's own cluster filter for the pair's cluster. Unset: accept. */
  readonly clusterFilter?: "accept" | "reject" | undefined
}

/** The controller's engage options for this pair's cluster: the table's desired state. */
export interface EngagementOptions {
  /** The pair's cluster; `""` is the hub. */
  readonly cluster: string
  /** Whether the manager was given a cluster provider. */
  readonly hasProvider: boolean
  /**
   * Engage with the hub (seed 003's `EngageWithDefaultCluster`, upstream's
   * `WithEngageWithLocalCluster`). Unset: `true` without a provider, `false` with one.
   */
  readonly engageWithLocalCluster?: boolean | undefined
  /**
   * Engage with the provider's clusters (`EngageWithProviderClusters`). Unset: `true`; no
   * effect without a provider.
   */
  readonly engageWithProviderClusters?: boolean | undefined
  /**
   * The verdict of the controller's cluster filter (upstream's `WithClusterFilter`) for this
   * cluster, evaluated by the shell when the cluster is added or replaced. Unset: no filter
   * (accept). Applies to provider clusters only.
   */
  readonly clusterFilter?: "accept" | "reject" | undefined
  /** The controller's watches, each with its own engage options. */
  readonly watches: ReadonlyArray<WatchSpec>
}

/** Why a present cluster is not engaged with the controller. */
export type ExcludedWhy =
  /** The hub, and no watch engages it (`engageWithLocalCluster` false: the default with a provider). */
  | "local-disabled"
  /** A provider cluster on a manager without a provider. */
  | "no-provider"
  /** The controller's `engageWithProviderClusters` is false and no watch overrides it. */
  | "provider-disabled"
  /** Every watch that engages provider clusters has a cluster filter (its own or the controller's) that rejected the cluster. */
  | "filtered"
  /** No watch engages provider clusters: `For`/`Owns` by default, or watches whose own options say so. */
  | "hub-only-watches"

/**
 * The state of one (controller, cluster) pair. `generation` identifies the provider's cluster
 * object (its credentials and endpoint); `failures` counts consecutive failed engage attempts.
 */
export type EngagementState =
  /** The provider does not have the cluster (never had it, or removed it). */
  | { readonly _tag: "Absent" }
  /** The provider has the cluster; this controller's options do not engage it. */
  | { readonly _tag: "Excluded"; readonly generation: string; readonly why: ExcludedWhy }
  /** `StartCache` was asked for; waiting for `CacheStarted`. */
  | { readonly _tag: "StartingCache"; readonly generation: string; readonly failures: number }
  /** `WaitForCacheSync` was asked for; waiting for `CacheSynced` or `CacheSyncFailed`. */
  | { readonly _tag: "WaitingForSync"; readonly generation: string; readonly failures: number }
  /** `ApplyIndexes` was asked for; waiting for `IndexesApplied`. */
  | { readonly _tag: "ApplyingIndexes"; readonly generation: string; readonly failures: number }
  /** `StartSources` was asked for; waiting for `SourcesStarted`. */
  | { readonly _tag: "Engaging"; readonly generation: string; readonly failures: number }
  /** One live source per applicable watch; requests are reconciled. */
  | { readonly _tag: "Engaged"; readonly generation: string }
  /** An engage attempt failed; the next one starts at `retryAt` (ms since the epoch). */
  | {
      readonly _tag: "Failed"
      readonly generation: string
      readonly failures: number
      readonly retryAt: number
      readonly error: string
    }
  /** The provider reported the cluster unhealthy: disengaged until it is healthy again. */
  | { readonly _tag: "Unhealthy"; readonly generation: string; readonly reason: string }

export type EngagementTag = EngagementState["_tag"]

/** States in which an engage scope may be open (something was started for this engagement). */
export const SCOPE_OPEN_TAGS: ReadonlyArray<EngagementTag> = [
  "StartingCache",
  "WaitingForSync",
  "ApplyingIndexes",
  "Engaging",
  "Engaged",
]

/** States of an engagement under way (started, not yet engaged). */
export const IN_PROGRESS_TAGS: ReadonlyArray<EngagementTag> = [
  "StartingCache",
  "WaitingForSync",
  "ApplyingIndexes",
  "Engaging",
]

/** The pair as the table sees it and leaves it (observed state and resulting status). */
export interface Engagement {
  readonly state: EngagementState
  /**
   * Requests dropped since the pair was last engaged. The first drop is logged, the others are
   * only counted: one log line per departure, not one per request.
   */
  readonly dropped: number
}

/** A pair that has never seen its cluster. */
export const absent: Engagement = { state: { _tag: "Absent" }, dropped: 0 }

/** The step of an engagement that failed (`EngageFailed`). */
export type EngageStep = "startCache" | "indexes" | "sources"

export type EngagementTrigger =
  /** The provider has (engages) the cluster, built from credentials `generation`. */
  | { readonly _tag: "ClusterAdded"; readonly generation: string }
  /** The provider removed the cluster (its engage scope is closing). */
  | { readonly _tag: "ClusterRemoved" }
  /** The provider replaced the cluster: new credentials or endpoint, `generation`. */
  | { readonly _tag: "CredentialsChanged"; readonly generation: string }
  /** `StartCache` done. */
  | { readonly _tag: "CacheStarted"; readonly generation: string }
  /** `WaitForCacheSync` done: every informer of the controller's watches synced. */
  | { readonly _tag: "CacheSynced"; readonly generation: string }
  /** `WaitForCacheSync` failed, or did not finish within its timeout. */
  | {
      readonly _tag: "CacheSyncFailed"
      readonly generation: string
      readonly timedOut: boolean
      readonly error: string
    }
  /** `ApplyIndexes` done. */
  | { readonly _tag: "IndexesApplied"; readonly generation: string }
  /** `StartSources` done: one source per watch is running in the engage scope. */
  | { readonly _tag: "SourcesStarted"; readonly generation: string }
  /** A step of the engagement failed, or a source of an engaged cluster stopped with an error. */
  | {
      readonly _tag: "EngageFailed"
      readonly generation: string
      readonly step: EngageStep
      readonly error: string
    }
  /** The provider's health checks say the cluster is unhealthy (e.g. failure threshold, 401). */
  | { readonly _tag: "ClusterUnhealthy"; readonly reason: string }
  /** The provider's health checks pass again. */
  | { readonly _tag: "ClusterHealthy" }
  /** The timer of a `RetryAfter` fired. */
  | { readonly _tag: "RetryDue" }
  /** A request of this controller names this cluster. */
  | { readonly _tag: "RequestArrived"; readonly namespace: string; readonly name: string }

export type EngagementTriggerTag = EngagementTrigger["_tag"]

/** Why a request was dropped. */
export type DropReason =
  /** The provider does not have the cluster (upstream's `ErrClusterNotFound`). */
  | "ClusterNotFound"
  /** The cluster exists but this controller is not engaged with it. */
  | "ClusterNotEngaged"

export type EngagementAction =
  /** Make sure the cluster's cache runs (idempotent: one cache per cluster, shared). Report `CacheStarted` or `EngageFailed`. */
  | { readonly _tag: "StartCache"; readonly cluster: string; readonly generation: string }
  /** Wait, at most `timeout` ms, for the informers of the controller's watches to sync. Report `CacheSynced` or `CacheSyncFailed`. */
  | {
      readonly _tag: "WaitForCacheSync"
      readonly cluster: string
      readonly generation: string
      readonly timeout: number
    }
  /** Add the provider's field indexes to this cluster's cache. Report `IndexesApplied` or `EngageFailed`. */
  | { readonly _tag: "ApplyIndexes"; readonly cluster: string; readonly generation: string }
  /**
   * Engage: open the engage scope of `(controller, cluster, generation)` and start one source per
   * watch in it, each with its own copy of the event handler (`DeepCopyFor`). Report
   * `SourcesStarted` or `EngageFailed`.
   */
  | {
      readonly _tag: "StartSources"
      readonly cluster: string
      readonly generation: string
      readonly watches: ReadonlyArray<string>
    }
  /** Close the engage scope of `(controller, cluster, generation)`: every source of that engagement stops. Idempotent. */
  | { readonly _tag: "CancelEngageScope"; readonly cluster: string; readonly generation: string }
  /** Run the reconciler for the request. */
  | {
      readonly _tag: "Reconcile"
      readonly cluster: string
      readonly namespace: string
      readonly name: string
    }
  /** Put the request back on the queue after `after` ms (the engagement is under way). */
  | {
      readonly _tag: "RequeueRequest"
      readonly cluster: string
      readonly namespace: string
      readonly name: string
      readonly after: number
    }
  /** Forget the request: never requeued. Log one line when `log`, else only count it. */
  | {
      readonly _tag: "DropRequest"
      readonly cluster: string
      readonly namespace: string
      readonly name: string
      readonly reason: DropReason
      readonly detail: string
      readonly log: boolean
    }
  /** Feed `RetryDue` after `after` ms. */
  | { readonly _tag: "RetryAfter"; readonly cluster: string; readonly after: number }
  /** A log line the row asks for (never credentials). */
  | { readonly _tag: "Log"; readonly level: "info" | "warn"; readonly message: string }

export type EngagementActionTag = EngagementAction["_tag"]

export type EngagementInput = TransitionInput<Engagement, EngagementOptions, EngagementTrigger>
export type EngagementResult = TransitionResult<EngagementAction, Engagement>
