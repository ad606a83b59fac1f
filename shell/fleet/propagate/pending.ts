/**
 * The clusters still to clean of released sources, kept in the hub ConfigMap
 * `krtt-propagate-pending` (docs/fleet.md): one key per source (`<kind>.<namespace>.<name>`),
 * its value a JSON list of cluster names.
 *
 * # Expected flow
 * A source released while clusters the provider knows were not engaged gets their names
 * (`remember`). A cluster so remembered, or engaged anew (`owe`), is owed a cleanup: while it is
 * engaged, `cleanDue` runs the pair's table there for each source it holds, as a source no longer
 * wanted, and forgets the cluster of each source once it is `Clean`.
 *
 * # Guarantees
 * - Every write is built on the data just read and checked against its resourceVersion; a
 *   conflict (another reconcile's write) reads and writes again, at most three times.
 * - No cleanup is lost: a cluster stays owed until one cleanup finds it clean of every source
 *   it holds; one that fails or is not clean yet is tried again `retryInterval` later.
 * - A value that does not parse counts as no cluster; a key of another shape is left alone.
 *
 * @module
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import type { Source, SourceKind } from "../../../core/propagate/index.ts"
import type { KubeClientShape } from "../../kube/client.ts"
import type { KubeError } from "../../kube/errors.ts"
import { Resources } from "../../kube/resource.ts"
import type { Cluster } from "../../multicluster/index.ts"
import { strings } from "./observe.ts"

/** The hub ConfigMap that remembers the clusters still to clean of released sources. */
export const PendingConfigMap = "krtt-propagate-pending"

/** Runs the source's table in a cluster, as a source no longer wanted; answers whether it is clean there. */
export type CleanSource = (cluster: Cluster, source: Source, uid: string) => Effect.Effect<boolean>

/** The pending cleanups of one hub namespace. */
export interface Pending {
  /** Adds `clusters` to the source's list, and owes each of them a cleanup. */
  readonly remember: (source: Source, clusters: ReadonlyArray<string>) => Effect.Effect<void, KubeError>
  /** Owes `clusters` a cleanup at once (clusters engaged anew). */
  readonly owe: (clusters: ReadonlyArray<string>) => Effect.Effect<void>
  /** Cleans each of `engaged` that is owed a cleanup and due, with `clean` for each source it holds. */
  readonly cleanDue: (engaged: ReadonlyArray<Cluster>, clean: CleanSource) => Effect.Effect<void>
}

const keyOf = (kind: SourceKind, namespace: string, name: string) => `${kind}.${namespace}.${name}`

/** The cluster names of a value of the pending ConfigMap; none when it does not parse. */
export const clustersOf = (v: string | undefined): Array<string> => {
  try {
    const parsed: unknown = JSON.parse(v ?? "[]")
    return Array.isArray(parsed) ? parsed.filter((x): x is string => typeof x === "string") : []
  } catch {
    return []
  }
}

/**
 * The released source a key names, as the table sees it (gone: its copies are removed); none
 * for a key of another shape. Both kinds are namespaced, so a key needs a namespace and a name
 * (a namespace has no dots; a name may have some).
 */
const releasedSource = (key: string): Source | undefined => {
  const [kind, namespace, ...rest] = key.split(".")
  const name = rest.join(".")
  if ((kind !== "ConfigMap" && kind !== "Secret") || !namespace || name === "") return undefined
  const content = { data: {}, binaryData: {}, labels: {}, annotations: {}, type: undefined }
  return { kind, namespace, name, labelled: false, deleting: true, content }
}

/** One cluster's debt: a cleanup owed from some time on. */
interface Debt {
  readonly due: number
}

/**
 * Which clusters are owed a cleanup, and when each is next due (`Clock` time). A debt owed
 * again while a cleanup runs is not settled by that cleanup (it may have read the list before).
 */
const makeOwed = (retryInterval: number) => {
  const debts = new Map<string, Debt>()
  return {
    owe: (clusters: ReadonlyArray<string>) =>
      Effect.sync(() => {
        for (const c of clusters) debts.set(c, { due: 0 })
      }),
    debtOf: (cluster: string) => debts.get(cluster),
    dueAmong: (engaged: ReadonlyArray<Cluster>) =>
      Effect.map(Clock.currentTimeMillis, (now) =>
        engaged.filter((c) => (debts.get(c.name)?.due ?? Number.POSITIVE_INFINITY) <= now),
      ),
    settled: (cluster: string, debt: Debt | undefined, clean: boolean) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        if (debts.get(cluster) !== debt) return
        if (clean) debts.delete(cluster)
        else debts.set(cluster, { due: now + retryInterval })
      }),
  }
}

/** The pending cleanups kept in `namespace` of the hub through `hub`; one not clean is tried again after `retryInterval` ms. */
export const makePending = (hub: KubeClientShape, namespace: string, retryInterval: number): Pending => {
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

  const owed = makeOwed(retryInterval)
  const remember = (source: Source, clusters: ReadonlyArray<string>) =>
    update((d) => {
      const k = keyOf(source.kind, source.namespace, source.name)
      d[k] = JSON.stringify([...new Set([...clustersOf(d[k]), ...clusters])].sort())
      return d
    }).pipe(Effect.andThen(owed.owe(clusters)))
  const forget = (key: string, cluster: string) =>
    update((d) => {
      const left = clustersOf(d[key]).filter((c) => c !== cluster)
      if (left.length === 0) delete d[key]
      else d[key] = JSON.stringify(left)
      return d
    })
  /** Cleans `cluster` of every source it is pending for; whether it is clean of all of them. */
  const cleanCluster = (cluster: Cluster, clean: CleanSource) =>
    Effect.gen(function* () {
      const { data } = yield* read
      let clear = true
      for (const [key, value] of Object.entries(data)) {
        const source = releasedSource(key)
        if (source === undefined || !clustersOf(value).includes(cluster.name)) continue
        if (!(yield* clean(cluster, source, `pending:${key}`))) {
          clear = false
          continue
        }
        yield* forget(key, cluster.name)
        yield* Effect.logInfo("cleaned a cluster that came back").pipe(
          Effect.annotateLogs({
            cluster: cluster.name,
            source: `${source.kind} ${source.namespace}/${source.name}`,
          }),
        )
      }
      return clear
    })
  /** One owed cluster's cleanup: no longer owed once clean, else due again after `retryInterval`. */
  const settle = (cluster: Cluster, clean: CleanSource) =>
    Effect.gen(function* () {
      const debt = owed.debtOf(cluster.name)
      const result = yield* Effect.result(cleanCluster(cluster, clean))
      yield* owed.settled(cluster.name, debt, result._tag === "Success" && result.success)
      if (result._tag === "Failure")
        yield* Effect.logWarning("pending cleanup failed; tried again later").pipe(
          Effect.annotateLogs({
            cluster: cluster.name,
            error: `${result.failure._tag}: ${result.failure.message}`,
          }),
        )
    })
  const cleanDue: Pending["cleanDue"] = (engaged, clean) =>
    Effect.flatMap(owed.dueAmong(engaged), (due) =>
      Effect.forEach(due, (c) => settle(c, clean), { concurrency: "unbounded", discard: true }),
    )
  return { remember, owe: owed.owe, cleanDue }
}
