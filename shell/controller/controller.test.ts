import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Logger from "effect/Logger"
import * as Metric from "effect/Metric"
import * as References from "effect/References"
import * as Scope from "effect/Scope"
import { TestClock } from "effect/testing"
import { ClusterName, HubCluster, makeRequest, type Request } from "../workqueue/request.ts"
import { make } from "./controller.ts"
import * as Metrics from "./metrics.ts"
import { done, type ReconcileResult, requeue, requeueAfter, TerminalError } from "./result.ts"

let n = 0
const uniqueName = (prefix: string) => `${prefix}-${++n}`
const req = (name: string, cluster: ClusterName = HubCluster): Request =>
  makeRequest({ namespace: "ns", name }, cluster)
const settle = Effect.repeat(Effect.yieldNow, { times: 50 })

/** Log lines with their annotations, as JSON-able records. */
const captureLogs = () => {
  const lines: Array<Record<string, unknown>> = []
  const logger = Logger.make((o) => {
    lines.push({
      level: o.logLevel,
      message: o.message,
      ...o.fiber.getRef(References.CurrentLogAnnotations),
    })
  })
  return { lines, layer: Logger.layer([logger]) }
}

/** Starts a controller in a fresh scope; returns it with the scope and the times of each reconcile. */
const startController = <E>(
  reconcile: (r: Request, attempt: number) => Effect.Effect<ReconcileResult, E>,
  extra: {
    readonly maxConcurrentReconciles?: number
    readonly forKind?: { readonly group: string; readonly kind: string }
    readonly bucket?: { readonly qps?: number; readonly burst?: number }
  } = {},
) =>
  Effect.gen(function* () {
    const attempts = new Map<string, number>()
    const scope = yield* Scope.make()
    const name = uniqueName("ctrl")
    const controller = yield* Scope.provide(
      make({
        name,
        ...extra,
        reconcile: (r) =>
          Effect.gen(function* () {
            const attempt = (attempts.get(r.name) ?? 0) + 1
            attempts.set(r.name, attempt)
            return yield* reconcile(r, attempt)
          }),
      }),
      scope,
    )
    yield* Scope.provide(controller.start, scope)
    return { controller, scope, attempts, name }
  })

