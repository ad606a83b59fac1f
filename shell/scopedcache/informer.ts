/**
 * `ScopeInformer`: one informer of the scoped cache, the project's reflector on one resource in one
 * namespace (or across the cluster), that stops itself when the API server answers its list or
 * its watch with 403 Forbidden (seed 002, Cache Components: "the context.CancelFunc … to properly
 * shutdown an informer when asked or when it loses permissions").
 *
 * # Expected flow
 * The cache's informer factory builds one from an `InformerSpec` in a scope of its own; the
 * reflector lists and watches; a 403 calls `hooks.onForbidden` once and ends the reflector's loop
 * at once (the reflector's `onError` hook, no backoff, no log line of its own); the cache then
 * closes the informer's scope. Any other failure is retried with the reflector's backoff.
 *
 * # Guarantees
 * - `onForbidden` is called at most once per informer, from the reflector's fiber: it must not
 *   wait for the informer's own scope to close (the cache hands it to its own fiber).
 * - An index added after the start (`addIndex`) is filled from the store first, then kept by a
 *   handler (`shell/cache/lateIndex.ts`), so `store.byIndex` answers for it like for the indexes
 *   given at the start.
 *
 * @module
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import type * as Scope from "effect/Scope"
import { IndexedStore } from "../cache/lateIndex.ts"
import type { Informer } from "../cache/types.ts"
import type { KubeClientShape } from "../kube/client.ts"
import type { Forbidden } from "../kube/errors.ts"
import type { KubeObject, ResourceRef } from "../kube/resource.ts"
import type { ReconnectBackoff, ReflectorTiming } from "../reflector/options.ts"
import { make as makeReflector, type ReflectorStatus } from "../reflector/reflector.ts"
import type { IndexFunc } from "../reflector/store.ts"

/** What one informer watches, resolved from the cache's options (see `options.ts`). */
export interface InformerSpec {
  /** The cluster's name, for logs. */
  readonly cluster: string
  readonly resource: ResourceRef
  /** The namespace it watches; `undefined` at cluster scope (all namespaces). */
  readonly namespace: string | undefined
  /** The informer's key within its scope and resource (the cache's key function made it). */
  readonly key: string
  readonly labelSelector: string | undefined
  readonly fieldSelector: string | undefined
  /** Applied to every object before it is stored (controller-runtime's `TransformFunc`). */
  readonly transform: ((object: KubeObject) => KubeObject) | undefined
  /** Indexes known when the informer starts. */
  readonly indexers: Readonly<Record<string, IndexFunc<KubeObject>>>
  /** Timing of the reflector (defaults: the reflector's). */
  readonly reflector: Partial<Omit<ReflectorTiming, "backoff">> & {
    readonly backoff?: Partial<ReconnectBackoff> | undefined
  }
}

/** A 403 on a list or a watch: the informer's permission is gone. */
export interface PermissionLoss {
  readonly verb: "list" | "watch"
  readonly error: Forbidden
  /** When the 403 was seen (ms since epoch, the Clock's). */
  readonly at: number
}

/** What the cache hands a factory so that an informer can report its permission loss. */
export interface InformerHooks {
  readonly onForbidden: (loss: PermissionLoss) => Effect.Effect<void>
}

/** A running informer: the controllers' `Informer` plus what the cache needs to manage it. */
export interface ScopeInformer extends Informer<KubeObject> {
  readonly spec: InformerSpec
  readonly status: Effect.Effect<ReflectorStatus>
  /** Adds an index to the running informer (the cache calls it for `indexField`). */
  readonly addIndex: (name: string, extract: IndexFunc<KubeObject>) => Effect.Effect<void, never, Scope.Scope>
}

/**
 * Builds an informer in the current scope (closing the scope stops it). The seed's
 * `ScopedInformerFactory`: "It is up to the function to properly implement any error handling
 * logic for the informer losing permissions": a factory must call `hooks.onForbidden` on a 403.
 * It runs under the cache's lock, so it must not wait for I/O: fork the list and watch (as the
 * reflector does) and return.
 */
export type InformerFactory = (
  client: KubeClientShape,
  spec: InformerSpec,
  hooks: InformerHooks,
) => Effect.Effect<ScopeInformer, never, Scope.Scope>

/** A log-friendly name: `configmaps in team-a [default]`. */
export const informerName = (spec: Pick<InformerSpec, "resource" | "namespace" | "key">): string =>
  `${spec.resource.resource}${spec.resource.group === "" ? "" : `.${spec.resource.group}`}${
    spec.namespace === undefined ? "" : ` in ${spec.namespace}`
  } [${spec.key}]`

/** The default factory: the project's reflector, stopped by its `onError` hook on 403. */
export const reflectorInformerFactory: InformerFactory = (client, spec, hooks) =>
  Effect.gen(function* () {
    const transform = spec.transform
    const reflector = yield* makeReflector<KubeObject>(client, {
      ...spec.reflector,
      resource: spec.resource,
      namespace: spec.namespace,
      labelSelector: spec.labelSelector,
      fieldSelector: spec.fieldSelector,
      indexers: spec.indexers,
      name: informerName(spec),
      ...(transform === undefined
        ? {}
        : {
            decode: (object: KubeObject) => {
              try {
                return Result.succeed(transform(object))
              } catch (e) {
                return Result.fail(`transform failed: ${e instanceof Error ? e.message : String(e)}`)
              }
            },
          }),
      onError: ({ verb, error }) =>
        error._tag === "Forbidden"
          ? Effect.as(
              Effect.flatMap(Clock.currentTimeMillis, (at) => hooks.onForbidden({ verb, error, at })),
              "stop" as const,
            )
          : Effect.succeed("retry" as const),
    }).pipe(Effect.annotateLogs({ cluster: spec.cluster }))
    const store = new IndexedStore(reflector.store)
    return {
      spec,
      resource: spec.resource,
      namespace: spec.namespace,
      store,
      hasSynced: reflector.hasSynced,
      waitForSync: reflector.waitForSync,
      subscribe: reflector.subscribe,
      status: reflector.status,
      addIndex: (name, extract) =>
        store.hasLateIndex(name) || name in spec.indexers
          ? Effect.void
          : store.addIndex(name, extract, reflector.subscribe),
    } satisfies ScopeInformer
  })
