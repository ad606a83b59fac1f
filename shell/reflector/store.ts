/**
 * `Store`: the reflector's in-memory copy of a resource's objects, keyed by `namespace/name`,
 * with indexes: by namespace, by owner uid, by label `key=value`, and any user-defined index
 * function (client-go's `Indexer`).
 *
 * Reads are synchronous snapshots (arrays are fresh, objects are shared and must not be
 * mutated). Only the reflector writes.
 *
 * @module
 */
import { type KubeObject, keyOf, type ObjectKey } from "../kube/resource.ts"

/** Values an object is indexed under for one index (e.g. its owner uids). */
export type IndexFunc<T extends KubeObject> = (object: T) => ReadonlyArray<string>

/** The names of the built-in indexes. */
export const IndexNames = {
  /** `metadata.namespace` (`""` for cluster-scoped objects). */
  namespace: "namespace",
  /** The uid of each owner reference. */
  owner: "owner",
  /** `key=value` of each label. */
  label: "label",
} as const

/** The built-in index functions. */
export const builtinIndexes: Record<string, IndexFunc<KubeObject>> = {
  [IndexNames.namespace]: (o) => [o.metadata.namespace ?? ""],
  [IndexNames.owner]: (o) => (o.metadata.ownerReferences ?? []).map((r) => r.uid),
  [IndexNames.label]: (o) => Object.entries(o.metadata.labels ?? {}).map(([k, v]) => `${k}=${v}`),
}

/** The store key of an object: `namespace/name`, or `name` when cluster-scoped. */
export const storeKey = (o: KubeObject): string =>
  keyOf({ namespace: o.metadata.namespace, name: o.metadata.name ?? "" })

/** The read side of a store, as handed to controllers. */
export interface ReadonlyStore<T extends KubeObject> {
  /** The object with this key (`ObjectKey` or `namespace/name`). */
  readonly get: (key: ObjectKey | string) => T | undefined
  /** Every object, in no particular order. */
  readonly list: () => ReadonlyArray<T>
  readonly keys: () => ReadonlyArray<string>
  readonly size: () => number
  /** Objects indexed under `value` by index `index`; empty for an unknown index. */
  readonly byIndex: (index: string, value: string) => ReadonlyArray<T>
  /** The values present in an index. */
  readonly indexValues: (index: string) => ReadonlyArray<string>
  readonly byNamespace: (namespace: string) => ReadonlyArray<T>
  readonly byOwner: (uid: string) => ReadonlyArray<T>
  readonly byLabel: (key: string, value: string) => ReadonlyArray<T>
}

/** What `replace` changed. */
export interface Replaced<T> {
  readonly added: ReadonlyArray<T>
  readonly updated: ReadonlyArray<{ readonly old: T; readonly object: T }>
  readonly deleted: ReadonlyArray<T>
}

/** An indexed store. */
export class Store<T extends KubeObject> implements ReadonlyStore<T> {
  private readonly items = new Map<string, T>()
  /** Each index's function beside its values (value → keys), so that no lookup can miss. */
  private readonly indexers: ReadonlyArray<readonly [IndexFunc<T>, Map<string, Set<string>>]>
  /** index name → value → keys. */
  private readonly indexes = new Map<string, Map<string, Set<string>>>()

  /** A store with the built-in indexes plus `indexers` (which may override them by name). */
  constructor(indexers: Readonly<Record<string, IndexFunc<T>>> = {}) {
    const all = Object.entries({ ...(builtinIndexes as Record<string, IndexFunc<T>>), ...indexers })
    this.indexers = all.map(([name, fn]) => {
      const values = new Map<string, Set<string>>()
      this.indexes.set(name, values)
      return [fn, values] as const
    })
  }

  readonly get = (key: ObjectKey | string): T | undefined =>
    this.items.get(typeof key === "string" ? key : keyOf(key))

  readonly list = (): ReadonlyArray<T> => [...this.items.values()]

  readonly keys = (): ReadonlyArray<string> => [...this.items.keys()]

  readonly size = (): number => this.items.size

  readonly byIndex = (index: string, value: string): ReadonlyArray<T> => {
    const keys = this.indexes.get(index)?.get(value)
    // Stryker disable next-line ArrayDeclaration
    return keys === undefined ? [] : [...keys].flatMap((k) => this.items.get(k) ?? [])
  }

  readonly indexValues = (index: string): ReadonlyArray<string> => [
    ...(this.indexes.get(index)?.keys() ?? []),
  ]

  readonly byNamespace = (namespace: string): ReadonlyArray<T> =>
    this.byIndex(IndexNames.namespace, namespace)

  readonly byOwner = (uid: string): ReadonlyArray<T> => this.byIndex(IndexNames.owner, uid)

  readonly byLabel = (key: string, value: string): ReadonlyArray<T> =>
    this.byIndex(IndexNames.label, `${key}=${value}`)

  /** Inserts or replaces an object; returns the previous one. */
  upsert(object: T): T | undefined {
    const key = storeKey(object)
    const old = this.items.get(key)
    if (old !== undefined) this.unindex(key, old)
    this.items.set(key, object)
    this.index(key, object)
    return old
  }

  /** Removes an object by key; returns it. */
  remove(key: string): T | undefined {
    const old = this.items.get(key)
    if (old === undefined) return undefined
    this.unindex(key, old)
    this.items.delete(key)
    return old
  }

  /**
   * Makes the store hold exactly `objects` (a relist) and says what changed. An object whose
   * resourceVersion did not change is not reported as updated.
   */
  replace(objects: ReadonlyArray<T>): Replaced<T> {
    const added: Array<T> = []
    const updated: Array<{ readonly old: T; readonly object: T }> = []
    const seen = new Set<string>()
    for (const object of objects) {
      seen.add(storeKey(object))
      const old = this.upsert(object)
      if (old === undefined) added.push(object)
      else if (old.metadata.resourceVersion !== object.metadata.resourceVersion) updated.push({ old, object })
    }
    const deleted: Array<T> = []
    for (const [key, old] of [...this.items]) {
      if (seen.has(key)) continue
      this.remove(key)
      deleted.push(old)
    }
    return { added, updated, deleted }
  }

  private index(key: string, object: T): void {
    for (const [fn, index] of this.indexers) {
      for (const value of fn(object)) {
        let keys = index.get(value)
        if (keys === undefined) {
          keys = new Set()
          index.set(value, keys)
        }
        keys.add(key)
      }
    }
  }

  private unindex(key: string, object: T): void {
    for (const [fn, index] of this.indexers) {
      for (const value of fn(object)) {
        const keys = index.get(value)
        // Stryker disable next-line OptionalChaining
        keys?.delete(key)
        // Stryker disable next-line OptionalChaining
        if (keys?.size === 0) index.delete(value)
      }
    }
  }
}
