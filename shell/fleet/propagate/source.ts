/**
 * The hub reconcile of one source: table `propagate.copy` in every engaged cluster, then what
 * their answers mean for the source itself (`core/propagate/summary.ts`).
 *
 * # Expected flow
 * 1. The source is read from the hub's cache; a wanted one (labelled, not deleting) gets the
 *    finalizer `krtt.io/propagate` first.
 * 2. Every engaged cluster runs the pair's table (`pair.ts`) at the same time, each under
 *    `clusterTimeout`; a cluster that fails or times out counts as `Failed`.
 * 3. Warning Events on the source (one per cluster and reason, not repeated while it lasts),
 *    `krtt.io/propagated-to: "<n>/<m>"`, and for a source no longer wanted the finalizer
 *    released once every engaged cluster is clean; the clusters the provider knows but that are
 *    not engaged then go to `krtt-propagate-pending` (`pending.ts`).
 * 4. Not settled (a failure, a missing permission): looked at again after `retryInterval`.
 *
 * # Guarantees
 * - The reconcile result names the rows of the clusters' last answers.
 * - A write that finds the hub cache behind ours (Conflict) reconciles again after the backoff,
 *   without an error. Logs and Events name objects, never their content.
 *
 * @module
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import {
  type PropagateConfig,
  PropagatedToAnnotation,
  PropagateFinalizer,
  pendingAfterRelease,
  type Source,
  type SourceKind,
  summarize,
} from "../../../core/propagate/index.ts"
import { done, type ReconcileResult, requeue, requeueAfter } from "../../controller/result.ts"
import type { KubeClientShape } from "../../kube/client.ts"
import type { KubeError } from "../../kube/errors.ts"
import { involvedObjectOf, recordEventOrWarn } from "../../kube/events.ts"
import { mergePatch } from "../../kube/patch.ts"
import type { KubeObject } from "../../kube/resource.ts"
import type { Cluster, MultiClusterManager } from "../../multicluster/index.ts"
import type { Request } from "../../workqueue/request.ts"
import { type CopyPlace, type Follow, releaseCopyInformer, resourceOf, sourceOf } from "./observe.ts"
import { type ClusterRun, runPair } from "./pair.ts"
import type { CleanSource, Pending } from "./pending.ts"

/** Everything a source's reconcile works with. */
export interface SourceDeps {
  readonly manager: MultiClusterManager
  /** The hub's client: finalizer, annotation, Events. */
  readonly hub: KubeClientShape
  readonly config: PropagateConfig
  /** The Events' reporting component. */
  readonly component: string
  readonly follow: Follow
  readonly pending: Pending
  readonly namespaceOf: (cluster: string, sourceNamespace: string) => string
  readonly labelsOf: (cluster: string) => Effect.Effect<Readonly<Record<string, string>>>
  /** The last Event per `<uid>/<cluster>/<reason>`, not repeated while it lasts. */
  readonly lastEvents: Map<string, string>
}

/** Where the copy of `source` is in `cluster`. */
export const placeOf = (deps: SourceDeps, cluster: Cluster, source: Source, uid: string): CopyPlace => ({
  cluster,
  source,
  uid,
  namespace: deps.namespaceOf(cluster.name, source.namespace),
})

/** One cluster's part, under `clusterTimeout`; a failure is the `Failed` outcome with its Event. */
export const runCluster = (deps: SourceDeps, place: CopyPlace): Effect.Effect<ClusterRun> =>
  Effect.gen(function* () {
    const labels = yield* deps.labelsOf(place.cluster.name)
    return yield* runPair(place, {
      config: deps.config,
      labels,
      follow: deps.follow,
      namespaceOf: deps.namespaceOf,
    })
  }).pipe(
    Effect.timeout(Duration.millis(deps.config.clusterTimeout)),
    Effect.catch((e: { readonly _tag: string; readonly message: string }) =>
      Effect.succeed<ClusterRun>({
        outcome: { cluster: place.cluster.name, targeted: true, status: "Failed" },
        events: [
          { reason: "PropagationFailed", message: `cluster ${place.cluster.name}: ${e._tag}: ${e.message}` },
        ],
        row: undefined,
      }),
    ),
  )

/** Records each cluster's Events on the source, once while they last. */
const recordEvents = (
  deps: SourceDeps,
  kind: SourceKind,
  object: KubeObject,
  uid: string,
  runs: ReadonlyArray<ClusterRun>,
) =>
  Effect.gen(function* () {
    for (const run of runs) {
      const mark = `${uid}/${run.outcome.cluster}`
      if (run.events.length === 0)
        for (const k of [...deps.lastEvents.keys()]) if (k.startsWith(`${mark}/`)) deps.lastEvents.delete(k)
      for (const e of run.events) {
        const k = `${mark}/${e.reason}`
        if (deps.lastEvents.get(k) === e.message) continue
        deps.lastEvents.set(k, e.message)
        const note = { type: "Warning", reason: e.reason, message: e.message } as const
        yield* recordEventOrWarn(
          deps.hub,
          involvedObjectOf({ apiVersion: "v1", kind }, object),
          note,
          deps.component,
        )
      }
    }
  })

