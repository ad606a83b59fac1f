/**
 * Watches of the in-memory API server: history replay after a resourceVersion (410 when it was
 * compacted), the initial ADDED batch without one (with the `initial-events-end` bookmark for
 * `sendInitialEvents`), live events, periodic bookmarks and the `timeoutSeconds` deadline.
 *
 * @module
 */
import type * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import * as Stream from "effect/Stream"
import type { WatchOptions } from "../kube/client.ts"
import type { KubeError } from "../kube/errors.ts"
import type { KubeObject, ResourceRef } from "../kube/resource.ts"
import { InitialEventsEndAnnotation, type WatchEvent } from "../kube/watch.ts"
import { byKey, type FakeStore, groupResource, type Watcher, watchEventFor } from "./storage.ts"

/** The 410 frame kube-apiserver sends to a watch whose resourceVersion was compacted. */
export const expiredFrame = (message: string): WatchEvent => ({
  type: "ERROR",
  object: { kind: "Status", status: "Failure", code: 410, reason: "Expired", message },
})

/**
 * The event stream of one watch over `store`. Replay and registration happen in one synchronous
 * step, so no change falls between them. Closing the stream unregisters the watcher.
 */
export const watchStream = <T extends KubeObject>(
  store: FakeStore,
  ref: ResourceRef,
  options: WatchOptions,
  context: { readonly path: string; readonly bookmarkMillis: number; readonly client?: string | undefined },
): Stream.Stream<WatchEvent<T>, KubeError> =>
  Stream.callback<WatchEvent<T>, KubeError>((typed) =>
    Effect.gen(function* () {
      const queue = typed as unknown as Queue.Queue<WatchEvent, KubeError | Cause.Done>
      const watcher: Watcher = {
        ref,
        key: groupResource(ref),
        path: context.path,
        namespace: ref.namespaced ? options.namespace : undefined,
        labelSelector: options.labelSelector,
        fieldSelector: options.fieldSelector,
        bookmarks: options.allowWatchBookmarks === true,
        queue,
        client: context.client,
      }
      const from = options.resourceVersion
      if (from !== undefined && from !== "" && from !== "0") {
        const n = Number(from)
        if (!Number.isFinite(n) || n < store.compacted) {
          Queue.offerUnsafe(queue, expiredFrame(`too old resource version: ${from} (${store.compacted})`))
          return yield* Queue.end(queue)
        }
        for (const change of store.changesAfter(n)) {
          const type = watchEventFor(watcher, change)
          if (type !== undefined) Queue.offerUnsafe(queue, { type, object: store.out(ref, change.object) })
        }
      } else {
        for (const o of [...store.collection(ref).values()].sort(byKey)) {
          const change = { rv: store.rv, key: watcher.key, type: "ADDED" as const, object: o, old: undefined }
          if (watchEventFor(watcher, change))
            Queue.offerUnsafe(queue, { type: "ADDED", object: store.out(ref, o) })
        }
        if (options.sendInitialEvents) {
          Queue.offerUnsafe(queue, store.bookmarkEvent(ref, { [InitialEventsEndAnnotation]: "true" }))
        }
      }
      store.watchers.add(watcher)
      yield* Effect.addFinalizer(() => Effect.sync(() => store.watchers.delete(watcher)))
      const ticks =
        watcher.bookmarks && context.bookmarkMillis > 0
          ? Effect.forever(
              Effect.andThen(
                Effect.sleep(context.bookmarkMillis),
                Effect.sync(() => Queue.offerUnsafe(queue, store.bookmarkEvent(ref))),
              ),
            )
          : Effect.never
      const deadline =
        options.timeoutSeconds !== undefined && options.timeoutSeconds > 0
          ? Effect.andThen(
              Effect.sleep(options.timeoutSeconds * 1000),
              Effect.sync(() => {
                store.watchers.delete(watcher)
                Queue.endUnsafe(queue)
              }),
            )
          : Effect.never
      yield* Effect.raceFirst(ticks, deadline)
    }),
  )
