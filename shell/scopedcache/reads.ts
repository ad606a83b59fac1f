/**
 * Reads of the scoped cache (seed 002, `Get`, `List` and the Wrapper's `GetInformer`): the reads
 * table (`scopedcache.reads`) names the informers that serve a read, and the read is answered
 * from their stores only.
 *
 * # Expected flow
 * A read asks the table with the registry as it is (no lock: reads change nothing), waits for the
 * serving informers' first list when the table says so (up to `syncTimeout`), and answers: `get`
 * from the first store that has the object, `listPage` merged and paged (`merge.ts`, `page.ts`),
 * `getInformer` the informer itself.
 *
 * # Guarantees
 * - Reads never start an informer (except `getInformer` with `startOnGetInformer`): no informer →
 *   `InformerNotFound`; before `start` → `CacheNotStarted`; the last informer of that scope lost
 *   its permission → `InformerForbidden`; the informer lacks the object → `CacheNotFound`.
 * - A read whose informers stop while it waits for their sync fails like a read without them.
 * - After the cache stops, reads fail with `InformerNotFound` ("the cache … has stopped").
 *
 * @module
 */
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as SynchronizedRef from "effect/SynchronizedRef"
import type { RowId } from "../../core/krtt/index.ts"
import type { ReadsTrigger } from "../../core/scopedcache/reads.ts"
import { read } from "../../core/scopedcache/registry.ts"
import { CLUSTER_SCOPE, type Dependent, gvkString, refString } from "../../core/scopedcache/types.ts"
import { type CacheError, type Informer, informerNotFound, type ScopeOptions } from "../cache/types.ts"
import { Timeout } from "../kube/errors.ts"
import { type KubeObject, keyOf, type ObjectKey, type ResourceRef, resourcePath } from "../kube/resource.ts"
import { type CacheContext, gvkOf, lossKey, type State } from "./context.ts"
import { addInformer, heldBySubscriptions, targetsOf } from "./dependents.ts"
import { CacheNotFound, CacheNotStarted, InformerForbidden, InvalidContinueToken } from "./errors.ts"
import type { Operate } from "./operate.ts"
import { type CachePage, pageOf } from "./page.ts"
import type { Running } from "./running.ts"
import type { ScopedListOptions } from "./types.ts"

/** No informer serves a read: `InformerForbidden` when its scope lost its permission, else `InformerNotFound`. */
const noInformer = (r: ResourceRef, namespace: string | undefined, message: string, s: State): CacheError => {
  const gvk = gvkOf(r)
  const scopes =
    namespace === undefined
      ? [...s.losses.keys()].filter((k) => k.endsWith(`|${gvkString(gvk)}`))
      : [lossKey(namespace, gvk), lossKey(CLUSTER_SCOPE, gvk)].filter((k) => s.losses.has(k))
  const loss = scopes.length === 0 ? undefined : s.losses.get(scopes[0] as string)
  if (loss !== undefined)
    return new InformerForbidden({
      verb: loss.verb,
      path: loss.error.path,
      message: `the informer stopped after permission loss: ${loss.message}`,
    })
  return informerNotFound(r, namespace === "" ? undefined : namespace, message)
}

/** Waits for the serving informers' first list, up to `syncTimeout`. */
const waitForSync = (
  ctx: CacheContext,
  r: ResourceRef,
  namespace: string | undefined,
  from: ReadonlyArray<Running>,
) => {
  const syncTimeout = Duration.fromInputUnsafe(ctx.config.syncTimeout)
  return Effect.forEach(from, (running) => running.informer.waitForSync, {
    concurrency: "unbounded",
    discard: true,
  }).pipe(
    Effect.timeoutOrElse({
      duration: syncTimeout,
      orElse: () =>
        Effect.fail(
          new Timeout({
            verb: "list",
            path: resourcePath(r, { namespace }),
            message: `the informers of cluster "${ctx.cluster}" did not sync within ${Duration.format(syncTimeout)}`,
          }),
        ),
    }),
  )
}

