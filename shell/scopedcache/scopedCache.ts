/**
 * `ScopedCache`: the dynamic scoped cache of seed 002 (the Wrapper around the
 * `NamespaceScopedCache` and the `ClusterScopedCache`) implementing the project's `Cache`
 * interface, plus the seed's `AddInformer` / `RemoveInformer` with dependents.
 *
 * # Expected flow
 * An operator adds an informer for a resource in a namespace (or at cluster level) on behalf of a
 * dependent (the object that needs it, counted by UID); the registry decides (the tables of
 * `core/scopedcache/`) and the cache interprets the actions: it starts the project's reflector
 * for a `StartInformer`, closes its scope for a `StopInformer`, tells dependents for a
 * `NotifyDependents` and writes one log line for a `Log`. Reads (`get`, `list`, `getInformer`)
 * ask the reads table which informers serve them and answer from those informers' stores only.
 *
 * # Guarantees
 * - Decide purely, then act: every change goes through the registry under one short lock
 *   (`SynchronizedRef.modifyEffect`); starting an informer forks its reflector and returns, so the
 *   lock spans no I/O. Closing an informer's scope runs after the lock, on the cache's fibers.
 *   Access reviews and discovery run before the lock.
 * - A list or watch answered 403 stops its informer at once (no backoff; abandoned after
 *   `stopTimeout`, 1 s, if its scope does not close): the registry applies `PermissionLost`,
 *   its dependents get one `PermissionLost` event, the log gets one line for that informer.
 * - Reads never start an informer: no informer → `InformerNotFound`; before Start →
 *   `CacheNotStarted`; no informer because the last one of that scope lost its permission →
 *   `InformerForbidden` (until an informer is added there again); the informer exists and lacks
 *   the object → `CacheNotFound`. Each is the cache's own error (`errors.ts`), a subclass of the
 *   error the `Cache` interface names, so that handlers of `NotFound` and `Forbidden` still work.
 * - A list served by several informers (namespaces, or a namespace next to a cluster-level one)
 *   has each object once, sorted by key; field selectors, `limit` and `continue` (`page.ts`).
 * - Informers that `getInformer` added (`startOnGetInformer`) are held by their subscriptions
 *   and stop with the last one.
 *
 * # Caveats
 * - The API server does not re-authorize an open watch: a revoked Role is noticed by the
 *   permission recheck (`permissionRecheckInterval`, 10 s, plus one review), or at the next list
 *   or watch when the recheck is off.
 * - A list across all namespaces is answered by the informers that still run: a namespace whose
 *   informer lost permission drops out of it (reads in that namespace get `Forbidden`).
 *
 * @module
 */
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberSet from "effect/FiberSet"
import * as PubSub from "effect/PubSub"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as SynchronizedRef from "effect/SynchronizedRef"
import type { RowId } from "../../core/krtt/index.ts"
import type { ScopedCacheAction } from "../../core/scopedcache/actions.ts"
import { INFORMERS_ROW } from "../../core/scopedcache/informers.ts"
import type { ReadsTrigger } from "../../core/scopedcache/reads.ts"
import {
  apply,
  emptyRegistry,
  isSynced,
  lookup,
  type Operation,
  type Registry,
  read,
  type Step,
  toJson,
} from "../../core/scopedcache/registry.ts"
import type { Dependent, Gvk, InformerRef } from "../../core/scopedcache/types.ts"
import { CLUSTER_SCOPE, gvkString, refString } from "../../core/scopedcache/types.ts"
import {
  type Cache,
  type CacheError,
  type CacheListOptions,
  type Informer,
  InformerNotFound,
  informerNotFound,
  type ScopeOptions,
} from "../cache/types.ts"
import type { KubeClientShape } from "../kube/client.ts"
import { makeKindResolver } from "../kube/discovery.ts"
import { Forbidden, type KubeError, Timeout } from "../kube/errors.ts"
import { type KubeObject, keyOf, type ObjectKey, type ResourceRef, resourcePath } from "../kube/resource.ts"
import type { IndexFunc } from "../reflector/store.ts"
import type { AccessReviewer } from "./accessReview.ts"
import { CacheNotFound, CacheNotStarted, InformerForbidden, InvalidContinueToken } from "./errors.ts"
import type { InformerSpec, PermissionLoss } from "./informer.ts"
import {
  InvalidScopedCacheOptions,
  informerSelection,
  keyFor,
  millisOf,
  type ScopedCacheConfig,
  type ScopedCacheOptions,
  scopedCacheConfig,
} from "./options.ts"
import { type CachePage, type PageOptions, pageOf } from "./page.ts"
import { type Ended, Levels, type Running } from "./running.ts"

