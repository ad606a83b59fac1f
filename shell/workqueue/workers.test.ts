import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import { TestClock } from "effect/testing"
import { HubCluster, makeRequest, type Request } from "./request.ts"
import { runWorkers } from "./workers.ts"
import { make } from "./workQueue.ts"

const req = (name: string): Request => makeRequest({ namespace: "ns", name }, HubCluster)
let n = 0
const uniqueName = (prefix: string) => `${prefix}-${++n}`

describe("runWorkers", () => {
  it.effect(
    "runs up to `concurrency` requests at once, never the same request twice, and stops on shutdown",
    () =>
      Effect.gen(function* () {
        const q = yield* make({ name: uniqueName("workers") })
        let active = 0
        let peak = 0
        const seen: Array<string> = []
        const handle = (r: Request) =>
          Effect.gen(function* () {
            active++
            peak = Math.max(peak, active)
            seen.push(r.name)
            yield* Effect.sleep("1 second")
            active--
          })
        const workers = yield* Effect.forkChild(runWorkers(q, 3, handle))
        for (const name of ["a", "b", "c", "d", "e"]) yield* q.add(req(name))
        yield* Effect.yieldNow
        yield* q.add(req("a"))
        yield* TestClock.adjust("1 second")
        yield* TestClock.adjust("1 second")
        yield* TestClock.adjust("1 second")
        assert.strictEqual(peak, 3)
        assert.deepStrictEqual([...seen].sort(), ["a", "a", "b", "c", "d", "e"])
        yield* q.shutdown
        assert.isTrue(Exit.isSuccess(yield* Fiber.await(workers)))
      }),
  )
})

describe("runWorkers, continued", () => {
  it.effect("runs at least one worker, and a whole number of them", () =>
    Effect.gen(function* () {
      for (const [concurrency, expected] of [
        [0, 1],
        [2.7, 2],
      ] as const) {
        const q = yield* make({ name: uniqueName("workers-n") })
        let active = 0
        let peak = 0
        const handle = () =>
          Effect.gen(function* () {
            active++
            peak = Math.max(peak, active)
            yield* Effect.sleep("1 second")
            active--
          })
        const workers = yield* Effect.forkChild(runWorkers(q, concurrency, handle))
        for (const name of ["a", "b", "c"]) yield* q.add(req(name))
        yield* Effect.yieldNow
        yield* TestClock.adjust("5 seconds")
        assert.strictEqual(peak, expected, `concurrency ${concurrency}`)
        yield* q.shutdown
        yield* Fiber.await(workers)
      }
    }),
  )

  it.effect("marks a request done when its handler fails, so it can be taken again", () =>
    Effect.gen(function* () {
      const q = yield* make({ name: uniqueName("workers-fail") })
      const seen: Array<string> = []
      const workers = yield* Effect.forkChild(
        runWorkers(q, 1, (r) =>
          Effect.suspend(() => {
            seen.push(r.name)
            return seen.length === 1 ? Effect.die("boom") : Effect.void
          }),
        ),
      )
      yield* q.add(req("x"))
      yield* Effect.yieldNow
      yield* Effect.yieldNow
      assert.strictEqual(yield* q.processing, 0, "done after the defect")
      assert.isTrue(Exit.isFailure(yield* Fiber.await(workers)), "the defect ends the workers")
    }),
  )
})
