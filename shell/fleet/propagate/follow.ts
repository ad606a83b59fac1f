/**
 * What enqueues a source besides its own events in the hub: the events of its copies in the
 * workload clusters, the scoped caches' `PermissionLost` events, and clusters engaged or gone.
 *
 * # Expected flow
 * - `makeFollow`: an informer of copies, followed once, enqueues the source its copy's
 *   `krtt.io/propagated-from` label names; a scoped cache, followed once, enqueues the sources
 *   that depend on an informer that lost its permission.
 * - `sweepClusters`: every `clusterPollInterval`, the engaged clusters are compared with the last
 *   sweep's. A cluster engaged (new, or back) gets every source and is owed its pending cleanups
 *   (`pending.ts`: the owed and due are cleaned at every sweep); a cluster gone gets every source
 *   too, so that `krtt.io/propagated-to` counts the clusters engaged now, not until the source
 *   next changes (`krtt chaos --scenario propagate-delete` holds a restarted operator's count to a
 *   fault-free one's).
 *
 * # Guarantees
 * - A cache or informer is followed at most once; followers live as long as `scope`.
 * - A failed sweep is logged and tried again at the next poll; a failed cleanup after `retryInterval`.
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
  type PropagateConfig,
  PropagatedFromLabel,
  PropagateFinalizer,
  PropagateLabel,
  type SourceKind,
} from "../../../core/propagate/index.ts"
import type { Cache } from "../../cache/types.ts"
import type { KubeObject } from "../../kube/resource.ts"
import type { MultiClusterManager } from "../../multicluster/index.ts"
import { asScopedCache } from "../../scopedcache/index.ts"
import { type Follow, resourceOf } from "./observe.ts"
import type { CleanSource, Pending } from "./pending.ts"
import type { Refusals } from "./refusals.ts"

/** Enqueues the source of `kind` named `namespace/name` with its controller. */
export type Enqueue = (kind: SourceKind, namespace: string, name: string) => Effect.Effect<void>

/** Whether a hub object is a source, or still holds our finalizer. */
export const isSourceOrReleasing = (o: KubeObject): boolean =>
  o.metadata.labels?.[PropagateLabel] === "true" || (o.metadata.finalizers ?? []).includes(PropagateFinalizer)

/** Follows caches and informers for the lifetime of `scope`. */
export const makeFollow = (scope: Scope.Scope, enqueue: Enqueue, refusals: Refusals): Follow => {
  const caches = new WeakSet<object>()
  const informers = new WeakSet<object>()
  const cache = (c: Cache) =>
    Effect.gen(function* () {
      const scoped = asScopedCache(c)
      if (scoped === undefined || caches.has(scoped)) return
      caches.add(scoped)
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
  const informer = (c: Cache, kind: SourceKind, namespace: string) =>
    Effect.gen(function* () {
      const found = yield* c.getInformer(resourceOf(kind), { namespace }).pipe(Effect.option)
      if (Option.isNone(found) || informers.has(found.value)) return
      informers.add(found.value)
      yield* found.value
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
  return { cache, informer, refusals }
}

/** What a sweep needs: the manager, the kinds, how to enqueue, follow and clean clusters. */
export interface SweepDeps {
  readonly manager: MultiClusterManager
  readonly kinds: ReadonlyArray<SourceKind>
  readonly config: PropagateConfig
  readonly enqueue: Enqueue
  readonly follow: Follow
  /** The pending cleanups: a cluster engaged anew is owed one; the owed and due are cleaned. */
  readonly pending: Pick<Pending, "owe" | "cleanDue">
  readonly clean: CleanSource
}

const sweepOnce = (deps: SweepDeps, known: Ref.Ref<ReadonlySet<string>>) =>
  Effect.gen(function* () {
    const clusters = yield* deps.manager.clusters
    const now = new Set<string>(clusters.map((c) => c.name))
    const before = yield* Ref.getAndSet(known, now)
    const fresh = clusters.filter((c) => !before.has(c.name))
    const gone = [...before].filter((name) => !now.has(name))
    if (fresh.length > 0 || gone.length > 0) {
      for (const cluster of fresh) yield* deps.follow.cache(cluster.cache)
      yield* enqueueSources(deps)
      yield* deps.pending.owe(fresh.map((c) => c.name))
    }
    yield* deps.pending.cleanDue(clusters, deps.clean)
  })

/** Enqueues every source, and every released one still holding our finalizer. */
const enqueueSources = (deps: SweepDeps) =>
  Effect.forEach(
    deps.kinds,
    (kind) =>
      Effect.gen(function* () {
        const all = yield* deps.manager.hub.cache.list(resourceOf(kind)).pipe(Effect.orElseSucceed(() => []))
        for (const o of all.filter(isSourceOrReleasing))
          yield* deps.enqueue(kind, o.metadata.namespace ?? "", o.metadata.name ?? "")
      }),
    { discard: true },
  )

/** Sweeps the engaged clusters every `clusterPollInterval`, in `scope`. */
export const sweepClusters = (deps: SweepDeps, scope: Scope.Scope): Effect.Effect<void> =>
  Effect.gen(function* () {
    const known = yield* Ref.make<ReadonlySet<string>>(new Set())
    const sweep = sweepOnce(deps, known).pipe(
      Effect.catchCause((cause) =>
        Effect.logWarning("cluster sweep failed").pipe(Effect.annotateLogs({ error: String(cause) })),
      ),
    )
    const loop = Effect.forever(
      Effect.andThen(sweep, Effect.sleep(Duration.millis(deps.config.clusterPollInterval))),
    )
    yield* Effect.forkIn(loop, scope)
  })