/** Remembers the clusters not engaged now, and releases the source's informers and Events. */
const release = (deps: SourceDeps, source: Source, uid: string, clusters: ReadonlyArray<Cluster>) =>
  Effect.gen(function* () {
    const known = (yield* deps.manager.provider?.clusters ?? Effect.succeed([])).map((c) => c.name)
    const pending = pendingAfterRelease(
      known,
      clusters.map((c) => c.name),
    )
    if (pending.length > 0) yield* deps.pending.remember(source, pending)
    yield* Effect.forEach(clusters, (c) => releaseCopyInformer(placeOf(deps, c, source, uid)), {
      discard: true,
    })
    for (const k of [...deps.lastEvents.keys()]) if (k.startsWith(`${uid}/`)) deps.lastEvents.delete(k)
  })

/** Adds the finalizer to a wanted source that lacks it; the object as it is now. */
const ensureFinalizer = (deps: SourceDeps, kind: SourceKind, object: KubeObject) => {
  const source = sourceOf(kind, object)
  const finalizers = object.metadata.finalizers ?? []
  if (!source.labelled || source.deleting || finalizers.includes(PropagateFinalizer))
    return Effect.succeed(object)
  const key = { namespace: source.namespace, name: source.name }
  const patch = {
    metadata: {
      finalizers: [...finalizers, PropagateFinalizer],
      resourceVersion: object.metadata.resourceVersion,
    },
  }
  return deps.hub.patch(resourceOf(kind), key, mergePatch(patch))
}

/** Runs every engaged cluster, records the Events, and writes what the summary says. */
const propagate = (deps: SourceDeps, kind: SourceKind, object: KubeObject, uid: string) =>
  Effect.gen(function* () {
    const source = sourceOf(kind, object)
    const clusters = yield* deps.manager.clusters
    const runs = yield* Effect.forEach(clusters, (c) => runCluster(deps, placeOf(deps, c, source, uid)), {
      concurrency: "unbounded",
    })
    yield* recordEvents(deps, kind, object, uid, runs)
    const finalizers = object.metadata.finalizers ?? []
    const view = {
      labelled: source.labelled,
      deleting: source.deleting,
      hasFinalizer: finalizers.includes(PropagateFinalizer),
      propagatedTo: object.metadata.annotations?.[PropagatedToAnnotation],
    }
    const decision = summarize(
      view,
      runs.map((r) => r.outcome),
    )
    if (decision.removeFinalizer) yield* release(deps, source, uid, clusters)
    const annotations =
      decision.writeAnnotation && !source.deleting
        ? { annotations: { [PropagatedToAnnotation]: decision.propagatedTo ?? null } }
        : {}
    const released = decision.removeFinalizer
      ? { finalizers: finalizers.filter((f) => f !== PropagateFinalizer) }
      : {}
    if (Object.keys(annotations).length > 0 || Object.keys(released).length > 0) {
      const metadata = { ...annotations, ...released, resourceVersion: object.metadata.resourceVersion }
      yield* deps.hub
        .patch(resourceOf(kind), { namespace: source.namespace, name: source.name }, mergePatch({ metadata }))
        .pipe(Effect.catchTag("NotFound", () => Effect.void))
    }
    const rows = [...new Set(runs.flatMap((r) => (r.row === undefined ? [] : [r.row])))].join(" ")
    const row = rows === "" ? undefined : rows
    return decision.settled ? done(row) : requeueAfter(Duration.millis(deps.config.retryInterval), row)
  })

/** The reconcile of the sources of `kind`: one hub request is one source. */
export const reconcileSource =
  (deps: SourceDeps, kind: SourceKind) =>
  (request: Request): Effect.Effect<ReconcileResult, KubeError> =>
    Effect.gen(function* () {
      const key = { namespace: request.namespace, name: request.name }
      const found = yield* deps.manager.hub.cache.get(resourceOf(kind), key).pipe(Effect.option)
      if (Option.isNone(found)) return done()
      const source = sourceOf(kind, found.value)
      const wanted = source.labelled && !source.deleting
      if (!wanted && !(found.value.metadata.finalizers ?? []).includes(PropagateFinalizer)) return done()
      const object = yield* ensureFinalizer(deps, kind, found.value)
      const uid = object.metadata.uid ?? `${kind}/${request.namespace}/${request.name}`
      return yield* propagate(deps, kind, object, uid)
    }).pipe(
      // The hub cache was behind a write of ours: read again soon (rate-limited), no error.
      Effect.catchTag("Conflict", () => Effect.succeed(requeue())),
    )

/**
 * Cleans a cluster engaged again of the copy of a source released while it was away: the pair's
 * table runs as it sees a gone source; answers whether the cluster is `Clean` of it.
 */
export const cleanReleasedSource =
  (deps: SourceDeps): CleanSource =>
  (cluster, source, uid) => {
    const place = placeOf(deps, cluster, source, uid)
    return runCluster(deps, place).pipe(
      Effect.tap(() => releaseCopyInformer(place)),
      Effect.map((run) => run.outcome.status === "Clean"),
    )
  }
