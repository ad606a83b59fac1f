/**
 * The state of the in-memory API server: stored collections, the change history that watches
 * replay, open watchers, the resourceVersion counter, and which event a change means for a
 * watcher's selection. Every method is synchronous, so each write is atomic.
 *
 * @module
 */
import * as Cause from "effect/Cause"
import * as Queue from "effect/Queue"
import { compareText } from "../../core/krtt/compare.ts"
import type { KubeError } from "../kube/errors.ts"
import {
  apiVersionOf,
  type KubeObject,
  keyOf,
  type ObjectKey,
  type ObjectMeta,
  type ResourceRef,
} from "../kube/resource.ts"
import { matchesFieldSelector, matchesLabelSelector } from "../kube/selector.ts"
import type { WatchEvent } from "../kube/watch.ts"

/** One write, as watches see it. */
export interface Change {
  /** The resourceVersion the write produced. */
  readonly rv: number
  /** `group/resource` of the changed object. */
  readonly key: string
  readonly type: "ADDED" | "MODIFIED" | "DELETED"
  /** The object after the write (for DELETED: as it was, with the deletion's resourceVersion). */
  readonly object: KubeObject
  /** The object before the write, for MODIFIED and DELETED. */
  readonly old: KubeObject | undefined
}

/** An open watch. */
export interface Watcher {
  readonly ref: ResourceRef
  /** `group/resource`. */
  readonly key: string
  readonly path: string
  readonly namespace: string | undefined
  readonly labelSelector: string | undefined
  readonly fieldSelector: string | undefined
  readonly bookmarks: boolean
  readonly queue: Queue.Queue<WatchEvent, KubeError | Cause.Done>
  /** The name of the client that opened it (`FakeApiServer.client(name)`), if it has one. */
  readonly client?: string | undefined
}

/** `group/resource`: versions of a resource share storage, as in the API server. */
export const groupResource = (ref: Pick<ResourceRef, "group" | "resource">): string =>
  `${ref.group}/${ref.resource}`

/** `namespace/name` of an object. */
export const objectKey = (o: KubeObject): string =>
  keyOf({ namespace: o.metadata.namespace, name: o.metadata.name ?? "" })

/** Orders objects by `namespace/name`, as lists are. */
export const byKey = (a: KubeObject, b: KubeObject): number => compareText(objectKey(a), objectKey(b))

/** JSON with object keys sorted: equal for equal values whatever the key order. */
export const canonicalJson = (u: unknown): string =>
  JSON.stringify(u, (_key, value: unknown) =>
    typeof value === "object" && value !== null && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => compareText(a, b)))
      : value,
  )

const selects = (w: Watcher, o: KubeObject | undefined): boolean =>
  o !== undefined &&
  (w.namespace === undefined || w.namespace === "" || o.metadata.namespace === w.namespace) &&
  matchesLabelSelector(w.labelSelector, o) &&
  matchesFieldSelector(w.fieldSelector, o)

/**
 * The event type a change means for a watcher, or `undefined` when the watcher does not see it.
 * A modification that moves an object into the selection is ADDED, out of it DELETED (as
 * kube-apiserver does for label-selected watches).
 */
export const watchEventFor = (w: Watcher, change: Change): WatchEvent["type"] | undefined => {
  if (change.key !== w.key) return undefined
  const now = selects(w, change.object)
  switch (change.type) {
    case "ADDED":
      return now ? "ADDED" : undefined
    case "DELETED":
      return selects(w, change.old) || now ? "DELETED" : undefined
    case "MODIFIED": {
      const before = selects(w, change.old)
      if (before && now) return "MODIFIED"
      if (now) return "ADDED"
      return before ? "DELETED" : undefined
    }
  }
}

/** A list's continue token: the list's resourceVersion and the last key returned. */
export interface ContinueToken {
  readonly rv: number
  readonly after: string
}

export const encodeContinue = (token: ContinueToken): string =>
  Buffer.from(JSON.stringify(token)).toString("base64url")

export const decodeContinue = (s: string): ContinueToken | undefined => {
  try {
    const t = JSON.parse(Buffer.from(s, "base64url").toString("utf8")) as { rv?: unknown; after?: unknown }
    return typeof t.rv === "number" && typeof t.after === "string" ? { rv: t.rv, after: t.after } : undefined
  } catch {
    return undefined
  }
}

/** The server's data. Objects are stored as written and copied on the way out. */
export class FakeStore {
  /**
   * The last resourceVersion handed out. An empty store is at 1, as a new etcd is: a list is never
   * at resourceVersion "0", which a watch reads as "any point" and would start after changes it
   * must replay.
   */
  rv = 1
  /** History at or below this resourceVersion is gone (410 for watches and continue tokens). */
  compacted = 0
  /** Counter for uids and generated names. */
  serial = 0
  readonly watchers = new Set<Watcher>()
  /** Called synchronously after every committed write (the chaos harness checks invariants there). */
  readonly listeners = new Set<(change: Change) => void>()
  private history: Array<Change> = []
  private readonly collections = new Map<string, Map<string, KubeObject>>()
  private readonly registry = new Map<string, { readonly ref: ResourceRef; readonly status: boolean }>()

