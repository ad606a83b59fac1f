/**
 * The data of the in-memory API server: stored collections, the change history that watches
 * replay, open watchers, and which event a change means for a watcher's selection.
 *
 * @module
 */
import type { Cause, Queue } from "effect"
import type { KubeError } from "./errors.ts"
import type { KubeObject, ResourceRef } from "./resource.ts"
import { matchesFieldSelector, matchesLabelSelector } from "./selector.ts"
import type { WatchEvent } from "./watch.ts"

/** The objects of one resource, by `namespace/name`. */
export type Collection = Map<string, KubeObject>

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
}

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
      if (before) return "DELETED"
      return undefined
    }
  }
}

/** JSON with object keys sorted: equal for equal values whatever the key order. */
export const canonicalJson = (u: unknown): string =>
  JSON.stringify(u, (_key, value: unknown) =>
    typeof value === "object" && value !== null && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : value,
  )
