/**
 * Late indexes: an index added to an informer after it started, kept next to the reflector's
 * store by a handler. The one implementation of both caches: the informer cache
 * (`informerCache.ts`) and the scoped cache's informers (`shell/scopedcache/informer.ts`).
 *
 * # Expected flow
 * A cache wraps its reflector's store in an `IndexedStore` and hands that to controllers. For
 * `indexField` on a running informer it calls `addIndex(name, extract, subscribe)`: the handler
 * is subscribed first (the reflector replays its store as `Added` under its lock), which fills
 * the index, and then the index answers `byIndex` and `indexValues` for `name`.
 *
 * # Guarantees
 * - An object is under each value its index function gives it, once; a deleted or changed object
 *   leaves the values it had.
 * - `byIndex` of a late index answers the store's current objects: a key the store no longer has
 *   is left out.
 * - Indexes the reflector was started with are answered by the reflector's store, unchanged.
 *
 * # Caveats
 * The handler runs right after the store changes: a read between the two can see the store one
 * event ahead of the late index.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type { KubeObject, ObjectKey } from "../kube/resource.ts"
import type { EventHandler } from "../reflector/reflector.ts"
import { type IndexFunc, type ReadonlyStore, storeKey } from "../reflector/store.ts"

/** One index kept by a handler: index value → store keys, and store key → its values. */
export class LateIndex<T extends KubeObject> {
  private readonly byValue = new Map<string, Set<string>>()
  private readonly valuesOf = new Map<string, ReadonlyArray<string>>()
  private readonly extract: IndexFunc<T>
  constructor(extract: IndexFunc<T>) {
    this.extract = extract
  }

  /** Puts `object` under its values (replacing the values it had). */
  set(object: T): void {
    const key = storeKey(object)
    this.remove(key)
    const values = this.extract(object)
    this.valuesOf.set(key, values)
    for (const v of values) {
      const keys = this.byValue.get(v) ?? new Set<string>()
      keys.add(key)
      this.byValue.set(v, keys)
    }
  }

  /** Takes the object under `key` out of every value it had. */
  remove(key: string): void {
    for (const v of this.valuesOf.get(key) ?? []) {
      const keys = this.byValue.get(v)
      keys?.delete(key)
      if (keys?.size === 0) this.byValue.delete(v)
    }
    this.valuesOf.delete(key)
  }

  /** The store keys under `value`. */
  keys(value: string): ReadonlyArray<string> {
    return [...(this.byValue.get(value) ?? [])]
  }

  /** Every value that has at least one object. */
  values(): ReadonlyArray<string> {
    return [...this.byValue.keys()]
  }
}

/** A reflector's store seen through its late indexes. */
export class IndexedStore<T extends KubeObject> implements ReadonlyStore<T> {
  private readonly late = new Map<string, LateIndex<T>>()
  private readonly inner: ReadonlyStore<T>
  constructor(inner: ReadonlyStore<T>) {
    this.inner = inner
  }

  /** Whether a late index of this name was added. */
  readonly hasLateIndex = (name: string): boolean => this.late.has(name)

  /**
   * Adds a late index: subscribes its handler with `subscribe` (until the scope closes), which
   * fills it from the store, then answers reads of `name` from it.
   */
  readonly addIndex = (
    name: string,
    extract: IndexFunc<T>,
    subscribe: (handler: EventHandler<T>) => Effect.Effect<void, never, Scope.Scope>,
  ): Effect.Effect<void, never, Scope.Scope> => {
    const late = this.late
    return Effect.gen(function* () {
      const index = new LateIndex(extract)
      // subscribe replays the store as Added under the reflector's lock: nothing is missed.
      yield* subscribe((event) =>
        Effect.sync(() =>
          event._tag === "Deleted" ? index.remove(storeKey(event.object)) : index.set(event.object),
        ),
      )
      late.set(name, index)
    })
  }

  readonly get = (key: ObjectKey | string): T | undefined => this.inner.get(key)
  readonly list = (): ReadonlyArray<T> => this.inner.list()
  readonly keys = (): ReadonlyArray<string> => this.inner.keys()
  readonly size = (): number => this.inner.size()
  readonly byIndex = (index: string, value: string): ReadonlyArray<T> => {
    const late = this.late.get(index)
    if (late === undefined) return this.inner.byIndex(index, value)
    return late.keys(value).flatMap((k) => this.inner.get(k) ?? [])
  }
  readonly indexValues = (index: string): ReadonlyArray<string> =>
    this.late.get(index)?.values() ?? this.inner.indexValues(index)
  readonly byNamespace = (namespace: string): ReadonlyArray<T> => this.inner.byNamespace(namespace)
  readonly byOwner = (uid: string): ReadonlyArray<T> => this.inner.byOwner(uid)
  readonly byLabel = (key: string, value: string): ReadonlyArray<T> => this.inner.byLabel(key, value)
}
