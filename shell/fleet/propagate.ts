/**
 * `krtt propagate`'s controller (seed 003, Goals 1: a UNIFORM multi-cluster
 * controller sourcing from the hub), built only on the public APIs of the multi-cluster runtime
 * (`controllerManagedBy`, the manager's clusters and provider) and of the scoped cache
 * (`asScopedCache`: `addInformer`, `removeInformer`, `subscribeEvents`).
 *
 * # Expected flow
 * One controller per kind (ConfigMap, Secret) watches the hub (`For`, engaged with the hub
 * only). A hub request is one source; its reconcile:
 * 1. reads the source from the hub's cache; a wanted source (labelled, not deleting) gets the
 *    finalizer `krtt.io/propagate` first;
 * 2. in every engaged cluster, at the same time and each under `clusterTimeout`: makes the
 *    source a dependent of the scoped-cache informer of its namespace and kind (so a Role in that
 *    namespace is all the identity needs), reads the copy, evaluates the source's selector,
 *    decides with table `propagate.copy` and performs the actions (a create answered "namespace
 *    not found" is decided again with the namespace missing: row 1);
 * 3. summarizes (`core/propagate/summary.ts`): Warning Events on the source (one per cluster and
 *    failure, not repeated while it lasts), `krtt.io/propagated-to: "<n>/<m>"`, and, for a
 *    source no longer wanted, the finalizer released once every engaged cluster is clean. The
 *    clusters the provider knows but that are not engaged then are written to the hub ConfigMap
 *    `krtt-propagate-pending` (`pendingNamespace`) and cleaned when they are engaged again.
 * 4. not settled (a failure, a missing permission): looked at again after `retryInterval`.
 *
 * Events of copies in a cluster (edited, deleted) and the scoped cache's `PermissionLost` events
 * enqueue the source; a newly engaged cluster enqueues every source and its pending cleanups, a
 * disengaged one every source.
 * Secret data is never logged: logs and Events name objects, never their content.
 *
 * @module
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import {
  ClusterNameLabel,
  type ClusterOutcome,
  type Content,
  type CopyAction,
  type CopyInput,
  type CopyObserved,
  copyTransition,
  type PropagateConfig,
  PropagatedFromLabel,
  PropagatedToAnnotation,
  PropagateFinalizer,
  PropagateLabel,
  PropagationAnnotation,
  pendingAfterRelease,
  propagateConfig,
  type Source,
  type SourceKind,
  summarize,
  type Target,
} from "../../core/propagate/index.ts"
import type { Cache } from "../cache/types.ts"
import { done, type ReconcileResult, requeue, requeueAfter } from "../controller/result.ts"
import type { KubeClientShape } from "../kube/client.ts"
import type { KubeError } from "../kube/errors.ts"
import { recordEvent } from "../kube/events.ts"
import { mergePatch } from "../kube/patch.ts"
import { type KubeObject, type ResourceRef, Resources } from "../kube/resource.ts"
import { matchesRequirements, parseLabelSelector } from "../kube/selector.ts"
import {
  type Cluster,
  controllerManagedBy,
  type MultiClusterController,
  type MultiClusterManager,
} from "../multicluster/index.ts"
import { asScopedCache } from "../scopedcache/index.ts"
import { makeRequest, type Request } from "../workqueue/request.ts"

/** The hub ConfigMap that remembers the clusters still to clean of released sources. */
export const PendingConfigMap = "krtt-propagate-pending"

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

/** What `addPropagateControllers` returns: the controllers, for tests and status. */
export interface Propagator {
  readonly controllers: ReadonlyArray<MultiClusterController>
  readonly config: PropagateConfig
}

const resourceOf = (kind: SourceKind): ResourceRef =>
  kind === "Secret" ? Resources.secrets : Resources.configMaps

const strings = (v: unknown): Record<string, string> => {
  const out: Record<string, string> = {}
  if (v !== null && typeof v === "object")
    for (const [k, x] of Object.entries(v)) if (typeof x === "string") out[k] = x
  return out
}

