/**
 * The sync waits: one informer's first list (before a read), and every informer's (the cache's
 * `waitForCacheSync`).
 *
 * # Expected flow
 * Reads (`reads.ts`) pass each serving informer through `synced` before they read its store; a
 * controller waits for `waitForCacheSync` after it has asked for its informers.
 *
 * # Guarantees
 * - `synced` ends within the context's `syncTimeout` (2 min by default, controller-runtime's
 *   `CacheSyncTimeout`): with the entry once the informer has listed, with `InformerNotFound`
 *   when the cache stops first, else with `Timeout`. A cluster that hangs blocks a read of its own
 *   cache for that long, never forever.
 * - `waitForCacheSync` answers true once every informer that exists when it starts has listed,
 *   and false when the cache stops (before or after that).
 * - The failures are built only when they happen: a wait that succeeds allocates no error.
 *
 * @module
 */
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { Timeout } from "../kube/errors.ts"
import { resourcePath } from "../kube/resource.ts"
import { type CacheContext, type Entry, stoppedError } from "./context.ts"
import type { CacheError } from "./types.ts"

/** Waits for an informer's first list, up to the sync timeout, or fails when the cache stops. */
export const synced = (ctx: CacheContext, entry: Entry): Effect.Effect<Entry, CacheError> => {
  const { resource, namespace } = entry.informer
  return Effect.raceFirst(
    Effect.as(entry.informer.waitForSync, entry),
    Effect.flatMap(Deferred.await(ctx.stopped), () => Effect.fail(stoppedError(ctx, resource, namespace))),
  ).pipe(
    Effect.timeoutOrElse({
      duration: ctx.syncTimeout,
      orElse: () =>
        Effect.fail(
          new Timeout({
            verb: "list",
            path: resourcePath(resource, { namespace }),
            message: `the informer of cluster "${ctx.options.cluster}" did not sync within ${Duration.format(ctx.syncTimeout)}`,
          }),
        ),
    }),
  )
}

/** `Cache.waitForCacheSync`: true once every present informer has listed, false once stopped. */
export const waitForCacheSync = (ctx: CacheContext): Effect.Effect<boolean> =>
  Effect.gen(function* () {
    const all = [...ctx.entries.values()]
    const done = yield* Effect.raceFirst(
      Effect.as(
        Effect.forEach(all, (e) => e.informer.waitForSync, { discard: true, concurrency: "unbounded" }),
        true,
      ),
      Effect.as(Deferred.await(ctx.stopped), false),
    )
    return done && !(yield* ctx.isStopped)
  })
