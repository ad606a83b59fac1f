/**
 * Informers on behalf of dependents (seed 002, `AddInformer` / `RemoveInformer`): which informers
 * an add or a remove names, the access review before a new one, and the informers that
 * `getInformer` added, held by their subscriptions.
 *
 * # Expected flow
 * `addInformer` names one informer (or one per default namespace), reviews the access for one the
 * registry does not have yet (`accessReview`), and adds the dependent through the registry's
 * table (`operate.ts`); `removeInformer` takes one dependent away, or the informer with `force`.
 *
 * # Guarantees
 * - The access review is I/O: it runs before the lock, and a refusal fails `addInformer` with
 *   `Forbidden` and registers nothing.
 * - An informer that `getInformer` added (`startOnGetInformer`) is held by `getInformer`'s own
 *   dependent until its first `subscribe`, then by each subscription until its scope closes: it
 *   stops with its last subscription (and its last `addInformer` dependent).
 *
 * @module
 */
import * as Effect from "effect/Effect"
import * as SynchronizedRef from "effect/SynchronizedRef"
import { lookup } from "../../core/scopedcache/registry.ts"
import { CLUSTER_SCOPE, type Dependent, type InformerRef } from "../../core/scopedcache/types.ts"
import type { Informer } from "../cache/types.ts"
import { Forbidden, type KubeError } from "../kube/errors.ts"
import { type KubeObject, resourcePath } from "../kube/resource.ts"
import { type BaseSpec, type CacheContext, gvkOf } from "./context.ts"
import type { Operate } from "./operate.ts"
import { informerSelection, keyFor } from "./options.ts"
import type { AddInformerOptions, RemoveInformerOptions } from "./types.ts"

/** One informer an add or a remove names. */
export interface Target {
  readonly ref: InformerRef
  readonly spec: BaseSpec
}

/** The informers an add or remove names: one per default namespace for a namespaced resource without one. */
export const targetsOf = (
  ctx: CacheContext,
  o: AddInformerOptions | RemoveInformerOptions,
): ReadonlyArray<Target> => {
  const { config } = ctx
  const ns =
    o.resource.namespaced && o.namespace !== undefined && o.namespace !== "" ? o.namespace : undefined
  const namespaces: ReadonlyArray<string | undefined> =
    ns === undefined && o.resource.namespaced && config.defaultNamespaces !== undefined
      ? config.defaultNamespaces
      : [ns]
  return namespaces.map((namespace) => {
    const selection = informerSelection(config, {
      resource: o.resource,
      namespace,
      labelSelector: o.labelSelector,
      fieldSelector: o.fieldSelector,
    })
    const key =
      o.key ??
      keyFor(config, {
        resource: o.resource,
        namespace,
        labelSelector: selection.labelSelector,
        fieldSelector: selection.fieldSelector,
      })
    const ref: InformerRef = { namespace: namespace ?? CLUSTER_SCOPE, gvk: gvkOf(o.resource), key }
    const spec: BaseSpec = {
      cluster: ctx.cluster,
      resource: o.resource,
      namespace,
      key,
      labelSelector: selection.labelSelector,
      fieldSelector: selection.fieldSelector,
      transform: selection.transform,
      reflector: config.reflector,
    }
    return { ref, spec }
  })
}

/** Reviews the access an informer needs; a refusal is a `Forbidden` naming the denied verbs. */
const review = (ctx: CacheContext, spec: BaseSpec): Effect.Effect<void, KubeError> =>
  Effect.gen(function* () {
    const decision = yield* ctx.reviewer({ resource: spec.resource, namespace: spec.namespace })
    if (decision.allowed) return
    return yield* new Forbidden({
      verb: decision.denied[0] ?? "list",
      path: resourcePath(spec.resource, { namespace: spec.namespace }),
      message: `access review: ${decision.denied.join(" and ")} ${spec.resource.resource} denied${
        spec.namespace === undefined ? " at cluster scope" : ` in namespace ${spec.namespace}`
      }${decision.reason === undefined ? "" : `: ${decision.reason}`}`,
    })
  })

/** `addInformer`: an informer, or one more dependent of it, for each informer the options name. */
export const addInformer = (
  ctx: CacheContext,
  operate: Operate,
  o: AddInformerOptions,
): Effect.Effect<ReadonlyArray<InformerRef>, KubeError> =>
  Effect.forEach(targetsOf(ctx, o), ({ ref, spec }) =>
    Effect.gen(function* () {
      // The access review is I/O: it runs before the lock, for an informer not yet registered.
      if (
        ctx.config.accessReview &&
        lookup((yield* SynchronizedRef.get(ctx.state)).registry, ref) === undefined
      )
        yield* review(ctx, spec)
      yield* operate({ _tag: "AddInformer", ref, dependent: o.dependent }, undefined, spec)
      return ref
    }),
  )

/** `removeInformer`: one dependent less, or the informer with `force`. */
export const removeInformer = (
  ctx: CacheContext,
  operate: Operate,
  o: RemoveInformerOptions,
): Effect.Effect<void> =>
  Effect.forEach(
    targetsOf(ctx, o),
    ({ ref }) =>
      o.force === true
        ? operate({ _tag: "ForceRemove", ref })
        : o.dependent === undefined
          ? Effect.void
          : operate({ _tag: "RemoveInformer", ref, dependent: o.dependent }),
    { discard: true },
  )

/**
 * An informer that `getInformer` added, held by its subscriptions: each `subscribe` is a
 * dependent of it until the subscription's scope closes, and the first one takes the place of
 * `getInformer`'s own dependent (`placeholder`).
 */
export const heldBySubscriptions = <T extends KubeObject>(
  ctx: CacheContext,
  operate: Operate,
  informer: Informer<T>,
  ref: InformerRef,
  placeholder: Dependent,
): Informer<T> => ({
  ...informer,
  subscribe: (handler) =>
    Effect.gen(function* () {
      const registered = lookup((yield* SynchronizedRef.get(ctx.state)).registry, ref) !== undefined
      if (registered) {
        const dependent: Dependent = { uid: `subscription:${ctx.nextSubscription()}`, kind: "Subscription" }
        yield* operate({ _tag: "AddInformer", ref, dependent })
        yield* operate({ _tag: "RemoveInformer", ref, dependent: placeholder })
        yield* Effect.addFinalizer(() => operate({ _tag: "RemoveInformer", ref, dependent }))
      }
      yield* informer.subscribe(handler)
    }),
})
