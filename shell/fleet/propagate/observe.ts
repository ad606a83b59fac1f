/**
 * What table `propagate.copy` reads, as `krtt propagate` observes it: the source in the hub
 * (`sourceOf`), the copy in one workload cluster and whether it can be seen (`observeCopy`), and
 * the source's selector against that cluster (`targetOf`, with `kubeconfigSecretLabels` for the
 * kubeconfig-secrets provider's cluster labels).
 *
 * # Expected flow
 * `observeCopy` makes the source a dependent of the scoped-cache informer of the copy's
 * namespace and kind (so a Role in that namespace is all the identity needs), has that informer
 * followed (its events enqueue the source), then reads the copy from the cache, or from the API
 * server when `live`. `releaseCopyInformers` undoes the dependency once the source is released.
 *
 * # Guarantees
 * - An informer refused (the scoped cache's access review) or a read refused is
 *   `access: "Forbidden"` (row 7), never an error; a copy that is not there is `copy: null`.
 * - A namespace that refused is not asked again (no informer added, nothing read) before
 *   `permissionRecheckInterval` has passed (`refusals.ts`): it is `Forbidden` meanwhile.
 * - Only names and labels are read into logs: a Secret's data stays in `Content`.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import {
  ClusterNameLabel,
  type Content,
  type Copy,
  PropagatedFromLabel,
  PropagateLabel,
  PropagationAnnotation,
  type Source,
  type SourceKind,
  type Target,
} from "../../../core/propagate/index.ts"
import type { Cache, CacheError } from "../../cache/types.ts"
import type { KubeObject, ResourceRef } from "../../kube/resource.ts"
import { Resources } from "../../kube/resource.ts"
import { matchesRequirements, parseLabelSelector } from "../../kube/selector.ts"
import type { Cluster, MultiClusterManager } from "../../multicluster/index.ts"
import { asScopedCache } from "../../scopedcache/index.ts"
import type { Refusals } from "./refusals.ts"

/** The hub and cluster resource of a source kind. */
export const resourceOf = (kind: SourceKind): ResourceRef =>
  kind === "Secret" ? Resources.secrets : Resources.configMaps

/** The string values of a map read from an object (`data`, `binaryData`). */
export const strings = (v: unknown): Record<string, string> => {
  const out: Record<string, string> = {}
  if (v !== null && typeof v === "object")
    for (const [k, x] of Object.entries(v)) if (typeof x === "string") out[k] = x
  return out
}

/** What an object holds, as the table compares it. */
export const contentOf = (kind: SourceKind, o: KubeObject): Content => ({
  data: strings(o.data),
  binaryData: strings(o.binaryData),
  labels: { ...(o.metadata.labels ?? {}) },
  annotations: { ...(o.metadata.annotations ?? {}) },
  type: kind === "Secret" ? (typeof o.type === "string" ? o.type : "Opaque") : undefined,
})

/** The table's view of a hub object. */
export const sourceOf = (kind: SourceKind, o: KubeObject): Source => ({
  kind,
  namespace: o.metadata.namespace ?? "",
  name: o.metadata.name ?? "",
  labelled: o.metadata.labels?.[PropagateLabel] === "true",
  deleting: o.metadata.deletionTimestamp !== undefined && o.metadata.deletionTimestamp !== null,
  content: contentOf(kind, o),
})

/**
 * The source's selector (`krtt.io/propagation`) against a cluster: its labels (`clusterLabels`)
 * and the pseudo-label `krtt.io/cluster-name: <name>`.
 */
export const targetOf = (
  annotations: Readonly<Record<string, string>>,
  cluster: string,
  labels: Readonly<Record<string, string>> = {},
): Target => {
  const selector = annotations[PropagationAnnotation]
  if (selector === undefined || selector.trim() === "") return { _tag: "Selected" }
  const requirements = parseLabelSelector(selector)
  if (requirements === undefined) return { _tag: "Invalid", message: `"${selector}" is not a label selector` }
  return matchesRequirements(requirements, { ...labels, [ClusterNameLabel]: cluster })
    ? { _tag: "Selected" }
    : { _tag: "NotSelected" }
}

