/**
 * The scoped cache's lifecycle (seed 002, `Start`, `IsStarted`, `WaitForCacheSync`, and the
 * cache's stop when its scope closes).
 *
 * # Expected flow
 * `start` runs `Start` through the registry's table (`scopedcache.lifecycle`: every pending
 * informer starts) and ties the cache to the caller's scope as well. `waitForCacheSync` waits for
 * `start`, then for every informer that should run to sync, as the lifecycle table says
 * (`isSynced`). When the cache's scope closes, `onStop` marks the state closed, ends every running
 * informer (`CacheStopped`) and releases the waiters.
 *
 * # Guarantees
 * - `waitForCacheSync` answers false when the cache stops first, and never waits for an informer
 *   that has stopped (its `waitForSync` ends with it).
 * - After the stop, `isStarted` is false and operations change nothing (`operate.ts`).
 *
 * @module
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import * as SynchronizedRef from "effect/SynchronizedRef"
import { isSynced } from "../../core/scopedcache/registry.ts"
import type { CacheContext } from "./context.ts"
import type { Operate } from "./operate.ts"

/** `start`: `Start` through the registry's table; the cache also stops with the caller's scope. */
export const start = (ctx: CacheContext, operate: Operate): Effect.Effect<void, never, Scope.Scope> =>
  Effect.gen(function* () {
    yield* operate({ _tag: "Start" })
    yield* Effect.addFinalizer(() => Scope.close(ctx.cacheScope, Exit.void))
  })

/** `isStarted`: started and not stopped. */
export const isStarted = (ctx: CacheContext): Effect.Effect<boolean> =>
  Effect.map(SynchronizedRef.get(ctx.state), (s) => s.registry.started && !s.closed)

/** `waitForCacheSync`: true once started and every informer that should run has synced. */
export const waitForCacheSync = (ctx: CacheContext): Effect.Effect<boolean> =>
  Effect.gen(function* () {
    const done = yield* Effect.raceFirst(
      Effect.as(Deferred.await(ctx.started), true),
      Effect.as(Deferred.await(ctx.stopped), false),
    )
    if (!done) return false
    for (;;) {
      const s = yield* SynchronizedRef.get(ctx.state)
      if (s.closed) return false
      if (isSynced(s.registry, ctx.config)) return true
      const waiting = ctx.levels.all()
      if (waiting.length === 0) yield* Effect.sleep(10)
      yield* Effect.raceFirst(
        Effect.forEach(waiting, (r) => r.informer.waitForSync, { concurrency: "unbounded", discard: true }),
        Deferred.await(ctx.stopped),
      )
      yield* Effect.yieldNow
    }
  })

/** Stops the cache when its scope closes: closed state, every informer ended, waiters released. */
export const onStop = (ctx: CacheContext): Effect.Effect<void> =>
  Scope.addFinalizer(
    ctx.cacheScope,
    Effect.andThen(
      SynchronizedRef.update(ctx.state, (s) => ({ ...s, closed: true })),
      Effect.andThen(
        Effect.forEach(ctx.levels.all(), (r) => Deferred.succeed(r.ended, { reason: "CacheStopped" }), {
          discard: true,
        }),
        Deferred.succeed(ctx.stopped, undefined),
      ),
    ),
  )