describe("Controller requeue rules", () => {
  it.effect("a success forgets the request and is counted as success", () =>
    Effect.gen(function* () {
      const { controller, attempts, name } = yield* startController(() => Effect.succeed(done()))
      yield* controller.enqueue(req("a"))
      yield* settle
      yield* TestClock.adjust("1 hour")
      assert.strictEqual(attempts.get("a"), 1)
      assert.strictEqual(yield* controller.queue.numRequeues(req("a")), 0)
      assert.strictEqual((yield* Metric.value(Metrics.forController(name).total("success"))).count, 1)
    }),
  )

  it.effect("an error requeues with backoff 5 ms, 10 ms, 20 ms … and counts reconcile errors", () =>
    Effect.gen(function* () {
      const { controller, attempts, name } = yield* startController((_, attempt) =>
        attempt <= 4 ? Effect.fail("boom") : Effect.succeed(done()),
      )
      yield* controller.enqueue(req("a"))
      yield* settle
      const seen: Array<number> = []
      for (let t = 1; t <= 80; t++) {
        const before = attempts.get("a") ?? 0
        yield* TestClock.adjust("1 millis")
        yield* settle
        if ((attempts.get("a") ?? 0) > before) seen.push(t)
      }
      assert.deepStrictEqual(seen, [5, 15, 35, 75])
      const m = Metrics.forController(name)
      assert.strictEqual((yield* Metric.value(m.errors)).count, 4)
      assert.strictEqual((yield* Metric.value(m.total("error"))).count, 4)
      assert.strictEqual((yield* Metric.value(m.total("success"))).count, 1)
      assert.strictEqual(yield* controller.queue.numRequeues(req("a")), 0, "the success forgot the backoff")
    }),
  )

  it.effect("retries take turns in the controller's bucket: past its burst, one per 1/qps", () =>
    Effect.gen(function* () {
      const { controller, attempts } = yield* startController(
        (_, attempt) => (attempt === 1 ? Effect.fail("boom") : Effect.succeed(done())),
        { bucket: { qps: 2, burst: 1 } },
      )
      for (const name of ["a", "b", "c"]) yield* controller.enqueue(req(name))
      const retried = () => ["a", "b", "c"].filter((n) => (attempts.get(n) ?? 0) > 1).length
      yield* settle
      yield* TestClock.adjust("10 millis")
      yield* settle
      assert.strictEqual(retried(), 1, "the burst's one token: one retry after its 5 ms backoff")
      yield* TestClock.adjust("490 millis")
      yield* settle
      assert.strictEqual(retried(), 2, "the next token after 1/qps = 500 ms")
      yield* TestClock.adjust("500 millis")
      yield* settle
      assert.strictEqual(retried(), 3)
    }),
  )

  it.effect("a bucket without tokens is refused when the controller makes its queue", () =>
    Effect.gen(function* () {
      const exit = yield* Effect.exit(
        Effect.scoped(
          make({ name: uniqueName("bad"), bucket: { qps: 0 }, reconcile: () => Effect.succeed(done()) }),
        ),
      )
      assert.isTrue(Exit.isFailure(exit))
      assert.include(String(Exit.isFailure(exit) ? exit.cause : ""), "bucket.qps must be a positive number")
    }),
  )

  it.effect("requeueAfter reconciles again after the delay, with the backoff forgotten", () =>
    Effect.gen(function* () {
      const { controller, attempts, name } = yield* startController((_, attempt) =>
        Effect.succeed(attempt === 1 ? requeueAfter("30 seconds") : done()),
      )
      yield* controller.enqueue(req("a"))
      yield* settle
      yield* TestClock.adjust("29999 millis")
      assert.strictEqual(attempts.get("a"), 1)
      yield* TestClock.adjust("1 millis")
      yield* settle
      assert.strictEqual(attempts.get("a"), 2)
      assert.strictEqual((yield* Metric.value(Metrics.forController(name).total("requeue_after"))).count, 1)
    }),
  )

  it.effect("requeue: true goes through the backoff; a TerminalError is not retried", () =>
    Effect.gen(function* () {
      const { controller, attempts, name } = yield* startController((r, attempt) =>
        r.name === "t"
          ? Effect.fail(new TerminalError({ message: "bad spec" }))
          : Effect.succeed(attempt === 1 ? requeue() : done()),
      )
      yield* controller.enqueue(req("a"))
      yield* controller.enqueue(req("t"))
      yield* settle
      yield* TestClock.adjust("5 millis")
      yield* settle
      assert.strictEqual(attempts.get("a"), 2)
      yield* TestClock.adjust("1 hour")
      assert.strictEqual(attempts.get("t"), 1)
      assert.strictEqual((yield* Metric.value(Metrics.forController(name).terminal)).count, 1)
    }),
  )
})

describe("Controller concurrency", () => {
  it.effect("runs one reconcile at a time by default, and up to maxConcurrentReconciles otherwise", () =>
    Effect.gen(function* () {
      for (const [max, expected] of [
        [undefined, 1],
        [3, 3],
      ] as const) {
        let active = 0
        let peak = 0
        const { controller } = yield* startController(
          () =>
            Effect.gen(function* () {
              active++
              peak = Math.max(peak, active)
              yield* Effect.sleep("1 second")
              active--
              return done()
            }),
          max === undefined ? {} : { maxConcurrentReconciles: max },
        )
        for (const name of ["a", "b", "c", "d"]) yield* controller.enqueue(req(name))
        yield* settle
        assert.strictEqual(yield* controller.activeWorkers, expected)
        for (let i = 0; i < 4; i++) yield* TestClock.adjust("1 second")
        assert.strictEqual(peak, expected)
      }
    }),
  )

  it.effect(
    "never reconciles the same request twice at once; a re-add during a reconcile runs once after it",
    () =>
      Effect.gen(function* () {
        let active = 0
        let overlap = false
        const { controller, attempts } = yield* startController(
          () =>
            Effect.gen(function* () {
              active++
              if (active > 1) overlap = true
              yield* Effect.sleep("1 second")
              active--
              return done()
            }),
          { maxConcurrentReconciles: 4 },
        )
        yield* controller.enqueue(req("a"))
        yield* settle
        yield* controller.enqueue(req("a"))
        yield* controller.enqueue(req("a"))
        yield* TestClock.adjust("1 second")
        yield* settle
        yield* TestClock.adjust("1 second")
        yield* settle
        assert.isFalse(overlap)
        assert.strictEqual(attempts.get("a"), 2)
      }),
  )
})