/**
 * The labels of the kubeconfig-secrets provider's clusters: those of the Secret of the cluster's
 * name in `namespace`, read from the hub's cache (the propagation controller's own informer of
 * Secrets). A Secret that is not there gives no labels.
 */
export const kubeconfigSecretLabels =
  (manager: MultiClusterManager, namespace: string) =>
  (cluster: string): Effect.Effect<Readonly<Record<string, string>>> =>
    manager.hub.cache.get(Resources.secrets, { namespace, name: cluster }).pipe(
      Effect.map((o) => ({ ...(o.metadata.labels ?? {}) })),
      Effect.orElseSucceed(() => ({})),
    )

/** What was seen of one source's copy in one cluster. */
export interface SeenCopy {
  readonly access: "Allowed" | "Forbidden"
  readonly copy: Copy | null
  /** The copy's resourceVersion, for an update checked against it. */
  readonly resourceVersion?: string | undefined
}

/** Nothing can be seen: the informer or a read or a write was refused (row 7). */
export const forbiddenCopy: SeenCopy = { access: "Forbidden", copy: null }

/** How a cluster's caches and informers are followed, so that their events enqueue sources. */
export interface Follow {
  readonly cache: (cache: Cache) => Effect.Effect<void>
  readonly informer: (cache: Cache, kind: SourceKind, namespace: string) => Effect.Effect<void>
  /** The namespaces that refused us lately: not asked again before their interval. */
  readonly refusals: Refusals
}

/** One source's copy in one cluster: where it is, and who depends on its informer. */
export interface CopyPlace {
  readonly cluster: Cluster
  readonly source: Source
  /** The source's uid: the scoped cache's dependent. */
  readonly uid: string
  /** The copy's namespace in the cluster (`copyNamespace`). */
  readonly namespace: string
}

/** The dependent that a source is of its informers. */
const dependentOf = (place: CopyPlace) => ({
  uid: place.uid,
  kind: place.source.kind,
  namespace: place.source.namespace,
  name: place.source.name,
})

/**
 * Observes the copy of `place.source` in `place.cluster`: informer, access, copy. `live` reads
 * the copy from the API server instead of the cache (which may not show our own latest write yet).
 */
export const observeCopy = (
  place: CopyPlace,
  live: boolean,
  follow: Follow,
): Effect.Effect<SeenCopy, CacheError> =>
  Effect.gen(function* () {
    const { cluster, source } = place
    const resource = resourceOf(source.kind)
    const key = { namespace: place.namespace, name: source.name }
    const where = { cache: cluster.cache, kind: source.kind, namespace: place.namespace }
    if (yield* follow.refusals.recent(where)) return forbiddenCopy
    const refused = Effect.as(follow.refusals.refused(where), forbiddenCopy)
    const scoped = asScopedCache(cluster.cache)
    if (scoped !== undefined) {
      yield* follow.cache(cluster.cache)
      const added = yield* scoped
        .addInformer({ resource, namespace: place.namespace, dependent: dependentOf(place) })
        .pipe(Effect.result)
      if (added._tag === "Failure") {
        if (added.failure._tag === "Forbidden") return yield* refused
        return yield* Effect.fail(added.failure)
      }
    }
    yield* follow.informer(cluster.cache, source.kind, place.namespace)
    const read = yield* (live ? cluster.client.get(resource, key) : cluster.cache.get(resource, key)).pipe(
      Effect.result,
    )
    if (read._tag === "Failure" && read.failure._tag === "Forbidden") return yield* refused
    follow.refusals.answered(where)
    if (read._tag === "Success") {
      const o = read.success
      const copy = {
        propagatedFrom: o.metadata.labels?.[PropagatedFromLabel],
        content: contentOf(source.kind, o),
      }
      return { access: "Allowed", copy, resourceVersion: o.metadata.resourceVersion }
    }
    if (read.failure._tag === "NotFound") return { access: "Allowed", copy: null }
    return yield* Effect.fail(read.failure)
  })

/** Releases the source's informer in the cluster of `place` (the informer stops with its last dependent). */
export const releaseCopyInformer = (place: CopyPlace): Effect.Effect<void> =>
  asScopedCache(place.cluster.cache)?.removeInformer({
    resource: resourceOf(place.source.kind),
    namespace: place.namespace,
    dependent: dependentOf(place),
  }) ?? Effect.void