  /** Makes a resource known; `status: false`: no status subresource (default: true, but configmaps). */
  register(ref: ResourceRef, options: { readonly status?: boolean | undefined } = {}): void {
    const key = groupResource(ref)
    const status = options.status ?? this.registry.get(key)?.status ?? ref.resource !== "configmaps"
    this.registry.set(key, { ref, status })
  }

  resources(): ReadonlyArray<ResourceRef> {
    return [...this.registry.values()].map((r) => r.ref)
  }

  /** The registered resource of a `group/resource` key, if any. */
  refOf(key: string): ResourceRef | undefined {
    return this.registry.get(key)?.ref
  }

  /** The registered resource with this group and plural, if any. */
  lookup(group: string, resource: string): ResourceRef | undefined {
    return this.registry.get(`${group}/${resource}`)?.ref
  }

  hasStatus(ref: ResourceRef): boolean {
    return this.registry.get(groupResource(ref))?.status ?? true
  }

  /** The objects of a resource (registering it on first use). */
  collection(ref: ResourceRef): Map<string, KubeObject> {
    const key = groupResource(ref)
    if (!this.registry.has(key)) this.register(ref)
    let c = this.collections.get(key)
    if (c === undefined) {
      c = new Map()
      this.collections.set(key, c)
    }
    return c
  }

  /** How many objects are stored, over every resource. */
  size(): number {
    let n = 0
    for (const c of this.collections.values()) n += c.size
    return n
  }

  find(ref: ResourceRef, key: ObjectKey): KubeObject | undefined {
    return this.collection(ref).get(
      keyOf({ namespace: ref.namespaced ? key.namespace : undefined, name: key.name }),
    )
  }

  /** A copy of a stored object as the API returns it (apiVersion and kind of `ref`). */
  out<T extends KubeObject>(ref: ResourceRef, o: KubeObject): T {
    return structuredClone({ ...o, apiVersion: apiVersionOf(ref), kind: ref.kind }) as T
  }

  /** The next resourceVersion. */
  next(): string {
    this.rv += 1
    return String(this.rv)
  }

  /**
   * Commits `object` with the next resourceVersion (for DELETED: the deletion's) and returns what
   * was stored.
   */
  put(ref: ResourceRef, type: Change["type"], object: KubeObject, old: KubeObject | undefined): KubeObject {
    const stored = { ...object, metadata: { ...object.metadata, resourceVersion: this.next() } }
    this.commit(ref, type, stored, old)
    return stored
  }

  /** Changes after `rv` (oldest first). */
  changesAfter(rv: number): ReadonlyArray<Change> {
    return this.history.filter((c) => c.rv > rv)
  }

  /** Stores `obj` (or removes it for DELETED), records the change and tells the watchers. */
  commit(ref: ResourceRef, type: Change["type"], obj: KubeObject, old: KubeObject | undefined): void {
    const c = this.collection(ref)
    if (type === "DELETED") c.delete(objectKey(obj))
    else c.set(objectKey(obj), obj)
    const change: Change = { rv: this.rv, key: groupResource(ref), type, object: obj, old }
    this.history.push(change)
    for (const w of this.watchers) {
      const event = watchEventFor(w, change)
      if (event !== undefined) Queue.offerUnsafe(w.queue, { type: event, object: this.out(ref, obj) })
    }
    for (const listener of this.listeners) listener(change)
  }

  /**
   * The objects of `ref` as they were at resourceVersion `rv` (current objects with every later
   * change undone), or `undefined` when the history needed was compacted.
   */
  objectsAt(ref: ResourceRef, rv: number): Array<KubeObject> | undefined {
    if (rv < this.compacted || rv > this.rv) return undefined
    if (rv === this.rv) return [...this.collection(ref).values()].sort(byKey)
    const view = new Map(this.collection(ref))
    const key = groupResource(ref)
    for (let i = this.history.length - 1; i >= 0; i--) {
      const change = this.history[i] as Change
      if (change.rv <= rv) break
      if (change.key !== key) continue
      const k = objectKey(change.object)
      if (change.old === undefined) view.delete(k)
      else view.set(k, change.old)
    }
    return [...view.values()].sort(byKey)
  }

  /** Forgets history up to `rv`. */
  compact(rv: number): void {
    this.compacted = Math.max(this.compacted, rv)
    this.history = this.history.filter((c) => c.rv > this.compacted)
  }

  /** A BOOKMARK with the current resourceVersion. */
  bookmarkEvent(ref: ResourceRef, annotations?: Record<string, string>): WatchEvent {
    const metadata: ObjectMeta = { resourceVersion: String(this.rv), ...(annotations ? { annotations } : {}) }
    return { type: "BOOKMARK", object: { apiVersion: apiVersionOf(ref), kind: ref.kind, metadata } }
  }

  /** Ends every open watch: cleanly, or failing with `error`. */
  endWatches(error?: (w: Watcher) => KubeError): void {
    for (const w of [...this.watchers]) {
      this.watchers.delete(w)
      if (error) Queue.failCauseUnsafe(w.queue, Cause.fail(error(w)))
      else Queue.endUnsafe(w.queue)
    }
  }
}
