/**
 * The clusters still to clean of released sources, kept in the hub ConfigMap
 * `krtt-propagate-pending` (docs/fleet.md): one key per source (`<kind>.<namespace>.<name>`),
 * its value a JSON list of cluster names.
 *
 * # Expected flow
 * A source released while clusters the provider knows were not engaged gets their names
 * (`remember`); when one of them is engaged again, `cleanCluster` runs the pair's table for each
 * source it holds, as a source no longer wanted, and forgets the cluster once it is `Clean`.
 *
 * # Guarantees
 * - Every write is built on the data just read and checked against its resourceVersion; a
 *   conflict (another reconcile's write) reads and writes again, at most three times.
 * - A value that does not parse counts as no cluster; a key of another shape is left alone.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import type { Source, SourceKind } from "../../../core/propagate/index.ts"
import type { KubeClientShape } from "../../kube/client.ts"
import type { KubeError } from "../../kube/errors.ts"
import { Resources } from "../../kube/resource.ts"
import type { Cluster } from "../../multicluster/index.ts"
import { strings } from "./observe.ts"

/** The hub ConfigMap that remembers the clusters still to clean of released sources. */
export const PendingConfigMap = "krtt-propagate-pending"

/** The pending cleanups of one hub namespace. */
export interface Pending {
  /** Adds `clusters` to the source's list. */
  readonly remember: (source: Source, clusters: ReadonlyArray<string>) => Effect.Effect<void, KubeError>
  /**
   * Cleans `cluster` of every source it is pending for: `clean` runs the source's table there
   * and answers whether the cluster is clean of it.
   */
  readonly cleanCluster: (
    cluster: Cluster,
    clean: (source: Source, uid: string) => Effect.Effect<boolean>,
  ) => Effect.Effect<void, KubeError>
}

const keyOf = (kind: SourceKind, namespace: string, name: string) => `${kind}.${namespace}.${name}`

/** The cluster names of a value; none when it does not parse. */
const clustersOf = (v: string | undefined): Array<string> => {
  try {
    const parsed: unknown = JSON.parse(v ?? "[]")
    return Array.isArray(parsed) ? parsed.filter((x): x is string => typeof x === "string") : []
  } catch {
    return []
  }
}

/** The released source a key names, as the table sees it (gone: its copies are removed). */
const releasedSource = (key: string): Source | undefined => {
  const [kind, namespace, ...rest] = key.split(".")
  if (kind !== "ConfigMap" && kind !== "Secret") return undefined
  const content = { data: {}, binaryData: {}, labels: {}, annotations: {}, type: undefined }
  return { kind, namespace: namespace ?? "", name: rest.join("."), labelled: false, deleting: true, content }
}

/** The pending cleanups kept in `namespace` of the hub through `hub`. */
export const makePending = (hub: KubeClientShape, namespace: string): Pending => {
  const ref = { namespace, name: PendingConfigMap }
  const read = hub.get(Resources.configMaps, ref).pipe(
    Effect.map((o) => ({ data: strings(o.data), resourceVersion: o.metadata.resourceVersion })),
    Effect.catchTag("NotFound", () =>
      Effect.succeed({ data: {} as Record<string, string>, resourceVersion: undefined }),
    ),
  )
  const write = (data: Record<string, string>, resourceVersion: string | undefined) => {
    const object = { apiVersion: "v1", kind: "ConfigMap", metadata: { ...ref, resourceVersion }, data }
    return resourceVersion === undefined
      ? hub.create(Resources.configMaps, { ...object, metadata: ref })
      : hub.update(Resources.configMaps, object)
  }
  const update = (f: (data: Record<string, string>) => Record<string, string>) =>
    Effect.gen(function* () {
      const { data, resourceVersion } = yield* read
      const next = f({ ...data })
      if (JSON.stringify(next) !== JSON.stringify(data)) yield* write(next, resourceVersion)
    }).pipe(Effect.retry({ times: 3, while: (e) => e._tag === "Conflict" || e._tag === "AlreadyExists" }))

  const remember = (source: Source, clusters: ReadonlyArray<string>) =>
    update((d) => {
      const k = keyOf(source.kind, source.namespace, source.name)
      d[k] = JSON.stringify([...new Set([...clustersOf(d[k]), ...clusters])].sort())
      return d
    })
  const forget = (key: string, cluster: string) =>
    update((d) => {
      const left = clustersOf(d[key]).filter((c) => c !== cluster)
      if (left.length === 0) delete d[key]
      else d[key] = JSON.stringify(left)
      return d
    })
  const cleanCluster: Pending["cleanCluster"] = (cluster, clean) =>
    Effect.gen(function* () {
      const { data } = yield* read
      for (const [key, value] of Object.entries(data)) {
        const source = releasedSource(key)
        if (source === undefined || !clustersOf(value).includes(cluster.name)) continue
        if (!(yield* clean(source, `pending:${key}`))) continue
        yield* forget(key, cluster.name)
        yield* Effect.logInfo("cleaned a cluster that came back").pipe(
          Effect.annotateLogs({
            cluster: cluster.name,
            source: `${source.kind} ${source.namespace}/${source.name}`,
          }),
        )
      }
    })
  return { remember, cleanCluster }
}