/** The running informers that serve a read, synced (waiting for them when the table says so). */
const serving = (
  ctx: CacheContext,
  r: ResourceRef,
  trigger: ReadsTrigger,
  namespace: string | undefined,
): Effect.Effect<{ readonly from: ReadonlyArray<Running>; readonly row: RowId }, CacheError> =>
  Effect.gen(function* () {
    const s = yield* SynchronizedRef.get(ctx.state)
    if (s.closed)
      return yield* informerNotFound(r, namespace, `the cache of cluster "${ctx.cluster}" has stopped`)
    const result = read(s.registry, trigger, ctx.config)
    if (result.status.outcome === "error")
      return yield* result.status.error._tag === "CacheNotStarted"
        ? new CacheNotStarted({
            resource: r,
            namespace,
            message: `the cache of cluster "${ctx.cluster}" is not started, can not read objects`,
          })
        : noInformer(r, namespace, result.status.error.message, s)
    const from = result.status.from.flatMap((ref) => ctx.levels.running(ref) ?? [])
    if (from.length === 0) return yield* noInformer(r, namespace, "its informers have stopped", s)
    if (result.status.waitForSync) {
      yield* waitForSync(ctx, r, namespace, from)
      if (from.some((running) => Deferred.isDoneUnsafe(running.ended)))
        return yield* noInformer(
          r,
          namespace,
          "its informers have stopped",
          yield* SynchronizedRef.get(ctx.state),
        )
    }
    return { from, row: result.row }
  })

/** The namespace a read names: the cluster scope for cluster-scoped resources, `undefined` for all. */
const scopeOfRead = (r: ResourceRef, namespace: string | undefined): string | undefined =>
  !r.namespaced ? CLUSTER_SCOPE : namespace === undefined || namespace === "" ? undefined : namespace

/** `get`: the object from the first serving informer that has it. */
export const get = <T extends KubeObject = KubeObject>(
  ctx: CacheContext,
  r: ResourceRef,
  key: ObjectKey,
): Effect.Effect<T, CacheError> =>
  Effect.gen(function* () {
    const namespace = scopeOfRead(r, key.namespace) ?? CLUSTER_SCOPE
    const { from } = yield* serving(
      ctx,
      r,
      { _tag: "Get", gvk: gvkOf(r), namespace, name: key.name },
      namespace,
    )
    const k = r.namespaced ? key : { name: key.name }
    const object = ctx.levels.get(from, k)
    if (object === undefined)
      return yield* new CacheNotFound({
        verb: "get",
        path: resourcePath(r, k),
        message: `${r.resource} "${keyOf(k)}" not found in the scoped cache of cluster "${ctx.cluster}"`,
      })
    return object as T
  })

/** `listPage`: the serving informers' objects, each once, sorted, filtered and paged. */
export const listPage = <T extends KubeObject = KubeObject>(
  ctx: CacheContext,
  r: ResourceRef,
  o: ScopedListOptions = {},
): Effect.Effect<CachePage<T>, CacheError> =>
  Effect.gen(function* () {
    const namespace = scopeOfRead(r, o.namespace)
    const { from } = yield* serving(ctx, r, { _tag: "List", gvk: gvkOf(r), namespace }, namespace)
    const sorted = ctx.levels.list(from, {
      namespace: namespace === CLUSTER_SCOPE ? undefined : namespace,
      labelSelector: o.labelSelector,
      fieldSelector: o.fieldSelector,
      index: o.index,
    }) as ReadonlyArray<T>
    const page = pageOf(r, sorted, o)
    return page instanceof InvalidContinueToken ? yield* page : page
  })

/**
 * `getInformer`: the informer of one scope. With `startOnGetInformer` it is added first, held by
 * `getInformer`'s dependent and then by its subscriptions (`dependents.ts`).
 */
export const getInformer = <T extends KubeObject = KubeObject>(
  ctx: CacheContext,
  operate: Operate,
  r: ResourceRef,
  o?: ScopeOptions,
): Effect.Effect<Informer<T>, CacheError> =>
  Effect.gen(function* () {
    const { config } = ctx
    const targets = targetsOf(ctx, { resource: r, namespace: o?.namespace, dependent: { uid: "" } })
    const [target] = targets
    if (target === undefined || targets.length > 1)
      return yield* informerNotFound(
        r,
        o?.namespace,
        `name a namespace: the cache watches namespaces ${(config.defaultNamespaces ?? []).join(", ")}`,
      )
    const placeholder: Dependent = { uid: `getInformer:${refString(target.ref)}`, kind: "GetInformer" }
    if (config.startOnGetInformer)
      yield* addInformer(ctx, operate, {
        resource: r,
        namespace: target.spec.namespace,
        dependent: placeholder,
      })
    const { from } = yield* Effect.catchTag(
      serving(ctx, r, { _tag: "GetInformer", ref: target.ref }, target.spec.namespace),
      "Timeout",
      () => Effect.succeed({ from: [] as ReadonlyArray<Running> }),
    )
    const running = from[0]
    if (running === undefined) return yield* informerNotFound(r, target.spec.namespace)
    if (!config.startOnGetInformer) return running.informer as unknown as Informer<T>
    // One wrapper per run, so that getInformer keeps returning the same informer.
    const held =
      ctx.held.get(running) ?? heldBySubscriptions(ctx, operate, running.informer, running.ref, placeholder)
    ctx.held.set(running, held)
    return held as unknown as Informer<T>
  })
