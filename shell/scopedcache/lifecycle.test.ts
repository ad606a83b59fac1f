// Start, waitForCacheSync and the stop of the cache with its scope (scopedcache.lifecycle rows,
// `lifecycle.ts`).
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Scope from "effect/Scope"
import { TestClock } from "effect/testing"
import { makeMemoryClient } from "../apiserver/memoryClient.ts"
import { FakeApiServer } from "../apiserver/server.ts"
import { makeScopedCache } from "./scopedCache.ts"
import { cms, dep, settle, setup } from "./testing.ts"

describe("ScopedCache: lifecycle", () => {
  it.effect("waitForCacheSync waits for Start and every informer; false once the cache stopped", () =>
    Effect.gen(function* () {
      const { fake, cache } = yield* setup()
      fake.inject({ verb: "list", namespace: "a", error: "Unreachable", times: 1 })
      yield* cache.addInformer({ resource: cms, namespace: "a", dependent: dep("d1") })
      const waiting = yield* Effect.forkChild(cache.waitForCacheSync)
      yield* settle
      assert.isUndefined(waiting.pollUnsafe())
      yield* cache.start
      yield* settle
      assert.isUndefined(waiting.pollUnsafe(), "the first list failed; backing off")
      yield* TestClock.adjust("1 second")
      assert.isTrue(yield* Fiber.join(waiting))
    }),
  )

  it.effect(
    "closing the cache's scope stops its informers; afterwards reads fail and waitForCacheSync is false",
    () =>
      Effect.gen(function* () {
        const fake = yield* FakeApiServer.make()
        const client = yield* makeMemoryClient(fake)
        const scope = yield* Scope.make()
        const cache = yield* makeScopedCache(client, { cluster: "c1" }).pipe(Scope.provide(scope))
        yield* cache.addInformer({ resource: cms, namespace: "a", dependent: dep("d1") })
        yield* cache.start.pipe(Scope.provide(scope))
        assert.isTrue(yield* cache.waitForCacheSync)
        yield* settle
        assert.strictEqual(fake.watchCount(cms), 1)
        yield* Scope.close(scope, Exit.void)
        yield* settle
        assert.strictEqual(fake.watchCount(cms), 0)
        assert.isFalse(yield* cache.waitForCacheSync)
        assert.isFalse(yield* cache.isStarted)
        const read = yield* Effect.flip(cache.list(cms, { namespace: "a" }))
        assert.strictEqual(read._tag, "InformerNotFound")
        assert.include(read.message, "stopped")
      }),
  )

  it.effect("waitForCacheSync is false when the cache stops before it was started", () =>
    Effect.gen(function* () {
      const fake = yield* FakeApiServer.make()
      const client = yield* makeMemoryClient(fake)
      const scope = yield* Scope.make()
      const cache = yield* makeScopedCache(client, { cluster: "c1" }).pipe(Scope.provide(scope))
      const waiting = yield* Effect.forkChild(cache.waitForCacheSync)
      yield* settle
      assert.isUndefined(waiting.pollUnsafe())
      yield* Scope.close(scope, Exit.void)
      assert.isFalse(yield* Fiber.join(waiting))
      assert.isFalse(yield* cache.isStarted)
    }),
  )
})
