/**
 * The reflector's store side: applies a list or a watch event to the `Store` and tells the
 * handlers what changed, under one mutex so that `subscribe`'s replay and new events never
 * interleave.
 *
 * # Guarantees
 * - Handlers see every change once, in order, after the store has it; a handler's defect is
 *   logged and the others still run.
 * - An object that does not decode counts as absent: it is kept out of the store (Deleted if it
 *   was in) and listed in `undecodable` until it decodes or is deleted.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import type * as Scope from "effect/Scope"
import type * as Semaphore from "effect/Semaphore"
import type { KubeObject } from "../kube/resource.ts"
import type { EventHandler, ReflectorEvent } from "./reflector.ts"
import { type Store, storeKey } from "./store.ts"

/** What the store side holds; `make` (reflector.ts) builds it. */
export interface Mirror<T extends KubeObject> {
  readonly store: Store<T>
  readonly handlers: Set<EventHandler<T>>
  /** Keys of objects that did not decode, with the reason. */
  readonly undecodable: Map<string, string>
  readonly mutex: Semaphore.Semaphore
  readonly decode: (object: KubeObject) => Result.Result<T, string>
}

const dispatch = <T extends KubeObject>(m: Mirror<T>, events: ReadonlyArray<ReflectorEvent<T>>) =>
  Effect.forEach(
    events,
    (event) =>
      Effect.forEach(
        [...m.handlers],
        (h) =>
          Effect.catchDefect(h(event), (defect) =>
            Effect.logError("reflector handler died").pipe(Effect.annotateLogs({ defect: String(defect) })),
          ),
        // Stryker disable next-line ObjectLiteral,BooleanLiteral
        { discard: true },
      ),
    // Stryker disable next-line ObjectLiteral,BooleanLiteral
    { discard: true },
  )

/** Decodes; an undecodable object counts as absent. */
const decoded = <T extends KubeObject>(m: Mirror<T>, object: KubeObject): T | undefined => {
  const key = storeKey(object)
  const r = m.decode(object)
  if (Result.isSuccess(r)) {
    m.undecodable.delete(key)
    return r.success
  }
  m.undecodable.set(key, r.failure)
  return undefined
}

/** Replaces the store with a list and reports the difference (Deleted, Added, Updated). */
export const applyList = <T extends KubeObject>(m: Mirror<T>, items: ReadonlyArray<KubeObject>) =>
  m.mutex.withPermits(1)(
    Effect.suspend(() => {
      const good = items.flatMap((o) => decoded(m, o) ?? [])
      const changes = m.store.replace(good)
      const events: Array<ReflectorEvent<T>> = [
        ...changes.deleted.map((object) => ({ _tag: "Deleted" as const, object })),
        ...changes.added.map((object) => ({ _tag: "Added" as const, object })),
        ...changes.updated.map(({ old, object }) => ({ _tag: "Updated" as const, old, object })),
      ]
      return dispatch(m, events)
    }),
  )

/** Applies one watch event; an update that keeps the resourceVersion is not reported. */
export const applyEvent = <T extends KubeObject>(
  m: Mirror<T>,
  type: "ADDED" | "MODIFIED" | "DELETED",
  object: KubeObject,
) =>
  m.mutex.withPermits(1)(
    Effect.suspend(() => {
      const key = storeKey(object)
      if (type === "DELETED") {
        m.undecodable.delete(key)
        const old = m.store.remove(key)
        return old === undefined ? Effect.void : dispatch(m, [{ _tag: "Deleted", object: old }])
      }
      const value = decoded(m, object)
      if (value === undefined) {
        const old = m.store.remove(key)
        return Effect.andThen(
          Effect.logWarning("reflector: object does not decode").pipe(
            Effect.annotateLogs({ key, reason: m.undecodable.get(key) }),
          ),
          old === undefined ? Effect.void : dispatch(m, [{ _tag: "Deleted", object: old }]),
        )
      }
      const old = m.store.upsert(value)
      if (old === undefined) return dispatch(m, [{ _tag: "Added", object: value }])
      if (old.metadata.resourceVersion === value.metadata.resourceVersion) return Effect.void
      return dispatch(m, [{ _tag: "Updated", old, object: value }])
    }),
  )

/** Adds a handler until the scope closes; it first receives the store's objects as Added. */
export const subscribe = <T extends KubeObject>(
  m: Mirror<T>,
  handler: EventHandler<T>,
): Effect.Effect<void, never, Scope.Scope> =>
  Effect.acquireRelease(
    m.mutex.withPermits(1)(
      Effect.andThen(
        Effect.sync(() => m.handlers.add(handler)),
        // Stryker disable next-line ObjectLiteral,BooleanLiteral
        Effect.forEach(m.store.list(), (object) => handler({ _tag: "Added", object }), { discard: true }),
      ),
    ),
    () => Effect.sync(() => m.handlers.delete(handler)),
  )
