/**
 * What a controller's options say about one cluster (seed 003, "Multi-Cluster Support"): which
 * of its watches start sources there, and so whether the controller engages the cluster at all
 * (table `multicluster.engagement`, rows 1-6 and 15 decide from this verdict).
 *
 * Expected flow: `engagementTransition` asks `verdict` when a cluster arrives and `sourcesFor`
 * when it starts the sources; the shell and `krtt clusters` read `excludedText` for an
 * excluded pair.
 *
 * Guarantees: a cluster is engaged exactly when at least one watch applies to it, each watch by
 * its own options (falling back to the controller's); an excluded cluster has one reason.
 *
 * @module
 */
import { type EngagementOptions, type ExcludedWhy, HUB, type WatchSpec } from "./types.ts"

/** What the options say about the pair's cluster. */
export type Verdict =
  | { readonly engage: true; readonly watches: ReadonlyArray<string> }
  | { readonly engage: false; readonly why: ExcludedWhy }

/** Effective `engageWithLocalCluster` of a watch: its own, else the controller's, else `true` without a provider and `false` with one. */
export const watchEngagesLocal = (o: EngagementOptions, w: WatchSpec): boolean =>
  w.engageWithLocalCluster ?? o.engageWithLocalCluster ?? !o.hasProvider

/**
 * Effective `engageWithProviderClusters` of a watch; never without a provider. Unset on the
 * watch: the controller's for `Watches` (unset: `true`), `false` for `For`/`Owns`.
 */
export const watchEngagesProviderClusters = (o: EngagementOptions, w: WatchSpec): boolean =>
  o.hasProvider &&
  (w.engageWithProviderClusters ?? (w.kind === "Watches" ? (o.engageWithProviderClusters ?? true) : false))

/** Whether a watch's filters (the controller's and its own) accept the pair's cluster. */
const accepted = (o: EngagementOptions, w: WatchSpec): boolean =>
  o.clusterFilter !== "reject" && w.clusterFilter !== "reject"

/**
 * The watches whose sources start on the pair's cluster: on the hub those engaging it, on a
 * provider cluster those engaging provider clusters whose filters accept it.
 */
export const sourcesFor = (o: EngagementOptions): ReadonlyArray<string> =>
  o.watches
    .filter((w) =>
      o.cluster === HUB ? watchEngagesLocal(o, w) : watchEngagesProviderClusters(o, w) && accepted(o, w),
    )
    .map((w) => w.name)

/**
 * Whether the controller engages the pair's cluster, and with which watches: a cluster is
 * engaged when at least one watch applies to it (each watch by its own options).
 */
export const verdict = (o: EngagementOptions): Verdict => {
  const watches = sourcesFor(o)
  if (watches.length > 0) return { engage: true, watches }
  if (o.cluster === HUB) return { engage: false, why: "local-disabled" }
  if (!o.hasProvider) return { engage: false, why: "no-provider" }
  if (o.watches.some((w) => watchEngagesProviderClusters(o, w))) return { engage: false, why: "filtered" }
  return {
    engage: false,
    why: o.engageWithProviderClusters === false ? "provider-disabled" : "hub-only-watches",
  }
}

const WHY_TEXT: Readonly<Record<ExcludedWhy, string>> = {
  "local-disabled": "no watch engages the hub (engageWithLocalCluster is false by default with a provider)",
  "no-provider": "the manager has no cluster provider",
  "provider-disabled": "engageWithProviderClusters is false",
  filtered: "the cluster filter rejected it",
  "hub-only-watches":
    "no watch engages provider clusters (For/Owns are hub-only unless their own options say so)",
}

/** Human-readable text of an exclusion, for logs and `krtt clusters`. */
export const excludedText = (why: ExcludedWhy): string => WHY_TEXT[why]
