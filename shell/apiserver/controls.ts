/**
 * The in-memory API server's test controls, all synchronous: resources, faults, outages,
 * compaction, forced watch ends (clean, failed, expired) and bookmarks, the open watches, commit
 * listeners and stale views. A class layer of `FakeApiServer` (see `server.ts`) over `ServerCore`.
 *
 * @module
 */
import * as Queue from "effect/Queue"
import { Unreachable } from "../kube/errors.ts"
import type { KubeObject, ObjectList, ResourceRef } from "../kube/resource.ts"
import type { Fault } from "./faults.ts"
import { ServerCore } from "./serverCore.ts"
import { byKey, type Change, groupResource } from "./storage.ts"
import { expiredFrame } from "./watch.ts"

/** An open watch (`FakeApiServer.openWatches`). */
export interface OpenWatch {
  /** The name of the client that opened it, if it has one. */
  readonly client: string | undefined
  /** `group/resource`. */
  readonly resource: string
  readonly namespace: string | undefined
}

/** The test controls of `FakeApiServer`. */
export abstract class ServerControls extends ServerCore {
  /** Makes a resource known; `status: false`: no status subresource (default true, configmaps false). */
  register(ref: ResourceRef, options: { readonly status?: boolean | undefined } = {}): void {
    this.store.register(ref, options)
  }

  /** The resources known to the server (registered or used). */
  resources(): ReadonlyArray<ResourceRef> {
    return this.store.resources()
  }

  /** The known resource of a group and plural (used by the HTTP adapter). */
  lookup(group: string, resource: string): ResourceRef | undefined {
    return this.store.lookup(group, resource)
  }

  /** Makes matching calls fail or answer late (see `Fault`); the first matching fault wins. */
  inject(fault: Fault): void {
    this.faults.add(fault)
  }

  /** Removes every injected fault. */
  clearFaults(): void {
    this.faults.clear()
  }

  /** An outage: every call fails with Unreachable and open watches break off. Data survives. */
  stop(): void {
    this.up = false
    this.store.endWatches(
      (w) =>
        new Unreachable({
          verb: "watch",
          path: w.path,
          message: "connection reset by peer",
          code: "ECONNRESET",
        }),
    )
  }

  /** Ends an outage. */
  start(): void {
    this.up = true
  }

  /** A restart: open watches break off; new calls succeed. */
  restart(): void {
    this.stop()
    this.start()
  }

  /** Whether the server answers. */
  isUp(): boolean {
    return this.up
  }

  /** Forgets history up to `resourceVersion` (default: now); older watches and continue tokens get 410. */
  compact(resourceVersion: number = this.store.rv): void {
    this.store.compact(resourceVersion)
  }

  /** Sends every open watch an `ERROR` 410 frame and ends it (a watch that fell too far behind). */
  expireWatches(): void {
    for (const w of this.store.watchers) Queue.offerUnsafe(w.queue, expiredFrame("too old resource version"))
    this.store.endWatches()
  }

  /**
   * Sends every open watch an `ERROR` frame with `status` and ends it, as kube-apiserver does when
   * a watch breaks on its side (e.g. `{ code: 500, reason: "InternalError" }` when etcd fails).
   */
  failWatches(status: { readonly code: number; readonly reason: string; readonly message: string }): void {
    for (const w of this.store.watchers)
      Queue.offerUnsafe(w.queue, { type: "ERROR", object: { kind: "Status", status: "Failure", ...status } })
    this.store.endWatches()
  }

  /** Ends every open watch cleanly, as the server does when `timeoutSeconds` is over. */
  closeWatches(): void {
    this.store.endWatches()
  }

  /** Sends a BOOKMARK with the current resourceVersion to every watch that allows bookmarks. */
  bookmark(): void {
    for (const w of this.store.watchers)
      if (w.bookmarks) Queue.offerUnsafe(w.queue, this.store.bookmarkEvent(w.ref))
  }

  /** The current resourceVersion. */
  resourceVersion(): string {
    return String(this.store.rv)
  }

  /** The open watches, each with its resource, namespace and the name of the client that opened it. */
  openWatches(): ReadonlyArray<OpenWatch> {
    return [...this.store.watchers].map((w) => ({
      client: w.client,
      resource: w.key,
      namespace: w.namespace,
    }))
  }

  /** How many watches are open (on `ref`, when given). */
  watchCount(ref?: ResourceRef): number {
    return [...this.store.watchers].filter((w) => ref === undefined || w.key === groupResource(ref)).length
  }

  /**
   * Calls `listener` synchronously after every committed write, with the object before and after
   * (`old` absent for a create); returns the function that removes it.
   */
  onCommit(
    listener: (change: {
      readonly resource: string
      readonly type: "ADDED" | "MODIFIED" | "DELETED"
      readonly object: KubeObject
      readonly old: KubeObject | undefined
    }) => void,
  ): () => void {
    const l = (c: Change) => listener({ resource: c.key, type: c.type, object: c.object, old: c.old })
    this.store.listeners.add(l)
    return () => {
      this.store.listeners.delete(l)
    }
  }

  /**
   * A stale view: a list of `ref` as it was at `resourceVersion` (what a lagging API server cache
   * serves), or `undefined` when that history was compacted.
   */
  listAt<T extends KubeObject>(ref: ResourceRef, resourceVersion: string): ObjectList<T> | undefined {
    const items = this.store.objectsAt(ref, Number(resourceVersion))
    return items === undefined
      ? undefined
      : { items: items.map((o) => this.store.out<T>(ref, o)), resourceVersion }
  }

  /** A copy of the stored objects of a resource, sorted by key. */
  objects(ref: ResourceRef): ReadonlyArray<KubeObject> {
    return [...this.store.collection(ref).values()].sort(byKey).map((o) => this.store.out(ref, o))
  }
}