/** What dependents are told (seed: the informer's dependents when it goes away). */
export interface ScopedCacheEvent {
  readonly _tag: "PermissionLost" | "InformerRemoved"
  readonly cluster: string
  readonly ref: InformerRef
  readonly resource: ResourceRef
  readonly dependents: ReadonlyArray<Dependent>
  readonly message: string
  /** The registry row that decided. */
  readonly row: RowId
  /** When the 403 (or the denying access review) was seen, for `PermissionLost`. */
  readonly observedAt: number | undefined
  /** When the informer's scope had closed. */
  readonly stoppedAt: number
}

/** `AddInformer`'s options (seed: `InformerOptions`). */
export interface AddInformerOptions {
  readonly resource: ResourceRef
  /** The namespace to watch; absent or "" for cluster level (or the default namespaces, if set). */
  readonly namespace?: string | undefined
  /** The informer's key; default from the key function. */
  readonly key?: string | undefined
  readonly labelSelector?: string | undefined
  readonly fieldSelector?: string | undefined
  /** The resource that depends on the informer, counted by UID. */
  readonly dependent: Dependent
}

/** `RemoveInformer`'s options: one dependent less, or `force` to remove whatever the dependents. */
export interface RemoveInformerOptions {
  readonly resource: ResourceRef
  readonly namespace?: string | undefined
  readonly key?: string | undefined
  readonly labelSelector?: string | undefined
  readonly fieldSelector?: string | undefined
  readonly dependent?: Dependent | undefined
  readonly force?: boolean | undefined
}

/** One informer of the registry, for status pages, tests and benchmarks. */
export interface InformerInfo {
  readonly ref: InformerRef
  readonly state: string
  readonly dependents: ReadonlyArray<Dependent>
  readonly running: boolean
}

/** A list read from the scoped cache: the `Cache` interface's options, field selectors and pages. */
export interface ScopedListOptions extends CacheListOptions, PageOptions {
  /** Field selector in the API's string form, e.g. `metadata.name=a,status.phase!=Done`. */
  readonly fieldSelector?: string | undefined
}

/** The scoped cache: the project's `Cache` plus the seed's informer management. */
export interface ScopedCache extends Cache {
  readonly cluster: string
  /**
   * Objects from the informers that cover the options (`Cache.list`), with field selectors,
   * `limit` and `continue`.
   */
  readonly list: <T extends KubeObject = KubeObject>(
    resource: ResourceRef,
    options?: ScopedListOptions,
  ) => Effect.Effect<ReadonlyArray<T>, CacheError>
  /** One page of `list`, with the token of the next page. */
  readonly listPage: <T extends KubeObject = KubeObject>(
    resource: ResourceRef,
    options?: ScopedListOptions,
  ) => Effect.Effect<CachePage<T>, CacheError>
  /** Adds an informer, or one more dependent of it; Forbidden when the access review says no. */
  readonly addInformer: (options: AddInformerOptions) => Effect.Effect<ReadonlyArray<InformerRef>, KubeError>
  /** Removes one dependent (the informer stops with the last one), or the informer with `force`. */
  readonly removeInformer: (options: RemoveInformerOptions) => Effect.Effect<void>
  /**
   * Subscribes to the events for dependents (permission lost, informer removed by force): every
   * event published after the subscription, until the scope closes.
   */
  readonly subscribeEvents: Effect.Effect<Stream.Stream<ScopedCacheEvent>, never, Scope.Scope>
  /** Every registered informer. */
  readonly informers: Effect.Effect<ReadonlyArray<InformerInfo>>
  /** How many informers run now (both levels). */
  readonly runningCount: Effect.Effect<number>
  /** The running informers by level (seed: the two caches). */
  readonly levels: Levels
}

