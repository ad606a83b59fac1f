/**
 * `Reflector`: the project's own list-then-watch loop, keeping an indexed `Store` of one
 * resource in step with the API server and telling handlers what changed.
 *
 * # Expected flow
 * List every page, replace the store, mark synced; watch from the list's resourceVersion with
 * bookmarks, applying events and tracking the last resourceVersion (bookmarks advance it); when
 * the watch ends, watch again from there; on 410 Gone, relist; on failures, back off with jitter
 * (800 ms … 30 s) and watch again from the last resourceVersion. The decisions are `step.ts`,
 * the loop that performs them `loop.ts`, the store and handler side `mirror.ts`.
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
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import type * as Scope from "effect/Scope"
import * as Semaphore from "effect/Semaphore"
import type { KubeClientShape } from "../kube/client.ts"
import type { KubeError } from "../kube/errors.ts"
import type { KubeObject, ResourceRef } from "../kube/resource.ts"
import { type ReflectorState, runLoop } from "./loop.ts"
import { subscribe } from "./mirror.ts"
import { type ObservedReflector, ReflectorObserver } from "./observer.ts"
import { type ReconnectBackoff, type ReflectorTiming, reflectorTiming } from "./options.ts"
import { type IndexFunc, type ReadonlyStore, Store } from "./store.ts"

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

/** Starts a reflector that runs until the scope closes. */
export const make = <T extends KubeObject = KubeObject>(
  client: KubeClientShape,
  options: ReflectorOptions<T>,
): Effect.Effect<Reflector<T>, never, Scope.Scope> =>
  Effect.gen(function* () {
    const s: ReflectorState<T> = {
      client,
      options,
      timing: reflectorTiming(options),
      decode: options.decode ?? ((o: KubeObject) => Result.succeed(o as T)),
      store: new Store<T>(options.indexers),
      handlers: new Set<EventHandler<T>>(options.handlers ?? []),
      undecodable: new Map<string, string>(),
      mutex: yield* Semaphore.make(1),
      synced: yield* Deferred.make<void>(),
      status: {
        // Stryker disable next-line StringLiteral
        phase: "Listing",
        resourceVersion: "",
        synced: false,
        lists: 0,
        watches: 0,
        lastError: undefined,
      },
    }
    const name = options.name ?? options.resource.resource
    yield* witness(s, name)
    yield* Effect.forkScoped(Effect.annotateLogs(runLoop(s), { reflector: name }))
    return {
      store: s.store,
      hasSynced: Deferred.isDone(s.synced),
      waitForSync: Deferred.await(s.synced),
      subscribe: (handler) => subscribe(s, handler),
      status: Effect.sync(() => s.status),
      undecodable: Effect.sync(() => new Map(s.undecodable)),
    }
  })

/** Tells the process's `ReflectorObserver`, if any, that this reflector runs until its scope closes. */
const witness = <T extends KubeObject>(s: ReflectorState<T>, name: string) =>
  Effect.gen(function* () {
    const observer = yield* ReflectorObserver
    if (observer === undefined) return
    const view: ObservedReflector = {
      name,
      options: s.options as ReflectorOptions<KubeObject>,
      client: s.client,
      store: s.store,
      status: () => s.status,
      undecodable: () => new Set(s.undecodable.keys()),
      decodes: (object) => Result.isSuccess(s.decode(object)),
    }
    observer.started(view)
    yield* Effect.addFinalizer(() => Effect.sync(() => observer.stopped(view)))
  })
