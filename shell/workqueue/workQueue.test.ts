import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Metric from "effect/Metric"
import { TestClock } from "effect/testing"
import * as Metrics from "./metrics.ts"
import { ClusterName, HubCluster, makeRequest, type Request } from "./request.ts"
import { make } from "./workQueue.ts"

const a = ClusterName("a")
const b = ClusterName("b")
const req = (name: string, cluster: ClusterName = HubCluster): Request =>
  makeRequest({ namespace: "ns", name }, cluster)
let n = 0
const uniqueName = (prefix: string) => `${prefix}-${++n}`
const names = (rs: ReadonlyArray<Request>) => rs.map((r) => `${r.cluster}/${r.name}`)

describe("WorkQueue", () => {
  it.effect("de-duplicates a request added twice before it is taken", () =>
    Effect.gen(function* () {
      const q = yield* make({ name: uniqueName("dedupe") })
      yield* q.add(req("x"))
      yield* q.add(req("x"))
      yield* q.add(req("y"))
      assert.strictEqual(yield* q.length, 2)
      assert.deepStrictEqual(names([yield* q.take, yield* q.take]), ["/x", "/y"])
    }),
  )

  it.effect("hands a request to one worker at a time and processes a re-add once after done", () =>
    Effect.gen(function* () {
      const q = yield* make({ name: uniqueName("one-worker") })
      yield* q.add(req("x"))
      const first = yield* q.take
      yield* q.add(req("x"))
      yield* q.add(req("x"))
      assert.strictEqual(yield* q.length, 0, "not handed out while processing")
      const second = yield* Effect.forkChild(q.take)
      yield* Effect.yieldNow
      assert.isUndefined(second.pollUnsafe())
      yield* q.done(first)
      assert.deepStrictEqual(names([yield* Fiber.join(second)]), ["/x"])
      yield* q.done(first)
      assert.strictEqual(yield* q.length, 0, "the two re-adds were one")
    }),
  )

  it.effect("is fair across clusters: a cluster with 10,000 ready requests does not starve another", () =>
    Effect.gen(function* () {
      const q = yield* make({ name: uniqueName("fair") })
      for (let i = 0; i < 10_000; i++) yield* q.add(req(`big-${i}`, a))
      yield* q.add(req("small-0", b))
      yield* q.add(req("small-1", b))
      yield* q.add(req("hub-0"))
      const taken: Array<Request> = []
      for (let i = 0; i < 7; i++) taken.push(yield* q.take)
      assert.deepStrictEqual(names(taken), [
        "a/big-0",
        "b/small-0",
        "/hub-0",
        "a/big-1",
        "b/small-1",
        "a/big-2",
        "a/big-3",
      ])
    }),
  )

  it.effect("addAfter queues after the delay and keeps the earliest time", () =>
    Effect.gen(function* () {
      const q = yield* make({ name: uniqueName("after") })
      yield* q.addAfter(req("x"), "10 seconds")
      yield* q.addAfter(req("x"), "20 seconds")
      yield* q.addAfter(req("y"), "5 seconds")
      yield* q.addAfter(req("y"), "1 second")
      yield* TestClock.adjust("999 millis")
      assert.strictEqual(yield* q.length, 0)
      yield* TestClock.adjust("1 millis")
      assert.deepStrictEqual(names([yield* q.take]), ["/y"])
      yield* TestClock.adjust("9 seconds")
      assert.deepStrictEqual(names([yield* q.take]), ["/x"])
      yield* TestClock.adjust("20 seconds")
      assert.strictEqual(yield* q.length, 0, "the later time was dropped")
    }),
  )

  it.effect("addRateLimited backs off 5 ms, 10 ms, 20 ms … per request; forget resets it", () =>
    Effect.gen(function* () {
      const q = yield* make({ name: uniqueName("backoff") })
      const x = req("x")
      const waits: Array<number> = []
      for (let i = 0; i < 4; i++) {
        yield* q.addRateLimited(x)
        let waited = 0
        while ((yield* q.length) === 0) {
          yield* TestClock.adjust("1 millis")
          waited++
        }
        waits.push(waited)
        yield* q.done(yield* q.take)
      }
      assert.deepStrictEqual(waits, [5, 10, 20, 40])
      assert.strictEqual(yield* q.numRequeues(x), 4)
      yield* q.forget(x)
      assert.strictEqual(yield* q.numRequeues(x), 0)
      assert.strictEqual(
        (yield* Metric.value(Metrics.forQueue(q.name).retries)).count,
        4,
        "workqueue_retries_total counts rate-limited adds",
      )
    }),
  )

  it.effect(
    "addRateLimited also waits its turn in one bucket for all requests: 100 at once, then 10 a second",
    () =>
      Effect.gen(function* () {
        const q = yield* make({ name: uniqueName("bucket") })
        for (let i = 0; i < 102; i++) yield* q.addRateLimited(req(`r-${i}`))
        yield* TestClock.adjust("5 millis")
        assert.strictEqual(yield* q.length, 100, "the burst of 100 waits only its 5 ms backoff")
        yield* TestClock.adjust("94 millis")
        assert.strictEqual(yield* q.length, 100, "the 101st waits for its token, due 100 ms after the start")
        yield* TestClock.adjust("1 millis")
        assert.strictEqual(yield* q.length, 101)
        yield* TestClock.adjust("100 millis")
        assert.strictEqual(yield* q.length, 102)
      }),
  )

  it.effect("the bucket is configurable per queue", () =>
    Effect.gen(function* () {
      const q = yield* make({ name: uniqueName("bucket-2"), bucket: { qps: 1, burst: 1 } })
      yield* q.addRateLimited(req("a"))
      yield* q.addRateLimited(req("b"))
      yield* TestClock.adjust("999 millis")
      assert.strictEqual(yield* q.length, 1)
      yield* TestClock.adjust("1 millis")
      assert.strictEqual(yield* q.length, 2)
    }),
  )

  it.effect("addAfter with a delay of 0 or less queues at once", () =>
    Effect.gen(function* () {
      const q = yield* make({ name: uniqueName("after-0") })
      yield* q.addAfter(req("x"), 0)
      yield* q.addAfter(req("y"), "-1 second")
      assert.strictEqual(yield* q.length, 2)
    }),
  )

  it.effect("shutdown cancels pending delays and ignores later delayed adds", () =>
    Effect.gen(function* () {
      const q = yield* make({ name: uniqueName("shutdown-after") })
      yield* q.addAfter(req("x"), "1 second")
      yield* q.shutdown
      yield* q.addAfter(req("y"), "1 second")
      yield* q.addRateLimited(req("z"))
      yield* TestClock.adjust("10 seconds")
      assert.strictEqual(yield* q.length, 0)
      assert.isTrue(yield* q.isShutDown)
    }),
  )

  it.effect(
    "done still works for a request in flight after shutdown, and the queue reports it processing until then",
    () =>
      Effect.gen(function* () {
        const q = yield* make({ name: uniqueName("inflight") })
        yield* q.add(req("x"))
        const x = yield* q.take
        assert.strictEqual(yield* q.processing, 1)
        yield* q.shutdown
        yield* q.done(x)
        assert.strictEqual(yield* q.processing, 0)
      }),
  )

  it.effect(
    "with perClusterMetrics, books each request under its cluster and leaves the queue's series alone",
    () =>
      Effect.gen(function* () {
        const q = yield* make({ name: uniqueName("per-cluster"), perClusterMetrics: true })
        yield* q.add(req("x", a))
        yield* q.add(req("y", a))
        yield* q.add(req("z", b))
        const ma = Metrics.forQueueCluster(q.name, "a")
        const mb = Metrics.forQueueCluster(q.name, "b")
        assert.strictEqual((yield* Metric.value(ma.depth)).value, 2)
        assert.strictEqual((yield* Metric.value(ma.adds)).count, 2)
        assert.strictEqual((yield* Metric.value(mb.depth)).value, 1)
        yield* TestClock.adjust("1 second")
        yield* q.done(yield* q.take)
        assert.strictEqual((yield* Metric.value(ma.depth)).value, 1)
        assert.strictEqual((yield* Metric.value(ma.queueDuration)).count, 1)
        assert.strictEqual((yield* Metric.value(ma.workDuration)).count, 1)
        yield* q.addRateLimited(req("x", a))
        assert.strictEqual((yield* Metric.value(ma.retries)).count, 1)
        const mq = Metrics.forQueue(q.name)
        assert.strictEqual((yield* Metric.value(mq.adds)).count, 0)
        assert.strictEqual((yield* Metric.value(mq.retries)).count, 0)
      }),
  )

  it.effect("shutdown fails waiting and later takes and ignores adds", () =>
    Effect.gen(function* () {
      const q = yield* make({ name: uniqueName("shutdown") })
      const waiting = yield* Effect.forkChild(q.take)
      yield* Effect.yieldNow
      yield* q.shutdown
      const exit = yield* Fiber.await(waiting)
      assert.isTrue(Exit.isFailure(exit) && String(exit).includes("WorkQueueShutDownError"))
      yield* q.add(req("x"))
      assert.strictEqual(yield* q.length, 0)
      assert.deepStrictEqual(
        { ...(yield* Effect.flip(q.take)) },
        { _tag: "WorkQueueShutDownError", queue: q.name },
      )
    }),
  )

  it.effect("shutdown stops handing out work at once, even with requests ready", () =>
    Effect.gen(function* () {
      const q = yield* make({ name: uniqueName("shutdown-ready") })
      yield* q.add(req("x"))
      yield* q.add(req("y"))
      yield* q.shutdown
      assert.deepStrictEqual(
        { ...(yield* Effect.flip(q.take)) },
        { _tag: "WorkQueueShutDownError", queue: q.name },
      )
    }),
  )

  it.effect("times the queue from the first add and the work from take, once per take", () =>
    Effect.gen(function* () {
      const q = yield* make({ name: uniqueName("durations") })
      const m = Metrics.forQueue(q.name)
      yield* TestClock.adjust("10 seconds") // times are not 0, so a sum cannot pass for a difference
      yield* q.add(req("x"))
      const x = yield* q.take
      yield* q.add(req("x")) // deferred at t=10 s
      yield* TestClock.adjust("1 second")
      yield* q.add(req("x")) // still deferred: the first add's time stays
      yield* TestClock.adjust("1 second")
      yield* q.done(x)
      yield* q.done(x) // not processing any more: no second observation
      assert.strictEqual((yield* Metric.value(m.workDuration)).count, 1)
      assert.strictEqual((yield* Metric.value(m.workDuration)).sum, 2)
      yield* TestClock.adjust("1 second")
      yield* q.done(yield* q.take)
      assert.strictEqual(
        (yield* Metric.value(m.queueDuration)).sum,
        3,
        "0 s, then 3 s since the first deferred add",
      )
      yield* TestClock.adjust("5 seconds")
      yield* q.add(req("x"))
      yield* q.done(yield* q.take)
      assert.strictEqual((yield* Metric.value(m.queueDuration)).sum, 3, "a new add starts a new queue time")
      yield* q.done(req("never-taken"))
      assert.strictEqual((yield* Metric.value(m.workDuration)).count, 3, "done without take observes nothing")
    }),
  )

  it.effect("workqueue_depth of a queue counts the ready requests of every cluster", () =>
    Effect.gen(function* () {
      const q = yield* make({ name: uniqueName("depth") })
      yield* q.add(req("x", a))
      yield* q.add(req("y", b))
      yield* q.add(req("z", b))
      assert.strictEqual((yield* Metric.value(Metrics.forQueue(q.name).depth)).value, 3)
    }),
  )

  it.effect("records workqueue_depth, adds, queue and work durations under the queue's name", () =>
    Effect.gen(function* () {
      const q = yield* make({ name: uniqueName("metrics") })
      const m = Metrics.forQueue(q.name)
      yield* q.add(req("x"))
      yield* q.add(req("x"))
      yield* q.add(req("y"))
      assert.strictEqual((yield* Metric.value(m.depth)).value, 2)
      assert.strictEqual((yield* Metric.value(m.adds)).count, 2)
      yield* TestClock.adjust("2 seconds")
      const x = yield* q.take
      yield* TestClock.adjust("3 seconds")
      yield* q.done(x)
      const queued = yield* Metric.value(m.queueDuration)
      const worked = yield* Metric.value(m.workDuration)
      assert.strictEqual(queued.count, 1)
      assert.strictEqual(queued.sum, 2)
      assert.strictEqual(worked.sum, 3)
      assert.strictEqual((yield* Metric.value(m.depth)).value, 1)
    }),
  )
})