interface State {
  readonly registry: Registry
  /** The spec of every registered ref (what to start), by `refString`. */
  readonly specs: Map<string, Omit<InformerSpec, "indexers">>
  /** The last permission loss per read scope (`namespace|gvk`), until an informer starts there. */
  readonly losses: Map<string, PermissionLoss & { readonly message: string }>
  readonly closed: boolean
}

const gvkOf = (r: ResourceRef): Gvk => ({ group: r.group, version: r.version, kind: r.kind })
const lossKey = (namespace: string, gvk: Gvk) => `${namespace}|${gvkString(gvk)}`

/** Makes a scoped cache over `client`; it runs until the scope closes. */
export const makeScopedCache = (
  client: KubeClientShape,
  options: ScopedCacheOptions & { readonly cluster: string },
): Effect.Effect<ScopedCache, InvalidScopedCacheOptions, Scope.Scope> =>
  Effect.gen(function* () {
    const { cluster, ...rest } = options
    const checked = scopedCacheConfig(rest)
    if (checked instanceof InvalidScopedCacheOptions) return yield* checked
    const config: ScopedCacheConfig = checked
    const cacheScope = yield* Scope.fork(yield* Effect.scope)
    yield* Effect.addFinalizer(() => Scope.close(cacheScope, Exit.void))
    const background = yield* FiberSet.make().pipe(Scope.provide(cacheScope))
    const bus = yield* PubSub.unbounded<ScopedCacheEvent>()
    const levels = new Levels()
    const indexers = new Map<string, Map<string, IndexFunc<KubeObject>>>()
    const reviewer: AccessReviewer = config.accessReviewer(client)
    const resolveKind = yield* makeKindResolver(client)
    const started = yield* Deferred.make<void>()
    const stoppedCache = yield* Deferred.make<void>()
    const stopTimeout = millisOf(config.stopTimeout)
    let generation = 0
    let subscriptions = 0
    const heldInformers = new WeakMap<Running, Informer<KubeObject>>()
    const state = yield* SynchronizedRef.make<State>({
      registry: emptyRegistry,
      specs: new Map(),
      losses: new Map(),
      closed: false,
    })
    const annotate = Effect.annotateLogs({ cluster })

    // ---- interpreting the registry's actions (under the lock; none waits for I/O) -------------

    const closeInBackground = (running: Running) =>
      FiberSet.run(
        background,
        Effect.gen(function* () {
          yield* Scope.close(running.scope, Exit.void).pipe(
            Effect.timeoutOrElse({
              duration: stopTimeout,
              orElse: () =>
                Effect.logWarning("informer did not stop in time; abandoned").pipe(
                  Effect.annotateLogs({ informer: refString(running.ref), timeoutMs: stopTimeout }),
                ),
            }),
          )
          yield* Deferred.succeed(running.closed, yield* Clock.currentTimeMillis)
        }),
      )

    const startInformer = (s: State, ref: InformerRef): Effect.Effect<void> =>
      Effect.gen(function* () {
        const base = s.specs.get(refString(ref))
        if (base === undefined || levels.running(ref) !== undefined) return
        s.losses.delete(lossKey(ref.namespace, ref.gvk))
        const spec: InformerSpec = {
          ...base,
          indexers: Object.fromEntries(indexers.get(gvkString(ref.gvk)) ?? []),
        }
        const scope = yield* Scope.fork(cacheScope)
        const gen = ++generation
        const ended = yield* Deferred.make<Ended>()
        const closed = yield* Deferred.make<number>()
        const informer = yield* config
          .informerFactory(client, spec, {
            onForbidden: (loss) =>
              Effect.asVoid(
                FiberSet.run(
                  background,
                  operate(
                    { _tag: "PermissionLost", ref, verb: loss.verb, message: loss.error.message },
                    { generation: gen, loss },
                  ),
                ),
              ),
          })
          .pipe(Scope.provide(scope))
        const running: Running = {
          ref,
          generation: gen,
          scope,
          ended,
          closed,
          informer: {
            ...informer,
            // A stopped informer never syncs: waiting ends when it stops (hasSynced stays false).
            waitForSync: Effect.raceFirst(informer.waitForSync, Effect.asVoid(Deferred.await(ended))),
          },
        }
        levels.of(ref).put(running)
        yield* Effect.forkIn(
          Effect.andThen(informer.waitForSync, operate({ _tag: "InformerSynced", ref }, { generation: gen })),
          scope,
        )
        yield* Effect.logDebug("informer started").pipe(Effect.annotateLogs({ informer: refString(ref) }))
      })

    const stopInformer = (ref: InformerRef, ended: Ended) =>
      Effect.gen(function* () {
        const running = levels.of(ref).take(ref)
        if (running === undefined) return undefined
        yield* Deferred.succeed(running.ended, ended)
        yield* closeInBackground(running)
        return running
      })

    const interpret = (s: State, step: Step, loss: PermissionLoss | undefined) =>
      Effect.gen(function* () {
        const stopped = new Map<string, Running>()
        for (const action of step.actions) yield* interpretOne(s, step, action, loss, stopped)
      })

    const interpretOne = (
      s: State,
      step: Step,
      action: ScopedCacheAction,
      loss: PermissionLoss | undefined,
      stopped: Map<string, Running>,
    ): Effect.Effect<void> => {
      switch (action._tag) {
        case "StartInformer":
          return startInformer(s, action.ref)
        case "StopInformer":
          return Effect.flatMap(stopInformer(action.ref, { reason: action.reason, loss }), (running) =>
            Effect.sync(() => {
              if (running !== undefined) stopped.set(refString(action.ref), running)
            }),
          )
        case "Log":
          return Effect.logWarning(action.message).pipe(
            Effect.annotateLogs({ informer: refString(action.ref), row: step.row }),
          )
        case "NotifyDependents": {
          const spec = s.specs.get(refString(action.ref))
          const running = stopped.get(refString(action.ref))
          if (spec === undefined) return Effect.void
          return Effect.asVoid(
            FiberSet.run(
              background,
              Effect.gen(function* () {
                const stoppedAt =
                  running === undefined
                    ? yield* Clock.currentTimeMillis
                    : yield* Deferred.await(running.closed)
                yield* PubSub.publish(bus, {
                  _tag: action.reason,
                  cluster,
                  ref: action.ref,
                  resource: spec.resource,
                  dependents: action.dependents,
                  message: action.message,
                  row: step.row,
                  observedAt: loss?.at,
                  stoppedAt,
                })
              }),
            ),
          )
        }
      }
    }

    /**
     * Applies one operation to the registry and interprets its actions, under the lock. With a
     * `generation`, the operation comes from a running informer and is dropped when that run has
     * already ended (a late sync or 403 of a stopped informer).
     */
    const operate = (
      op: Operation,
      from?: { readonly generation: number; readonly loss?: PermissionLoss | undefined },
      spec?: Omit<InformerSpec, "indexers">,
    ): Effect.Effect<Step | undefined> =>
      SynchronizedRef.modifyEffect(state, (s) =>
        Effect.gen(function* () {
          if (s.closed) return [undefined, s] as const
          if (from !== undefined && "ref" in op && levels.running(op.ref)?.generation !== from.generation)
            return [undefined, s] as const
          if (spec !== undefined && "ref" in op && !s.specs.has(refString(op.ref)))
            s.specs.set(refString(op.ref), spec)
          const step = apply(s.registry, op, config)
          const next: State = { ...s, registry: step.registry }
          if (
            op._tag === "PermissionLost" &&
            step.row === INFORMERS_ROW.permissionLost &&
            from?.loss !== undefined
          )
            next.losses.set(lossKey(op.ref.namespace, op.ref.gvk), { ...from.loss, message: op.message })
          yield* interpret(next, step, from?.loss)
          if ("ref" in op && lookup(step.registry, op.ref) === undefined) next.specs.delete(refString(op.ref))
          if (op._tag === "Start") yield* Deferred.succeed(started, undefined)
          return [step, next] as const
        }),
      ).pipe(annotate)

    // ---- informer management ------------------------------------------------------------------

    /** The refs an add or remove names: one per default namespace for a namespaced resource without one. */
    const refsOf = (o: AddInformerOptions | RemoveInformerOptions) => {
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
        const spec: Omit<InformerSpec, "indexers"> = {
          cluster,
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

    const review = (spec: Omit<InformerSpec, "indexers">) =>
      Effect.gen(function* () {
        const decision = yield* reviewer({ resource: spec.resource, namespace: spec.namespace })
        if (decision.allowed) return
        return yield* new Forbidden({
          verb: decision.denied[0] ?? "list",
          path: resourcePath(spec.resource, { namespace: spec.namespace }),
          message: `access review: ${decision.denied.join(" and ")} ${spec.resource.resource} denied${
            spec.namespace === undefined ? " at cluster scope" : ` in namespace ${spec.namespace}`
          }${decision.reason === undefined ? "" : `: ${decision.reason}`}`,
        })
      })

    const addInformer = (o: AddInformerOptions): Effect.Effect<ReadonlyArray<InformerRef>, KubeError> =>
      Effect.forEach(refsOf(o), ({ ref, spec }) =>
        Effect.gen(function* () {
          // The access review is I/O: it runs before the lock, for an informer not yet registered.
          if (config.accessReview && lookup((yield* SynchronizedRef.get(state)).registry, ref) === undefined)
            yield* review(spec)
          yield* operate({ _tag: "AddInformer", ref, dependent: o.dependent }, undefined, spec)
          return ref
        }),
      )

    const removeInformer = (o: RemoveInformerOptions): Effect.Effect<void> =>
      Effect.forEach(
        refsOf(o),
        ({ ref }) =>
          o.force === true
            ? operate({ _tag: "ForceRemove", ref })
            : o.dependent === undefined
              ? Effect.void
              : operate({ _tag: "RemoveInformer", ref, dependent: o.dependent }),
        { discard: true },
      )

    // ---- access rechecks ----------------------------------------------------------------------

    /**
     * Reviews the running informers' access: one review of `watch` (the verb an open watch goes on
     * relying on) per resource and namespace, shared by the informers of that scope. A refusal
     * counts as a 403 on each of them (`PermissionLost`).
     */
    const recheck = Effect.gen(function* () {
      const scopes = new Map<string, Array<Running>>()
      for (const running of levels.all()) {
        const spec = running.informer.spec
        const k = `${spec.resource.group}/${spec.resource.resource}|${spec.namespace ?? ""}`
        scopes.set(k, [...(scopes.get(k) ?? []), running])
      }
      yield* Effect.forEach(
        scopes.values(),
        (group) =>
          Effect.gen(function* () {
            const spec = (group[0] as Running).informer.spec
            const decision = yield* Effect.result(
              reviewer({ resource: spec.resource, namespace: spec.namespace, verbs: ["watch"] }),
            )
            if (decision._tag === "Failure" || decision.success.allowed) return
            const at = yield* Clock.currentTimeMillis
            const verb = "watch"
            const message = `access review: ${decision.success.denied.join(" and ")} denied${
              decision.success.reason === undefined ? "" : `: ${decision.success.reason}`
            }`
            const error = new Forbidden({
              verb,
              path: resourcePath(spec.resource, { namespace: spec.namespace }),
              message,
            })
            yield* Effect.forEach(
              group,
              (running) =>
                operate(
                  { _tag: "PermissionLost", ref: running.ref, verb, message },
                  { generation: running.generation, loss: { verb, error, at } },
                ),
              { discard: true },
            )
          }),
        { concurrency: 8, discard: true },
      )
    })
    const recheckEvery = millisOf(config.permissionRecheckInterval)
    if (recheckEvery > 0)
      yield* Effect.forkIn(
        Effect.forever(Effect.andThen(Effect.sleep(recheckEvery), recheck)).pipe(annotate),
        cacheScope,
      )

    yield* Scope.addFinalizer(
      cacheScope,
      Effect.andThen(
        SynchronizedRef.update(state, (s) => ({ ...s, closed: true })),
        Effect.andThen(
          Effect.forEach(levels.all(), (r) => Deferred.succeed(r.ended, { reason: "CacheStopped" }), {
            discard: true,
          }),
          Deferred.succeed(stoppedCache, undefined),
        ),
      ),
    )

    // ---- reads --------------------------------------------------------------------------------

    const noInformer = (
      r: ResourceRef,
      namespace: string | undefined,
      message: string,
      s: State,
    ): CacheError => {
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

    const syncTimeout = Duration.fromInputUnsafe(config.syncTimeout)

    /** The running informers that serve a read, synced (waiting for them when the table says so). */
    const serving = (r: ResourceRef, trigger: ReadsTrigger, namespace: string | undefined) =>
      Effect.gen(function* () {
        const s = yield* SynchronizedRef.get(state)
        if (s.closed)
          return yield* informerNotFound(r, namespace, `the cache of cluster "${cluster}" has stopped`)
        const result = read(s.registry, trigger, config)
        if (result.status.outcome === "error")
          return yield* result.status.error._tag === "CacheNotStarted"
            ? new CacheNotStarted({
                resource: r,
                namespace,
                message: `the cache of cluster "${cluster}" is not started, can not read objects`,
              })
            : noInformer(r, namespace, result.status.error.message, s)
        const from = result.status.from.flatMap((ref) => levels.running(ref) ?? [])
        if (from.length === 0) return yield* noInformer(r, namespace, "its informers have stopped", s)
        if (result.status.waitForSync) {
          yield* Effect.forEach(from, (running) => running.informer.waitForSync, {
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
                    message: `the informers of cluster "${cluster}" did not sync within ${Duration.format(syncTimeout)}`,
                  }),
                ),
            }),
          )
          const ended = from.filter((running) => Deferred.isDoneUnsafe(running.ended))
          if (ended.length > 0)
            return yield* noInformer(
              r,
              namespace,
              "its informers have stopped",
              yield* SynchronizedRef.get(state),
            )
        }
        return { from, row: result.row }
      })

    const scopeOfRead = (r: ResourceRef, namespace: string | undefined): string | undefined =>
      !r.namespaced ? CLUSTER_SCOPE : namespace === undefined || namespace === "" ? undefined : namespace

    const get = <T extends KubeObject = KubeObject>(r: ResourceRef, key: ObjectKey) =>
      Effect.gen(function* () {
        const namespace = scopeOfRead(r, key.namespace) ?? CLUSTER_SCOPE
        const { from } = yield* serving(
          r,
          { _tag: "Get", gvk: gvkOf(r), namespace, name: key.name },
          namespace,
        )
        const k = r.namespaced ? key : { name: key.name }
        const object = levels.get(from, k)
        if (object === undefined)
          return yield* new CacheNotFound({
            verb: "get",
            path: resourcePath(r, k),
            message: `${r.resource} "${keyOf(k)}" not found in the scoped cache of cluster "${cluster}"`,
          })
        return object as T
      })

    const listPage = <T extends KubeObject = KubeObject>(r: ResourceRef, o: ScopedListOptions = {}) =>
      Effect.gen(function* () {
        const namespace = scopeOfRead(r, o.namespace)
        const { from } = yield* serving(r, { _tag: "List", gvk: gvkOf(r), namespace }, namespace)
        const sorted = levels.list(from, {
          namespace: namespace === CLUSTER_SCOPE ? undefined : namespace,
          labelSelector: o.labelSelector,
          fieldSelector: o.fieldSelector,
          index: o.index,
        }) as ReadonlyArray<T>
        const page = pageOf(r, sorted, o)
        return page instanceof InvalidContinueToken ? yield* page : page
      })

    const list = <T extends KubeObject = KubeObject>(r: ResourceRef, o: ScopedListOptions = {}) =>
      Effect.map(listPage<T>(r, o), (page) => page.items)

    const getInformer = <T extends KubeObject = KubeObject>(r: ResourceRef, o?: ScopeOptions) =>
      Effect.gen(function* () {
        const targets = refsOf({ resource: r, namespace: o?.namespace, dependent: { uid: "" } })
        const [target] = targets
        if (target === undefined || targets.length > 1)
          return yield* informerNotFound(
            r,
            o?.namespace,
            `name a namespace: the cache watches namespaces ${(config.defaultNamespaces ?? []).join(", ")}`,
          )
        const placeholder: Dependent = { uid: `getInformer:${refString(target.ref)}`, kind: "GetInformer" }
        if (config.startOnGetInformer)
          yield* addInformer({ resource: r, namespace: target.spec.namespace, dependent: placeholder })
        const { from } = yield* Effect.catchTag(
          serving(r, { _tag: "GetInformer", ref: target.ref }, target.spec.namespace),
          "Timeout",
          () => Effect.succeed({ from: [] as ReadonlyArray<Running> }),
        ).pipe(
          Effect.flatMap((x) =>
            x.from.length > 0 ? Effect.succeed(x) : Effect.fail(informerNotFound(r, target.spec.namespace)),
          ),
        )
        const running = from[0] as Running
        if (!config.startOnGetInformer) return running.informer as unknown as Informer<T>
        // One wrapper per run, so that getInformer keeps returning the same informer.
        const held =
          heldInformers.get(running) ?? heldBySubscriptions(running.informer, running.ref, placeholder)
        heldInformers.set(running, held)
        return held as unknown as Informer<T>
      })

    /**
     * An informer that `getInformer` added (`startOnGetInformer`) is held by its subscriptions:
     * each `subscribe` is a dependent of it until the subscription's scope closes, and the first
     * one takes the place of `getInformer`'s own dependent. The informer stops with its last
     * subscription (and its last `addInformer` dependent), as the seed's informers stop with
     * their last dependent.
     */
    const heldBySubscriptions = <T extends KubeObject>(
      informer: Informer<T>,
      ref: InformerRef,
      placeholder: Dependent,
    ): Informer<T> => ({
      ...informer,
      subscribe: (handler) =>
        Effect.gen(function* () {
          const registered = lookup((yield* SynchronizedRef.get(state)).registry, ref) !== undefined
          if (registered) {
            const dependent: Dependent = { uid: `subscription:${++subscriptions}`, kind: "Subscription" }
            yield* operate({ _tag: "AddInformer", ref, dependent })
            yield* operate({ _tag: "RemoveInformer", ref, dependent: placeholder })
            yield* Effect.addFinalizer(() => operate({ _tag: "RemoveInformer", ref, dependent }))
          }
          yield* informer.subscribe(handler)
        }),
    })

    const waitForCacheSync: Effect.Effect<boolean> = Effect.gen(function* () {
      const done = yield* Effect.raceFirst(
        Effect.as(Deferred.await(started), true),
        Effect.as(Deferred.await(stoppedCache), false),
      )
      if (!done) return false
      for (;;) {
        const s = yield* SynchronizedRef.get(state)
        if (s.closed) return false
        if (isSynced(s.registry, config)) return true
        const waiting = levels.all()
        if (waiting.length === 0) yield* Effect.sleep(10)
        yield* Effect.raceFirst(
          Effect.forEach(waiting, (r) => r.informer.waitForSync, { concurrency: "unbounded", discard: true }),
          Deferred.await(stoppedCache),
        )
        yield* Effect.yieldNow
      }
    })

    const cache: ScopedCache = {
      cluster,
      levels,
      get,
      list,
      listPage,
      getInformer,
      getInformerForKind: <T extends KubeObject = KubeObject>(
        gvk: { readonly group: string; readonly version: string; readonly kind: string },
        o?: ScopeOptions,
      ) => Effect.flatMap(resolveKind(gvk), (r) => getInformer<T>(r, o)),
      indexField: <T extends KubeObject = KubeObject>(r: ResourceRef, name: string, extract: IndexFunc<T>) =>
        SynchronizedRef.modifyEffect(state, (s) =>
          Effect.gen(function* () {
            const g = gvkString(gvkOf(r))
            const byName = indexers.get(g) ?? new Map<string, IndexFunc<KubeObject>>()
            if (byName.has(name)) return [undefined, s] as const
            const fn = extract as unknown as IndexFunc<KubeObject>
            byName.set(name, fn)
            indexers.set(g, byName)
            for (const running of levels.all())
              if (gvkString(running.ref.gvk) === g)
                yield* running.informer.addIndex(name, fn).pipe(Scope.provide(running.scope))
            return [undefined, s] as const
          }),
        ),
      waitForCacheSync,
      start: Effect.gen(function* () {
        yield* operate({ _tag: "Start" })
        yield* Effect.addFinalizer(() => Scope.close(cacheScope, Exit.void))
      }),
      isStarted: Effect.map(SynchronizedRef.get(state), (s) => s.registry.started && !s.closed),
      addInformer,
      removeInformer,
      subscribeEvents: Effect.map(PubSub.subscribe(bus), Stream.fromSubscription),
      informers: Effect.map(SynchronizedRef.get(state), (s) =>
        toJson(s.registry).informers.map((i) => ({
          ref: i.ref,
          state: i.state,
          dependents: i.dependents,
          running: levels.running(i.ref) !== undefined,
        })),
      ),
      runningCount: Effect.sync(() => levels.all().length),
    }
    return cache
  })

export { InformerNotFound }
