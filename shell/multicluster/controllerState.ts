/**
 * What the parts of one multi-cluster controller share: its name, host, engage options, the
 * engagement table's numbers, its request type, its watches (each named), its work queue, its
 * scope and its pairs. `controller.ts` makes it once; `observe.ts`, `interpret.ts`,
 * `watches.ts`, `engage.ts` and `reconcile.ts` read it, and only the pairs change.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type { EngagementConfig } from "../../core/multicluster/index.ts"
import type { KubeObject } from "../kube/resource.ts"
import type { WorkQueue } from "../workqueue/workQueue.ts"
import type { Pairs } from "./pairs.ts"
import type { ClusterAware, RequestType } from "./request.ts"
import type { Cluster, ClusterName } from "./types.ts"
import type { EngageOptions, WatchDeclaration } from "./watchOptions.ts"

/** What the controller needs from its manager. */
export interface ControllerHost {
  readonly hasProvider: boolean
  /** Adds the manager's field indexes to a cluster's cache (`ApplyIndexes`). */
  readonly applyIndexes: (cluster: Cluster) => Effect.Effect<void>
  /** Whether the provider reports the cluster unhealthy (its scope closing means unhealthy, not removed). */
  readonly unhealthyReason: (cluster: ClusterName) => Effect.Effect<string | undefined>
}

/** A watch with its name, unique within the controller, e.g. `Watches(v1/ConfigMap)#2`. */
export interface NamedWatch<Req extends ClusterAware> extends WatchDeclaration<KubeObject, Req> {
  readonly name: string
}

/** The state of one controller. */
export interface ControllerState<Req extends ClusterAware> {
  readonly name: string
  readonly host: ControllerHost
  /** The controller's engage options: the defaults of its watches'. */
  readonly engage: EngageOptions
  readonly config: EngagementConfig
  readonly requestType: RequestType<Req>
  readonly watches: ReadonlyArray<NamedWatch<Req>>
  readonly queue: WorkQueue
  /** The controller's scope: reports and timers without a pair's lifetime run in it. */
  readonly scope: Scope.Scope
  readonly pairs: Pairs
}

/** A watch's name: its kind, resource, namespace and position. */
const watchName = (w: Pick<WatchDeclaration, "kind" | "resource" | "namespace">, i: number): string =>
  `${w.kind}(${w.resource.group === "" ? "" : `${w.resource.group}/`}${w.resource.version}/${w.resource.kind}${
    w.namespace === undefined ? "" : ` in ${w.namespace}`
  })#${i}`

/** A log line of the controller about one cluster. */
export const logFor = <Req extends ClusterAware>(
  state: ControllerState<Req>,
  level: "info" | "warn",
  message: string,
  cluster: ClusterName,
  extra: object = {},
): Effect.Effect<void> =>
  (level === "info" ? Effect.logInfo(message) : Effect.logWarning(message)).pipe(
    Effect.annotateLogs({ controller: state.name, cluster, ...extra }),
  )

/**
 * The watches, each named. A watch's handler and predicates are typed by its resource's objects
 * (erased to `never` in the controller's list); the informer of that resource hands them exactly
 * those objects, so they are called with `KubeObject` here.
 */
export const nameWatches = <Req extends ClusterAware>(
  watches: ReadonlyArray<WatchDeclaration<never, Req>>,
): ReadonlyArray<NamedWatch<Req>> =>
  watches.map((w, i) => ({ ...(w as unknown as WatchDeclaration<KubeObject, Req>), name: watchName(w, i) }))
