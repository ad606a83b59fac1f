/**
 * `Reflector`: the project's own list-then-watch loop, keeping an indexed `Store` of one
 * resource in step with the API server and telling handlers what changed.
 *
 * # Expected flow
 * List every page, replace the store, mark synced; watch from the list's resourceVersion with
 * bookmarks, applying events and tracking the last resourceVersion (bookmarks advance it); when
 * the watch ends, watch again from there; on 410 Gone, relist; on failures, back off with jitter
 * (800 ms … 30 s) and watch again from the last resourceVersion. The decisions are `step.ts`.
 *
 * # Guarantees
 * - A watch that delivers nothing, not even a bookmark, for `inactivityTimeout` (5 min) is
 *   restarted; client-node's silent-watch problem does not stop the reflector.
 * - A relist reports the difference to the store: objects gone while disconnected are Deleted.
 * - Handlers see every change once, in order, after the store has it; `subscribe` first replays
 *   the store as Added, atomically with respect to new events.
 * - The reflector never stops on its own: it survives API server restarts and outages. Closing
 *   its scope stops it (and an `onError` hook that answers `"stop"`).
 *
 * # Caveats
 * - Handlers run on the reflector's fiber: keep them short (enqueue, don't reconcile).
 * - Objects that `decode` rejects are logged, kept out of the store (Deleted if they were in),
 *   and listed by `undecodable`.
 *
 * @module
 */
import * as Data from "effect/Data"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Random from "effect/Random"
import * as Result from "effect/Result"
import type * as Scope from "effect/Scope"
import * as Semaphore from "effect/Semaphore"
import * as Stream from "effect/Stream"
import type { KubeClientShape } from "../kube/client.ts"
import type { KubeError } from "../kube/errors.ts"
import { type KubeObject, type ResourceRef, resourcePath } from "../kube/resource.ts"
import { watchEventError } from "../kube/watch.ts"
import { backoffDelay, type ReconnectBackoff, type ReflectorTiming, reflectorTiming } from "./options.ts"
import { type Outcome, type Phase, step } from "./step.ts"
import { type IndexFunc, type ReadonlyStore, Store, storeKey } from "./store.ts"

/** A change, as handlers see it. */
export type ReflectorEvent<T> =
  | { readonly _tag: "Added"; readonly object: T }
  | { readonly _tag: "Updated"; readonly old: T; readonly object: T }
  | { readonly _tag: "Deleted"; readonly object: T }

/** Reacts to a change; must not fail (defects are logged and ignored). */
export type EventHandler<T> = (event: ReflectorEvent<T>) => Effect.Effect<void>

/** What to reflect and how. */
export interface ReflectorOptions<T extends KubeObject> extends Partial<Omit<ReflectorTiming, "backoff">> {
  readonly resource: ResourceRef
  /** Only this namespace (all when absent). */
  readonly namespace?: string | undefined
  readonly labelSelector?: string | undefined
  readonly fieldSelector?: string | undefined
  /** Extra indexes (the built-in ones are namespace, owner, label). */
  readonly indexers?: Readonly<Record<string, IndexFunc<T>>> | undefined
  /** Decodes each object (e.g. with a Schema); `Result.fail(message)` keeps it out of the store. */
  readonly decode?: ((object: KubeObject) => Result.Result<T, string>) | undefined
  /** Handlers registered from the start. */
  readonly handlers?: ReadonlyArray<EventHandler<T>> | undefined
  /** For logs. Default: the resource's plural. */
  readonly name?: string | undefined
  readonly backoff?: Partial<ReconnectBackoff> | undefined
  /**
   * Called when a list or a watch fails, before the reflector logs and backs off. `"retry"` (or
   * no hook) keeps the default behaviour: log, back off, try again. `"stop"` ends the reflector's
   * loop at once without logging (the hook's owner reports it): its store stays as it was and
   * `status.stopped` becomes true. The scoped cache uses it to stop an informer on 403 Forbidden.
   */
  readonly onError?:
    | ((failure: {
        readonly verb: "list" | "watch"
        readonly error: KubeError
      }) => Effect.Effect<"retry" | "stop">)
    | undefined
}

/** Where a reflector is, for health checks and tests. */
export interface ReflectorStatus {
  readonly phase: "Listing" | "Watching" | "Waiting"
  /** The last resourceVersion seen (list, event or bookmark). */
  readonly resourceVersion: string
  readonly synced: boolean
  /** Lists and watches started so far. */
  readonly lists: number
  readonly watches: number
  /** The last failure, cleared by the next successful list or event. */
  readonly lastError: KubeError | undefined
  /** True once `onError` answered `"stop"`: the loop has ended (absent before). */
  readonly stopped?: boolean | undefined
}