/** The table's view of a hub object. */
export const sourceOf = (kind: SourceKind, o: KubeObject): Source => ({
  kind,
  namespace: o.metadata.namespace ?? "",
  name: o.metadata.name ?? "",
  labelled: o.metadata.labels?.[PropagateLabel] === "true",
  deleting: o.metadata.deletionTimestamp !== undefined && o.metadata.deletionTimestamp !== null,
  content: contentOf(kind, o),
})

const contentOf = (kind: SourceKind, o: KubeObject): Content => ({
  data: strings(o.data),
  binaryData: strings(o.binaryData),
  labels: { ...(o.metadata.labels ?? {}) },
  annotations: { ...(o.metadata.annotations ?? {}) },
  type: kind === "Secret" ? (typeof o.type === "string" ? o.type : "Opaque") : undefined,
})

/** The object a copy action writes. */
const objectOf = (
  kind: SourceKind,
  namespace: string,
  name: string,
  content: Content,
  resourceVersion?: string,
) => ({
  apiVersion: "v1",
  kind,
  metadata: {
    namespace,
    name,
    labels: content.labels,
    annotations: content.annotations,
    ...(resourceVersion === undefined ? {} : { resourceVersion }),
  },
  data: content.data,
  ...(Object.keys(content.binaryData).length === 0 ? {} : { binaryData: content.binaryData }),
  ...(content.type === undefined ? {} : { type: content.type }),
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

const describe = (e: unknown): string =>
  e !== null && typeof e === "object" && "_tag" in e
    ? `${String((e as { _tag: string })._tag)}${"message" in e ? `: ${String((e as { message: unknown }).message)}` : ""}`
    : String(e)

/** The dependent that a source is of its informers. */
const dependentOf = (source: Source, uid: string) => ({
  uid,
  kind: source.kind,
  namespace: source.namespace,
  name: source.name,
})

interface ClusterRun {
  readonly outcome: ClusterOutcome
  readonly events: ReadonlyArray<{ readonly reason: string; readonly message: string }>
}

/**
 * Adds the propagation controllers to `manager` (before or after `start`). `hub` is the hub's
 * client (finalizer, annotation, Events, the pending ConfigMap).
 */
export const addPropagateControllers = (
  manager: MultiClusterManager,
  hub: KubeClientShape,
  options: PropagateOptions,
): Effect.Effect<Propagator, unknown, Scope.Scope> =>
  Effect.gen(function* () {
    const config = propagateConfig(options.config ?? {})
    const component = options.component ?? "krtt-propagate"
    const kinds = options.kinds ?? (["ConfigMap", "Secret"] as const)
    const scope = yield* Effect.scope
    /** Caches and informers already followed (their events enqueue sources). */
    const followedCaches = new WeakSet<object>()
    const followedInformers = new WeakSet<object>()
    /** The last Event per (source uid, cluster, reason), not repeated while it lasts. */
    const lastEvents = new Map<string, string>()
    const controllers: Array<MultiClusterController> = []
    const byKind = new Map<SourceKind, MultiClusterController>()

    const enqueue = (kind: SourceKind, namespace: string, name: string) =>
      Effect.suspend(() => byKind.get(kind)?.queue.add(makeRequest({ namespace, name })) ?? Effect.void)

    const event = (kind: SourceKind, source: KubeObject, reason: string, message: string) =>
      recordEvent(
        hub,
        {
          apiVersion: "v1",
          kind,
          namespace: source.metadata.namespace,
          name: source.metadata.name ?? "",
          uid: source.metadata.uid,
        },
        { type: "Warning", reason, message },
        component,
      ).pipe(
        Effect.catch((e: KubeError) =>
          Effect.logWarning("an Event was refused").pipe(Effect.annotateLogs({ reason, error: e._tag })),
        ),
      )

    /** Follows a cluster's scoped-cache events: a permission lost enqueues its dependents. */
    const followCache = (cache: Cache) =>
      Effect.gen(function* () {
        const scoped = asScopedCache(cache)
        if (scoped === undefined || followedCaches.has(scoped)) return
        followedCaches.add(scoped)
        const events = yield* scoped.subscribeEvents.pipe(Scope.provide(scope))
        yield* Stream.runForEach(events, (e) =>
          Effect.forEach(
            e.dependents,
            (d) =>
              d.kind === "ConfigMap" || d.kind === "Secret"
                ? enqueue(d.kind, d.namespace ?? "", d.name ?? "")
                : Effect.void,
            { discard: true },
          ),
        ).pipe(Effect.forkIn(scope))
      })

    /** Follows an informer's events: a copy changed enqueues its source. */
    const followInformer = (cache: Cache, kind: SourceKind, namespace: string) =>
      Effect.gen(function* () {
        const informer = yield* cache.getInformer(resourceOf(kind), { namespace }).pipe(Effect.option)
        if (Option.isNone(informer) || followedInformers.has(informer.value)) return
        followedInformers.add(informer.value)
        yield* informer.value
          .subscribe((e) => {
            // `<hub namespace>.<name>`: a namespace has no dot, so the first one splits them.
            const from = e.object.metadata.labels?.[PropagatedFromLabel]
            const dot = from?.indexOf(".") ?? -1
            return from !== undefined && dot > 0
              ? enqueue(kind, from.slice(0, dot), from.slice(dot + 1))
              : Effect.void
          })
          .pipe(Scope.provide(scope))
      })

    /**
     * Observes the copy of `source` in `cluster`: informer, access, copy. `live` reads the copy
     * from the API server instead of the cache (which may not show our own latest write yet).
     */
    const observe = (cluster: Cluster, source: Source, uid: string, live: boolean) =>
      Effect.gen(function* () {
        const resource = resourceOf(source.kind)
        const namespace = nsIn(cluster, source.namespace)
        const key = { namespace, name: source.name }
        const scoped = asScopedCache(cluster.cache)
        if (scoped !== undefined) {
          yield* followCache(cluster.cache)
          const added = yield* scoped
            .addInformer({ resource, namespace, dependent: dependentOf(source, uid) })
            .pipe(Effect.result)
          if (added._tag === "Failure") {
            if (added.failure._tag === "Forbidden") return { access: "Forbidden" as const, copy: null }
            return yield* Effect.fail(added.failure)
          }
        }
        yield* followInformer(cluster.cache, source.kind, namespace)
        const read = yield* (
          live ? cluster.client.get(resource, key) : cluster.cache.get(resource, key)
        ).pipe(Effect.result)
        if (read._tag === "Success") {
          const o = read.success
          return {
            access: "Allowed" as const,
            copy: {
              propagatedFrom: o.metadata.labels?.[PropagatedFromLabel],
              content: contentOf(source.kind, o),
            },
            resourceVersion: o.metadata.resourceVersion,
          }
        }
        if (read.failure._tag === "NotFound") return { access: "Allowed" as const, copy: null }
        if (read.failure._tag === "Forbidden") return { access: "Forbidden" as const, copy: null }
        return yield* Effect.fail(read.failure)
      })

    /** Performs one action in `cluster`; `Missing` when a create found no namespace. */
    const perform = (cluster: Cluster, decided: CopyAction, resourceVersion: string | undefined) =>
      Effect.gen(function* () {
        const client = cluster.client
        const action =
          "namespace" in decided ? { ...decided, namespace: nsIn(cluster, decided.namespace) } : decided
        switch (action._tag) {
          case "CreateNamespace":
            if (action.namespace === "") return "ok" as const // the cluster's own namespace
            yield* client
              .create(Resources.namespaces, {
                apiVersion: "v1",
                kind: "Namespace",
                metadata: { name: action.namespace },
              })
              .pipe(Effect.catchTag("AlreadyExists", () => Effect.void))
            return "ok" as const
          case "CreateCopy": {
            const created = yield* client
              .create(
                resourceOf(action.kind),
                objectOf(action.kind, action.namespace, action.name, action.content),
              )
              .pipe(Effect.result)
            if (created._tag === "Failure" && created.failure._tag === "NotFound")
              return "namespace-missing" as const
            if (created._tag === "Failure") return yield* Effect.fail(created.failure)
            return "ok" as const
          }
          case "UpdateCopy":
            yield* client.update(
              resourceOf(action.kind),
              objectOf(action.kind, action.namespace, action.name, action.content, resourceVersion),
            )
            return "ok" as const
          case "ReplaceCopy":
            yield* client
              .delete(resourceOf(action.kind), { namespace: action.namespace, name: action.name })
              .pipe(Effect.catchTag("NotFound", () => Effect.void))
            yield* client.create(
              resourceOf(action.kind),
              objectOf(action.kind, action.namespace, action.name, action.content),
            )
            return "ok" as const
          case "DeleteCopy":
            yield* client
              .delete(resourceOf(action.kind), { namespace: action.namespace, name: action.name })
              .pipe(Effect.catchTag("NotFound", () => Effect.void))
            return "ok" as const
          case "SourceEvent":
            return "ok" as const
        }
      })

    /** One cluster's part of a source's reconcile. */
    /**
     * One cluster's part of a source's reconcile. From the cache first; again from the API server
     * when the cache's answer would release the copy (`Clean`: a finalizer may go on it) or a
     * write found the cache behind (AlreadyExists, Conflict).
     */
    const inCluster = (cluster: Cluster, source: Source, uid: string): Effect.Effect<ClusterRun, unknown> =>
      attempt(cluster, source, uid, false).pipe(
        Effect.catchIf(
          (e: unknown) => ["AlreadyExists", "Conflict"].includes((e as { _tag?: string })._tag ?? ""),
          () => attempt(cluster, source, uid, true),
        ),
        // A write refused (a Role revoked before the informer noticed) is a missing permission too.
        Effect.catchIf(
          (e: unknown) => (e as { _tag?: string })._tag === "Forbidden",
          () => Effect.map(labelsOf(cluster), (labels) => forbidden(cluster, source, labels)),
        ),
        Effect.flatMap((run) =>
          run.outcome.status === "Clean" && !run.live
            ? attempt(cluster, source, uid, true)
            : Effect.succeed(run),
        ),
      )

    /** Row 7 for a cluster whose API refused a read or a write. */
    const nsIn = (cluster: Cluster, namespace: string) =>
      options.copyNamespace === undefined ? namespace : options.copyNamespace(cluster.name, namespace)
    const labelsOf = (cluster: Cluster) => options.clusterLabels?.(cluster.name) ?? Effect.succeed({})
    const forbidden = (
      cluster: Cluster,
      source: Source,
      labels: Readonly<Record<string, string>>,
    ): ClusterRun & { readonly live: boolean } => {
      const target = targetOf(source.content.annotations, cluster.name, labels)
      const result = copyTransition(
        {
          observed: { source, copy: null, access: "Forbidden", namespace: "Unknown" },
          desired: { cluster: cluster.name, target },
          trigger: { _tag: "SourceChanged" },
          now: 0,
        },
        config,
      )
      return {
        outcome: { cluster: cluster.name, targeted: target._tag !== "NotSelected", status: result.status },
        events: result.actions.flatMap((a) =>
          a._tag === "SourceEvent" ? [{ reason: a.reason, message: a.message }] : [],
        ),
        live: true,
      }
    }

    const attempt = (
      cluster: Cluster,
      source: Source,
      uid: string,
      live: boolean,
    ): Effect.Effect<ClusterRun & { readonly live: boolean }, unknown> =>
      Effect.gen(function* () {
        const seen = yield* observe(cluster, source, uid, live)
        const target = targetOf(source.content.annotations, cluster.name, yield* labelsOf(cluster))
        const decideWith = (namespace: CopyObserved["namespace"]) => {
          const input: CopyInput = {
            observed: { source, copy: seen.copy, access: seen.access, namespace },
            desired: { cluster: cluster.name, target },
            trigger: { _tag: "SourceChanged" },
            now: 0,
          }
          return copyTransition(input, config)
        }
        let result = decideWith("Unknown")
        const rv = "resourceVersion" in seen ? seen.resourceVersion : undefined
        for (const action of result.actions) {
          const outcome = yield* perform(cluster, action, rv)
          if (outcome === "namespace-missing") {
            result = decideWith("Missing")
            for (const again of result.actions) yield* perform(cluster, again, rv)
            break
          }
        }
        yield* Effect.logDebug("propagated").pipe(
          Effect.annotateLogs({
            cluster: cluster.name,
            source: `${source.kind} ${source.namespace}/${source.name}`,
            row: result.row,
          }),
        )
        const events = result.actions.flatMap((a) =>
          a._tag === "SourceEvent" ? [{ reason: a.reason, message: a.message }] : [],
        )
        return {
          outcome: { cluster: cluster.name, targeted: target._tag !== "NotSelected", status: result.status },
          events,
          live,
        }
      })

    /** Releases the source's informers in every engaged cluster. */
    const release = (clusters: ReadonlyArray<Cluster>, source: Source, uid: string) =>
      Effect.forEach(
        clusters,
        (c) =>
          asScopedCache(c.cache)?.removeInformer({
            resource: resourceOf(source.kind),
            namespace: nsIn(c, source.namespace),
            dependent: dependentOf(source, uid),
          }) ?? Effect.void,
        { discard: true },
      )

    // ---------------------------------------------------------------------------------------
    // Pending cleanups of released sources, in the hub ConfigMap krtt-propagate-pending.

    const pendingKey = (kind: SourceKind, namespace: string, name: string) => `${kind}.${namespace}.${name}`
    const readPending = hub
      .get(Resources.configMaps, { namespace: options.pendingNamespace, name: PendingConfigMap })
      .pipe(
        Effect.map((o) => ({ data: strings(o.data), resourceVersion: o.metadata.resourceVersion })),
        Effect.catchTag("NotFound", () =>
          Effect.succeed({ data: {} as Record<string, string>, resourceVersion: undefined }),
        ),
      )
    const writePending = (data: Record<string, string>, resourceVersion: string | undefined) =>
      resourceVersion === undefined
        ? hub.create(Resources.configMaps, {
            apiVersion: "v1",
            kind: "ConfigMap",
            metadata: { namespace: options.pendingNamespace, name: PendingConfigMap },
            data,
          })
        : hub.update(Resources.configMaps, {
            apiVersion: "v1",
            kind: "ConfigMap",
            metadata: { namespace: options.pendingNamespace, name: PendingConfigMap, resourceVersion },
            data,
          })
    const updatePending = (f: (data: Record<string, string>) => Record<string, string>) =>
      Effect.gen(function* () {
        const { data, resourceVersion } = yield* readPending
        const next = f({ ...data })
        if (JSON.stringify(next) !== JSON.stringify(data)) yield* writePending(next, resourceVersion)
      }).pipe(Effect.retry({ times: 3, while: (e) => e._tag === "Conflict" || e._tag === "AlreadyExists" }))
    const clustersOf = (v: string | undefined): Array<string> => {
      try {
        const parsed: unknown = JSON.parse(v ?? "[]")
        return Array.isArray(parsed) ? parsed.filter((x): x is string => typeof x === "string") : []
      } catch {
        return []
      }
    }

    /** Cleans a cluster that came back of the copies of sources released while it was away. */
    const cleanPending = (cluster: Cluster) =>
      Effect.gen(function* () {
        const { data } = yield* readPending
        for (const [key, value] of Object.entries(data)) {
          if (!clustersOf(value).includes(cluster.name)) continue
          const [kind, namespace, ...rest] = key.split(".")
          if (kind !== "ConfigMap" && kind !== "Secret") continue
          const source: Source = {
            kind,
            namespace: namespace ?? "",
            name: rest.join("."),
            labelled: false,
            deleting: true,
            content: { data: {}, binaryData: {}, labels: {}, annotations: {}, type: undefined },
          }
          const uid = `pending:${key}`
          const run = yield* inCluster(cluster, source, uid).pipe(
            Effect.timeout(Duration.millis(config.clusterTimeout)),
            Effect.result,
          )
          yield* release([cluster], source, uid)
          if (run._tag === "Success" && run.success.outcome.status === "Clean") {
            yield* updatePending((d) => {
              const left = clustersOf(d[key]).filter((c) => c !== cluster.name)
              if (left.length === 0) delete d[key]
              else d[key] = JSON.stringify(left)
              return d
            })
            yield* Effect.logInfo("cleaned a cluster that came back").pipe(
              Effect.annotateLogs({
                cluster: cluster.name,
                source: `${kind} ${source.namespace}/${source.name}`,
              }),
            )
          }
        }
      })

    // ---------------------------------------------------------------------------------------
    // The hub reconcile of one source.

    const reconcile =
      (kind: SourceKind) =>
      (request: Request): Effect.Effect<ReconcileResult, unknown> =>
        Effect.gen(function* () {
          const resource = resourceOf(kind)
          const key = { namespace: request.namespace, name: request.name }
          const found = yield* manager.hub.cache.get(resource, key).pipe(Effect.option)
          if (Option.isNone(found)) return done()
          let object = found.value
          const uid = object.metadata.uid ?? `${kind}/${request.namespace}/${request.name}`
          const source = sourceOf(kind, object)
          const finalizers = object.metadata.finalizers ?? []
          const hasFinalizer = finalizers.includes(PropagateFinalizer)
          const wanted = source.labelled && !source.deleting
          if (!wanted && !hasFinalizer) return done()
          if (wanted && !hasFinalizer) {
            object = yield* hub.patch(
              resource,
              key,
              mergePatch({
                metadata: {
                  finalizers: [...finalizers, PropagateFinalizer],
                  resourceVersion: object.metadata.resourceVersion,
                },
              }),
            )
          }
          const clusters = yield* manager.clusters
          const runs = yield* Effect.forEach(
            clusters,
            (cluster) =>
              inCluster(cluster, source, uid).pipe(
                Effect.timeout(Duration.millis(config.clusterTimeout)),
                Effect.catch((e: unknown) =>
                  Effect.succeed<ClusterRun>({
                    outcome: { cluster: cluster.name, targeted: true, status: "Failed" },
                    events: [
                      { reason: "PropagationFailed", message: `cluster ${cluster.name}: ${describe(e)}` },
                    ],
                  }),
                ),
              ),
            { concurrency: "unbounded" },
          )
          for (const run of runs) {
            const mark = `${uid}/${run.outcome.cluster}`
            if (run.events.length === 0) {
              for (const k of [...lastEvents.keys()]) if (k.startsWith(`${mark}/`)) lastEvents.delete(k)
            }
            for (const e of run.events) {
              const k = `${mark}/${e.reason}`
              if (lastEvents.get(k) === e.message) continue
              lastEvents.set(k, e.message)
              yield* event(kind, object, e.reason, e.message)
            }
          }
          const decision = summarize(
            {
              labelled: source.labelled,
              deleting: source.deleting,
              hasFinalizer: (object.metadata.finalizers ?? []).includes(PropagateFinalizer),
              propagatedTo: object.metadata.annotations?.[PropagatedToAnnotation],
            },
            runs.map((r) => r.outcome),
          )
          if (decision.removeFinalizer) {
            const known = (yield* manager.provider?.clusters ?? Effect.succeed([])).map((c) => c.name)
            const pending = pendingAfterRelease(
              known,
              clusters.map((c) => c.name),
            )
            if (pending.length > 0)
              yield* updatePending((d) => {
                const k = pendingKey(kind, source.namespace, source.name)
                d[k] = JSON.stringify([...new Set([...clustersOf(d[k]), ...pending])].sort())
                return d
              })
            yield* release(clusters, source, uid)
            for (const k of [...lastEvents.keys()]) if (k.startsWith(`${uid}/`)) lastEvents.delete(k)
          }
          const annotations =
            decision.writeAnnotation && !source.deleting
              ? { annotations: { [PropagatedToAnnotation]: decision.propagatedTo ?? null } }
              : {}
          const releaseFinalizer = decision.removeFinalizer
            ? { finalizers: (object.metadata.finalizers ?? []).filter((f) => f !== PropagateFinalizer) }
            : {}
          if (Object.keys(annotations).length > 0 || Object.keys(releaseFinalizer).length > 0) {
            yield* hub
              .patch(
                resource,
                key,
                mergePatch({
                  metadata: {
                    ...annotations,
                    ...releaseFinalizer,
                    resourceVersion: object.metadata.resourceVersion,
                  },
                }),
              )
              .pipe(Effect.catchTag("NotFound", () => Effect.void))
          }
          return decision.settled ? done() : requeueAfter(Duration.millis(config.retryInterval))
        }).pipe(
          // The hub cache was behind a write of ours: read again soon (rate-limited), no error.
          Effect.catchIf(
            (e: unknown) => (e as { _tag?: string })._tag === "Conflict",
            () => Effect.succeed(requeue()),
          ),
        )

    for (const kind of kinds) {
      const controller = yield* controllerManagedBy(manager)
        .named(kind === "Secret" ? "propagate-secrets" : "propagate-configmaps")
        .withOptions({ engageWithLocalCluster: true, maxConcurrentReconciles: config.concurrency })
        .for(resourceOf(kind), {
          predicates: [
            (e) =>
              e.object.metadata.labels?.[PropagateLabel] === "true" ||
              (e.object.metadata.finalizers ?? []).includes(PropagateFinalizer) ||
              (e._tag === "Updated" && e.old.metadata.labels?.[PropagateLabel] === "true"),
          ],
        })
        .complete(reconcile(kind))
      byKind.set(kind, controller)
      controllers.push(controller)
    }

    // A cluster engaged (new, or back): every source again, and its pending cleanups. A cluster
    // gone: every source again too, so that `krtt.io/propagated-to` counts the clusters engaged
    // now, not until the source next changes (`krtt chaos --scenario propagate-delete` holds a
    // restarted operator's count to a fault-free one's).
    const known = yield* Ref.make<ReadonlySet<string>>(new Set())
    const sweep = Effect.gen(function* () {
      const clusters = yield* manager.clusters
      const before = yield* Ref.get(known)
      const now = new Set<string>(clusters.map((c) => c.name))
      yield* Ref.set(known, now)
      const fresh = clusters.filter((c) => !before.has(c.name))
      const gone = [...before].filter((name) => !now.has(name))
      if (fresh.length === 0 && gone.length === 0) return
      for (const cluster of fresh) yield* followCache(cluster.cache)
      for (const kind of kinds) {
        const all = yield* manager.hub.cache.list(resourceOf(kind)).pipe(Effect.orElseSucceed(() => []))
        for (const o of all) {
          if (
            o.metadata.labels?.[PropagateLabel] === "true" ||
            (o.metadata.finalizers ?? []).includes(PropagateFinalizer)
          )
            yield* enqueue(kind, o.metadata.namespace ?? "", o.metadata.name ?? "")
        }
      }
      yield* Effect.forEach(
        fresh,
        (c) =>
          cleanPending(c).pipe(
            Effect.catch((e: unknown) =>
              Effect.logWarning("pending cleanup failed; retried when the cluster is engaged again").pipe(
                Effect.annotateLogs({ cluster: c.name, error: describe(e) }),
              ),
            ),
          ),
        { concurrency: "unbounded", discard: true },
      )
    })
    const loop: Effect.Effect<never> = Effect.forever(
      Effect.andThen(
        sweep.pipe(
          Effect.catchCause((cause) =>
            Effect.logWarning("cluster sweep failed").pipe(Effect.annotateLogs({ error: String(cause) })),
          ),
        ),
        Effect.sleep(Duration.millis(config.clusterPollInterval)),
      ),
    )
    yield* Effect.forkIn(loop, scope)
    return { controllers, config }
  })
