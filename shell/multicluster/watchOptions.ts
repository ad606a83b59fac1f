/**
 * What a multi-cluster controller watches, and on which clusters: its watches (`For`, `Owns`,
 * `Watches`), each with an event handler and predicates, and the engage options of the
 * controller and of each watch (seed 003, "EngageWithDefaultCluster"; upstream's per-watch
 * `WithEngageWithLocalCluster`, `WithEngageWithProviderClusters`, `WithClusterFilter`).
 *
 * A watch's own options win over the controller's. Unset, a watch runs on the hub without a
 * provider; with one, `Watches` run on the provider's clusters and `For`/`Owns` on the hub only
 * (the engagement table's `sourcesFor` decides).
 *
 * @module
 */
import type { WatchKind } from "../../core/multicluster/index.ts"
import type { Predicate } from "../controller/predicate.ts"
import type { KubeObject, ResourceRef } from "../kube/resource.ts"
import type { Request } from "../workqueue/request.ts"
import type { ClusterEventHandler } from "./handler.ts"
import type { ClusterAware } from "./request.ts"
import type { Cluster } from "./types.ts"

/**
 * Which clusters a controller, or one of its watches, engages with (seed 003,
 * "EngageWithDefaultCluster"; upstream's per-watch engage options). A watch's own options win
 * over the controller's.
 */
export interface EngageOptions {
  /** Engage with the hub `""`. Default: true without a provider, false with one. */
  readonly engageWithLocalCluster?: boolean | undefined
  /**
   * Engage with the provider's clusters. Default: true for `Watches`; `For`/`Owns` only when
   * they set it themselves (seed 003: they are the hub's).
   */
  readonly engageWithProviderClusters?: boolean | undefined
  /** Only provider clusters this accepts (evaluated when a cluster is added or replaced). */
  readonly clusterFilter?: ((cluster: Cluster) => boolean) | undefined
}

/** One watch of the controller, with its own engage options. */
export interface WatchDeclaration<T extends KubeObject = KubeObject, Req extends ClusterAware = Request>
  extends EngageOptions {
  readonly kind: WatchKind
  readonly resource: ResourceRef
  /** Only this namespace (all when absent). */
  readonly namespace?: string | undefined
  readonly handler: ClusterEventHandler<T, Req>
  readonly predicates?: ReadonlyArray<Predicate<T>> | undefined
}
