import { assert, describe, it } from "@effect/vitest"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { TestClock } from "effect/testing"
import { ClientDefaults } from "./options.ts"
import { makeTokenBucket } from "./rateLimiter.ts"

describe("makeTokenBucket", () => {
  it.effect("lets a burst of 30 through at once, then paces at 20 per second (seed 000 defaults)", () =>
    Effect.gen(function* () {
      assert.strictEqual(ClientDefaults.qps, 20)
      assert.strictEqual(ClientDefaults.burst, 30)
      assert.strictEqual(ClientDefaults.timeout, "10 seconds")
      const bucket = yield* makeTokenBucket(ClientDefaults)
      const done: Array<number> = []
      const fiber = yield* Effect.forkChild(
        Effect.forEach(
          Array.from({ length: 40 }, (_, i) => i),
          () =>
            Effect.andThen(
              bucket.take,
              Effect.flatMap(Clock.currentTimeMillis, (t) => Effect.sync(() => done.push(t))),
            ),
          { concurrency: "unbounded" },
        ),
      )
      yield* Effect.yieldNow
      assert.strictEqual(done.length, 30, "the burst passes without waiting")
      yield* TestClock.adjust("250 millis")
      assert.strictEqual(done.length, 35, "5 more after 250 ms at 20 qps")
      yield* TestClock.adjust("250 millis")
      yield* Fiber.join(fiber)
      assert.strictEqual(done.length, 40)
      assert.strictEqual(Math.max(...done), 500)
    }),
  )

  it.effect("refills up to the burst while idle and never beyond", () =>
    Effect.gen(function* () {
      const bucket = yield* makeTokenBucket({ qps: 10, burst: 2 })
      yield* bucket.take
      yield* bucket.take
      yield* TestClock.adjust("10 seconds")
      yield* bucket.take
      yield* bucket.take
      const third = yield* Effect.forkChild(bucket.take)
      yield* Effect.yieldNow
      assert.isUndefined(third.pollUnsafe(), "the third waits: the idle refill stopped at the burst")
      yield* TestClock.adjust("100 millis")
      yield* Fiber.join(third)
    }),
  )

  it.effect("does not limit when qps is not finite", () =>
    Effect.gen(function* () {
      const bucket = yield* makeTokenBucket({ qps: Number.POSITIVE_INFINITY, burst: 1 })
      yield* Effect.forEach(Array.from({ length: 1000 }), () => bucket.take)
    }),
  )
})