/** A running reflector. */
export interface Reflector<T extends KubeObject> {
  readonly store: ReadonlyStore<T>
  /** Whether the first list has been stored and handed to handlers. */
  readonly hasSynced: Effect.Effect<boolean>
  /** Waits for `hasSynced` (add your own timeout). */
  readonly waitForSync: Effect.Effect<void>
  /** Adds a handler until the scope closes; it first receives the store's objects as Added. */
  readonly subscribe: (handler: EventHandler<T>) => Effect.Effect<void, never, Scope.Scope>
  readonly status: Effect.Effect<ReflectorStatus>
  /** Keys of objects that did not decode, with the reason. */
  readonly undecodable: Effect.Effect<ReadonlyMap<string, string>>
}

/** The watch delivered nothing for `inactivityTimeout`. */
class WatchSilent extends Data.TaggedError("WatchSilent") {}

const millis = (d: Duration.Input) => Duration.toMillis(Duration.fromInputUnsafe(d))

/** Starts a reflector that runs until the scope closes. */
export const make = <T extends KubeObject = KubeObject>(
  client: KubeClientShape,
  options: ReflectorOptions<T>,
): Effect.Effect<Reflector<T>, never, Scope.Scope> =>
  Effect.gen(function* () {
    const timing = reflectorTiming(options)
    const { resource } = options
    const name = options.name ?? resource.resource
    const decode = options.decode ?? ((o: KubeObject) => Result.succeed(o as T))
    const store = new Store<T>(options.indexers)
    const handlers = new Set<EventHandler<T>>(options.handlers ?? [])
    const undecodable = new Map<string, string>()
    const mutex = yield* Semaphore.make(1)
    const synced = yield* Deferred.make<void>()
    let status: ReflectorStatus = {
      // Stryker disable next-line StringLiteral
      phase: "Listing",
      resourceVersion: "",
      synced: false,
      lists: 0,
      watches: 0,
      lastError: undefined,
    }
    const setStatus = (patch: Partial<ReflectorStatus>) => {
      status = { ...status, ...patch }
    }

    const dispatch = (events: ReadonlyArray<ReflectorEvent<T>>) =>
      Effect.forEach(
        events,
        (event) =>
          Effect.forEach(
            [...handlers],
            (h) =>
              Effect.catchDefect(h(event), (defect) =>
                Effect.logError("reflector handler died").pipe(
                  Effect.annotateLogs({ defect: String(defect) }),
                ),
              ),
            // Stryker disable next-line ObjectLiteral,BooleanLiteral
            { discard: true },
          ),
        // Stryker disable next-line ObjectLiteral,BooleanLiteral
        { discard: true },
      )

    /** Decodes; an undecodable object counts as absent. */
    const decoded = (object: KubeObject): T | undefined => {
      const key = storeKey(object)
      const r = decode(object)
      if (Result.isSuccess(r)) {
        undecodable.delete(key)
        return r.success
      }
      undecodable.set(key, r.failure)
      return undefined
    }

    const applyList = (items: ReadonlyArray<KubeObject>) =>
      mutex.withPermits(1)(
        Effect.suspend(() => {
          const good = items.flatMap((o) => decoded(o) ?? [])
          const changes = store.replace(good)
          const events: Array<ReflectorEvent<T>> = [
            ...changes.deleted.map((object) => ({ _tag: "Deleted" as const, object })),
            ...changes.added.map((object) => ({ _tag: "Added" as const, object })),
            ...changes.updated.map(({ old, object }) => ({ _tag: "Updated" as const, old, object })),
          ]
          return dispatch(events)
        }),
      )

    const applyEvent = (type: "ADDED" | "MODIFIED" | "DELETED", object: KubeObject) =>
      mutex.withPermits(1)(
        Effect.suspend(() => {
          const key = storeKey(object)
          if (type === "DELETED") {
            undecodable.delete(key)
            const old = store.remove(key)
            return old === undefined ? Effect.void : dispatch([{ _tag: "Deleted", object: old }])
          }
          const value = decoded(object)
          if (value === undefined) {
            const old = store.remove(key)
            return Effect.andThen(
              Effect.logWarning("reflector: object does not decode").pipe(
                Effect.annotateLogs({ key, reason: undecodable.get(key) }),
              ),
              old === undefined ? Effect.void : dispatch([{ _tag: "Deleted", object: old }]),
            )
          }
          const old = store.upsert(value)
          if (old === undefined) return dispatch([{ _tag: "Added", object: value }])
          if (old.metadata.resourceVersion === value.metadata.resourceVersion) return Effect.void
          return dispatch([{ _tag: "Updated", old, object: value }])
        }),
      )

    const watchPath = resourcePath(resource, { namespace: options.namespace })
    const selectors = {
      namespace: options.namespace,
      labelSelector: options.labelSelector,
      fieldSelector: options.fieldSelector,
    }

    const list: Effect.Effect<Outcome> = Effect.gen(function* () {
      setStatus({ phase: "Listing", lists: status.lists + 1 })
      const result = yield* Effect.result(
        client.listAll(resource, { ...selectors, pageSize: timing.pageSize }),
      )
      if (Result.isFailure(result)) return { _tag: "ListFailed", error: result.failure } as const
      yield* applyList(result.success.items)
      setStatus({ resourceVersion: result.success.resourceVersion, synced: true, lastError: undefined })
      yield* Deferred.succeed(synced, undefined)
      return { _tag: "Listed", resourceVersion: result.success.resourceVersion } as const
    })

    const watch = (from: string): Effect.Effect<Outcome> =>
      Effect.gen(function* () {
        let last = from
        let progressed = false
        const timeoutSeconds = Math.floor((millis(timing.watchTimeout) / 1000) * (1 + (yield* Random.next)))
        setStatus({ phase: "Watching", watches: status.watches + 1 })
        const events = client
          .watch(resource, {
            ...selectors,
            resourceVersion: from === "" ? undefined : from,
            allowWatchBookmarks: true,
            timeoutSeconds,
          })
          .pipe(
            Stream.timeoutOrElse({
              duration: timing.inactivityTimeout,
              orElse: () => Stream.fail(new WatchSilent()),
            }),
          )
        const run = Stream.runForEach(events, (event) => {
          if (event.type === "ERROR")
            return Effect.fail(watchEventError(event.object, { verb: "watch", path: watchPath }))
          progressed = true
          setStatus({ lastError: undefined })
          const rv = event.object.metadata.resourceVersion
          if (rv !== undefined && rv !== "") last = rv
          setStatus({ resourceVersion: last })
          return event.type === "BOOKMARK" ? Effect.void : applyEvent(event.type, event.object)
        })
        const result = yield* Effect.result(run)
        if (Result.isSuccess(result)) return { _tag: "Ended", resourceVersion: last, progressed } as const
        const error = result.failure
        if (error._tag === "WatchSilent") return { _tag: "Silent", resourceVersion: last } as const
        if (error._tag === "Gone") return { _tag: "Expired", progressed } as const
        return { _tag: "Failed", error, resourceVersion: last, progressed } as const
      })

    const loop = Effect.gen(function* () {
      let phase: Phase = { _tag: "List", attempt: 0 }
      while (true) {
        const outcome = phase._tag === "List" ? yield* list : yield* watch(phase.resourceVersion)
        const next = step(phase, outcome)
        if (outcome._tag === "ListFailed" || outcome._tag === "Failed") {
          setStatus({ lastError: outcome.error })
          const verb = outcome._tag === "ListFailed" ? "list" : "watch"
          if (
            options.onError !== undefined &&
            (yield* options.onError({ verb, error: outcome.error })) === "stop"
          ) {
            setStatus({ stopped: true })
            return
          }
          yield* Effect.logWarning(`reflector: ${outcome._tag === "ListFailed" ? "list" : "watch"} failed`, {
            error: outcome.error._tag,
            message: outcome.error.message,
          })
        } else {
          yield* Effect.logDebug(`reflector: ${outcome._tag}`, { next: next.next._tag })
        }
        // Stryker disable next-line ConditionalExpression
        if (next.backoffAttempt !== undefined) {
          setStatus({ phase: "Waiting" })
          yield* Effect.sleep(backoffDelay(timing.backoff, next.backoffAttempt, yield* Random.next))
        }
        phase = next.next
      }
    })
    yield* Effect.forkScoped(Effect.annotateLogs(loop, { reflector: name }))

    return {
      store,
      hasSynced: Deferred.isDone(synced),
      waitForSync: Deferred.await(synced),
      subscribe: (handler) =>
        Effect.acquireRelease(
          mutex.withPermits(1)(
            Effect.andThen(
              Effect.sync(() => handlers.add(handler)),
              // Stryker disable next-line ObjectLiteral,BooleanLiteral
              Effect.forEach(store.list(), (object) => handler({ _tag: "Added", object }), { discard: true }),
            ),
          ),
          () => Effect.sync(() => handlers.delete(handler)),
        ),
      status: Effect.sync(() => status),
      undecodable: Effect.sync(() => new Map(undecodable)),
    }
  })
