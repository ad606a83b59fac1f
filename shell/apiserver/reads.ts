/**
 * The in-memory API server's reads: GET of one object, lists (one page, or every page) at the
 * latest state, a snapshot, or the first page's snapshot for later pages, and watches that
 * replay history, send initial events and bookmarks. A class layer of `FakeApiServer` (see
 * `server.ts`, whose module doc states the semantics) over its controls.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type { ListAllOptions, ListOptions, WatchOptions } from "../kube/client.ts"
import { Gone, isKubeError, type KubeError, Timeout } from "../kube/errors.ts"
import { listAllPages } from "../kube/pages.ts"
import type { KubeObject, ObjectKey, ObjectList, ResourceRef } from "../kube/resource.ts"
import { matchesFieldSelector, matchesLabelSelector } from "../kube/selector.ts"
import type { WatchEvent } from "../kube/watch.ts"
import { ServerControls } from "./controls.ts"
import { badRequest, invalid, notFound, type Served } from "./objects.ts"
import { byKey, decodeContinue, encodeContinue, objectKey } from "./storage.ts"
import { watchStream } from "./watch.ts"

/** The watch cache's answer to a revision it has not reached: 504 Timeout (retry after 1 s). */
const tooLargeResourceVersion = (s: Served, rv: number, current: number): Timeout | undefined =>
  rv > current
    ? new Timeout({
        verb: s.verb,
        path: s.path,
        message: `Too large resource version: ${rv}, current: ${current}`,
      })
    : undefined /** The reads of `FakeApiServer`. */
export abstract class ServerReads extends ServerControls {
  /** GET one object (or its `/status`). */
  get<T extends KubeObject>(ref: ResourceRef, key: ObjectKey, sub?: "status"): Effect.Effect<T, KubeError> {
    const s = this.served("get", ref, key, sub)
    return this.op(s, () => {
      const found = this.store.find(ref, key)
      return found === undefined ? notFound(s, key.name) : this.store.out<T>(ref, found)
    })
  }

  /** One page of a list. */
  list<T extends KubeObject>(
    ref: ResourceRef,
    options: ListOptions = {},
  ): Effect.Effect<ObjectList<T>, KubeError> {
    const s = this.served("list", ref, { namespace: options.namespace })
    return this.op(s, () => {
      const at = this.readAt(s, options.resourceVersion, options.resourceVersionMatch)
      if (isKubeError(at)) return at
      let listRv = at.rv
      let source = at.objects
      let after = ""
      if (options.continue) {
        const token = decodeContinue(options.continue)
        if (token === undefined) return badRequest(s, "invalid continue token")
        if (token.rv < this.store.compacted) {
          return new Gone({
            verb: "list",
            path: s.path,
            message:
              "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.",
          })
        }
        listRv = token.rv
        after = token.after
        // Later pages come from the first page's snapshot, as etcd serves them.
        source = this.store.objectsAt(ref, token.rv) ?? []
      }
      const all = source
        .filter((o) => !ref.namespaced || !options.namespace || o.metadata.namespace === options.namespace)
        .filter(
          (o) =>
            matchesLabelSelector(options.labelSelector, o) && matchesFieldSelector(options.fieldSelector, o),
        )
        .sort(byKey)
        .filter((o) => after === "" || objectKey(o) > after)
      const limit = options.limit !== undefined && options.limit > 0 ? options.limit : all.length
      const page = all.slice(0, limit)
      const last = page[page.length - 1]
      const more = all.length > page.length && last !== undefined
      return {
        items: page.map((o) => this.store.out<T>(ref, o)),
        resourceVersion: String(listRv),
        continue: more ? encodeContinue({ rv: listRv, after: objectKey(last) }) : undefined,
        remainingItemCount: more ? all.length - page.length : undefined,
      }
    })
  }

  /**
   * The objects a list reads, by its `resourceVersion` and `resourceVersionMatch`: unset or `"0"`
   * the latest (the watch cache is never behind here); `Exact` the snapshot at that revision, 410
   * Gone once compacted; a revision the server has not reached is a 504 Timeout ("Too large
   * resource version"), as the watch cache answers after waiting.
   */
  protected readAt(
    s: Served,
    resourceVersion: string | undefined,
    match: ListOptions["resourceVersionMatch"],
  ): { readonly rv: number; readonly objects: ReadonlyArray<KubeObject> } | KubeError {
    const latest = () => ({ rv: this.store.rv, objects: [...this.store.collection(s.ref).values()] })
    if (match !== undefined && match !== "Exact" && match !== "NotOlderThan") {
      return invalid(
        s,
        `resourceVersionMatch: Unsupported value: "${match}": supported values: "Exact", "NotOlderThan"`,
      )
    }
    if (resourceVersion === undefined || resourceVersion === "") {
      return match === undefined
        ? latest()
        : invalid(
            s,
            "resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided",
          )
    }
    if (resourceVersion === "0") {
      return match === "Exact"
        ? invalid(
            s,
            `resourceVersionMatch: Forbidden: resourceVersionMatch "Exact" is forbidden for resourceVersion "0"`,
          )
        : latest()
    }
    const n = Number(resourceVersion)
    if (!Number.isSafeInteger(n) || n < 0) {
      return badRequest(
        s,
        `resourceVersion: Invalid value: "${resourceVersion}": must be a non-negative integer`,
      )
    }
    const tooLarge = tooLargeResourceVersion(s, n, this.store.rv)
    if (tooLarge !== undefined) return tooLarge
    if (match !== "Exact") return latest()
    const objects = this.store.objectsAt(s.ref, n)
    return objects === undefined
      ? new Gone({
          verb: s.verb,
          path: s.path,
          message: "The resourceVersion for the provided list is too old.",
        })
      : { rv: n, objects }
  }

  /** Every page of a list. */
  listAll<T extends KubeObject>(
    ref: ResourceRef,
    options?: ListAllOptions,
  ): Effect.Effect<ObjectList<T>, KubeError> {
    return listAllPages<T>((r, o) => this.list<T>(r, o), ref, options)
  }

  /** A watch (see the module doc for its semantics). */
  watch<T extends KubeObject>(
    ref: ResourceRef,
    options: WatchOptions = {},
    client?: string,
  ): Stream.Stream<WatchEvent<T>, KubeError> {
    return Stream.unwrap(this.openWatch<T>(ref, options, client))
  }

  /**
   * A watch in two steps: admission (outage, faults) as an effect, then the event stream. The
   * HTTP adapter uses it to answer errors with a status before it starts streaming.
   */
  openWatch<T extends KubeObject>(
    ref: ResourceRef,
    options: WatchOptions = {},
    client?: string,
  ): Effect.Effect<Stream.Stream<WatchEvent<T>, KubeError>, KubeError> {
    const s = this.served("watch", ref, { namespace: options.namespace })
    return Effect.andThen(
      this.admit(s),
      Effect.suspend(() => {
        const from = Number(options.resourceVersion ?? "0")
        const tooLarge = Number.isFinite(from) ? tooLargeResourceVersion(s, from, this.store.rv) : undefined
        return tooLarge === undefined
          ? Effect.succeed(
              watchStream<T>(this.store, ref, options, {
                path: s.path,
                bookmarkMillis: this.bookmarkMillis,
                client,
              }),
            )
          : Effect.fail(tooLarge)
      }),
    )
  }
}
