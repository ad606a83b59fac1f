/**
 * What `krtt propagate`'s `addToManager` takes and gives: its options (the numbers, the kinds,
 * the cluster labels of selectors, where copies go) and the controllers it added.
 *
 * @module
 */
import type * as Effect from "effect/Effect"
import type { PropagateConfig, SourceKind } from "../../../core/propagate/index.ts"
import type { MultiClusterController } from "../../multicluster/index.ts"

export interface PropagateOptions {
  /** Where `krtt-propagate-pending` lives in the hub. */
  readonly pendingNamespace: string
  /** Overrides of `PropagateDefaults`. */
  readonly config?: Partial<PropagateConfig> | undefined
  /** The Events' reporting component. Default `krtt-propagate`. */
  readonly component?: string | undefined
  /** The kinds to propagate. Default both. */
  readonly kinds?: ReadonlyArray<SourceKind> | undefined
  /**
   * A cluster's labels for `krtt.io/propagation` selectors; none by default (then only the
   * pseudo-label `krtt.io/cluster-name` is matched). `kubeconfigSecretLabels` gives the
   * kubeconfig-secrets provider's Secret labels.
   */
  readonly clusterLabels?: ((cluster: string) => Effect.Effect<Readonly<Record<string, string>>>) | undefined
  /**
   * The namespace of a source's copy in a cluster; the source's own by default ("the namespace of
   * the same name"). For the `namespaces` provider, whose logical cluster is one namespace,
   * `() => ""` puts every copy into that namespace (its client and cache read `""` as their own).
   */
  readonly copyNamespace?: ((cluster: string, sourceNamespace: string) => string) | undefined
}

/** What `addToManager` returns: the controllers, for tests and status. */
export interface Propagator {
  readonly controllers: ReadonlyArray<MultiClusterController>
  readonly config: PropagateConfig
}