describe("Controller logs and stop", () => {
  it.effect("annotates logs with the request and the deciding KRTT row", () =>
    Effect.gen(function* () {
      const logs = captureLogs()
      yield* Effect.gen(function* () {
        const { controller } = yield* startController((r) =>
          r.name === "bad"
            ? Effect.fail("nope")
            : Effect.succeed(requeueAfter("10 seconds", "clustercache.reconciler#10")),
        )
        yield* controller.enqueue(req("a", ClusterName("c1")))
        yield* controller.enqueue(req("bad"))
        yield* settle
      }).pipe(Effect.provide(logs.layer), Effect.provideService(References.MinimumLogLevel, "Debug"))
      const ok = logs.lines.find(
        (l) => l.message !== undefined && String(l.message).includes("Reconcile done"),
      )
      assert.strictEqual(ok?.request, "cluster://c1/ns/a")
      assert.strictEqual(ok?.row, "clustercache.reconciler#10")
      assert.strictEqual(ok?.cluster, "c1")
      const bad = logs.lines.find((l) => String(l.message).includes("Reconciler error"))
      assert.strictEqual(bad?.request, "cluster:///ns/bad")
      assert.strictEqual(bad?.level, "Error")
      assert.doesNotThrow(() => JSON.stringify(logs.lines), "annotations are JSON-able")
    }),
  )

  it.effect("a controller for a kind logs its group, kind and the object as controller-runtime's", () =>
    Effect.gen(function* () {
      const logs = captureLogs()
      yield* Effect.gen(function* () {
        const { controller } = yield* startController(() => Effect.succeed(done()), {
          forKind: { group: "cluster.x-k8s.io", kind: "Cluster" },
        })
        yield* controller.enqueue(req("c1"))
        yield* settle
      }).pipe(Effect.provide(logs.layer), Effect.provideService(References.MinimumLogLevel, "Debug"))
      const ok = logs.lines.find((l) => String(l.message).includes("Reconcile done"))
      assert.strictEqual(ok?.controllerGroup, "cluster.x-k8s.io")
      assert.strictEqual(ok?.controllerKind, "Cluster")
      assert.deepStrictEqual(ok?.Cluster, { name: "c1", namespace: "ns" })
    }),
  )

  it.effect("a stop takes no new work and waits for in-flight reconciles", () =>
    Effect.gen(function* () {
      let finished = 0
      const { controller, scope, attempts } = yield* startController(() =>
        Effect.as(
          Effect.andThen(
            Effect.sleep("5 seconds"),
            Effect.sync(() => finished++),
          ),
          done(),
        ),
      )
      yield* controller.enqueue(req("a"))
      yield* controller.enqueue(req("b"))
      yield* settle
      const closing = yield* Effect.forkChild(Scope.close(scope, Exit.void))
      yield* settle
      assert.isUndefined(closing.pollUnsafe(), "the stop waits")
      yield* TestClock.adjust("5 seconds")
      yield* Fiber.join(closing)
      assert.strictEqual(finished, 1, "the in-flight reconcile finished")
      assert.isUndefined(attempts.get("b"), "the waiting request was not started")
    }),
  )

  it.effect("a stop interrupts reconciles still running after the graceful timeout (30 s)", () =>
    Effect.gen(function* () {
      let finished = false
      const { controller, scope } = yield* startController(() =>
        Effect.as(
          Effect.andThen(
            Effect.sleep("1 hour"),
            Effect.sync(() => {
              finished = true
            }),
          ),
          done(),
        ),
      )
      yield* controller.enqueue(req("a"))
      yield* settle
      const closing = yield* Effect.forkChild(Scope.close(scope, Exit.void))
      yield* TestClock.adjust("29 seconds")
      assert.isUndefined(closing.pollUnsafe())
      yield* TestClock.adjust("1 second")
      yield* Fiber.join(closing)
      assert.isFalse(finished)
      assert.strictEqual(yield* controller.activeWorkers, 0, "the interrupted reconcile is no longer counted")
    }),
  )
})
