// The stop on 403 through the registry's table (scopedcache.informers "permission lost"): the
// informer stops, its dependents are told once, reads get Forbidden, adding it again works
// (`operate.ts`, `actions.ts`, `informer.ts`).
import { assert, describe, it } from "@effect/vitest"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Logger from "effect/Logger"
import { TestClock } from "effect/testing"
import { INFORMERS_ROW } from "../../core/scopedcache/informers.ts"
import { Forbidden } from "../kube/errors.ts"
import { type InformerHooks, reflectorInformerFactory } from "./informer.ts"
import { cms, collect, dep, names, running, settle, setup } from "./testing.ts"

describe("ScopedCache: permission loss (403) and return", () => {
  it.effect(
    "a list answered 403 stops the informer at once; its dependents get one event; reads get Forbidden; one log line",
    () => {
      const lines: Array<string> = []
      const capture = Logger.layer([
        Logger.make(({ message }) => lines.push(String(Array.isArray(message) ? message[0] : message))),
      ])
      return Effect.gen(function* () {
        const { fake, cache } = yield* setup()
        const events = yield* collect(cache)
        yield* cache.start
        fake.inject({ verb: "list", namespace: "b", error: "Forbidden" })
        yield* cache.addInformer({ resource: cms, namespace: "a", dependent: dep("d1") })
        yield* cache.addInformer({ resource: cms, namespace: "b", dependent: dep("d1") })
        yield* cache.addInformer({ resource: cms, namespace: "b", dependent: dep("d2") })
        yield* settle
        assert.strictEqual(yield* running(cache), 1, "b stopped without any clock advance (< 1 s)")
        assert.deepStrictEqual(
          events.map((e) => [e._tag, e.ref.namespace, e.row, e.dependents.map((d) => d.uid)]),
          [["PermissionLost", "b", INFORMERS_ROW.permissionLost, ["d1", "d2"]]],
        )
        const event = events[0]
        assert.isDefined(event)
        assert.isAtMost((event?.stoppedAt ?? 0) - (event?.observedAt ?? 0), 1000)
        const read = yield* Effect.flip(cache.list(cms, { namespace: "b" }))
        assert.instanceOf(read, Forbidden)
        assert.include(read.message, "permission")
        const get = yield* Effect.flip(cache.get(cms, { namespace: "b", name: "three" }))
        assert.strictEqual(get._tag, "Forbidden")
        assert.deepStrictEqual(names(yield* cache.list(cms)), ["a/one", "a/two"], "a keeps working")
        // The reflector is stopped: no retry floods the log or the server.
        yield* TestClock.adjust("10 minutes")
        yield* settle
        assert.deepStrictEqual(
          lines.filter((l) => l.includes("forbidden") || l.includes("failed")),
          [lines.find((l) => l.includes("forbidden")) ?? "missing"],
        )
        assert.include(lines.find((l) => l.includes("forbidden")) ?? "", "informer b/v1/ConfigMap")
        // Permission comes back: adding the informer again works.
        fake.clearFaults()
        yield* cache.addInformer({ resource: cms, namespace: "b", dependent: dep("d1") })
        assert.deepStrictEqual(names(yield* cache.list(cms, { namespace: "b" })), ["b/three"])
        assert.strictEqual(yield* running(cache), 2)
      }).pipe(Effect.provide(capture))
    },
  )

  it.effect("a watch answered 403 after the sync stops a cluster-level informer too", () =>
    Effect.gen(function* () {
      const { fake, cache } = yield* setup()
      const events = yield* collect(cache)
      yield* cache.start
      yield* cache.addInformer({ resource: cms, dependent: dep("d1") })
      assert.isTrue(yield* cache.waitForCacheSync)
      yield* settle
      fake.inject({ verb: "watch", error: "Forbidden" })
      fake.closeWatches()
      // The server closed the watch without an event: the reflector re-watches after 800 ms.
      yield* TestClock.adjust("800 millis")
      yield* settle
      assert.strictEqual(yield* running(cache), 0)
      assert.deepStrictEqual(
        events.map((e) => [e._tag, e.ref.namespace]),
        [["PermissionLost", ""]],
      )
      const read = yield* Effect.flip(cache.get(cms, { namespace: "c", name: "four" }))
      assert.strictEqual(read._tag, "Forbidden")
      fake.clearFaults()
      yield* cache.addInformer({ resource: cms, dependent: dep("d1") })
      assert.strictEqual((yield* cache.get(cms, { namespace: "c", name: "four" })).metadata.name, "four")
    }),
  )

  it.effect("other failures are retried with backoff, not treated as permission loss", () =>
    Effect.gen(function* () {
      const { fake, cache } = yield* setup()
      yield* cache.start
      fake.inject({ verb: "list", namespace: "a", error: "Unreachable", times: 2 })
      yield* cache.addInformer({ resource: cms, namespace: "a", dependent: dep("d1") })
      const fiber = yield* Effect.forkChild(cache.list(cms, { namespace: "a" }))
      yield* TestClock.adjust("3 seconds")
      assert.deepStrictEqual(names(yield* Fiber.join(fiber)), ["a/one", "a/two"])
      assert.strictEqual(yield* running(cache), 1)
    }),
  )

  it.effect(
    "an informer whose scope does not close within stopTimeout is abandoned; its dependents are told",
    () => {
      const lines: Array<string> = []
      const capture = Logger.layer([
        Logger.make(({ message }) => lines.push(String(Array.isArray(message) ? message[0] : message))),
      ])
      return Effect.gen(function* () {
        const { cache } = yield* setup({
          informerFactory: (client, spec, hooks) =>
            Effect.tap(reflectorInformerFactory(client, spec, hooks), () =>
              Effect.addFinalizer(() => Effect.never),
            ),
        })
        const events = yield* collect(cache)
        yield* cache.start
        yield* cache.addInformer({ resource: cms, namespace: "a", dependent: dep("d1") })
        yield* settle
        const removedAt = yield* Clock.currentTimeMillis
        yield* cache.removeInformer({ resource: cms, namespace: "a", force: true })
        yield* settle
        assert.deepStrictEqual(events, [], "the event waits for the informer's scope")
        assert.strictEqual(yield* running(cache), 0)
        yield* TestClock.adjust("1 second")
        yield* settle
        assert.deepStrictEqual(
          events.map((e) => [e._tag, e.stoppedAt - removedAt]),
          [["InformerRemoved", 1000]],
        )
        assert.include(lines, "informer did not stop in time; abandoned")
      }).pipe(Effect.provide(capture))
    },
  )

  it.effect("an informer added again after its 403 makes the scope's loss forgotten", () =>
    Effect.gen(function* () {
      const { fake, cache } = yield* setup()
      yield* cache.start
      fake.inject({ verb: "list", namespace: "b", error: "Forbidden", times: 1 })
      yield* cache.addInformer({ resource: cms, namespace: "b", dependent: dep("d1") })
      yield* settle
      assert.strictEqual((yield* Effect.flip(cache.list(cms, { namespace: "b" })))._tag, "Forbidden")
      yield* cache.addInformer({ resource: cms, namespace: "b", dependent: dep("d1") })
      assert.deepStrictEqual(names(yield* cache.list(cms, { namespace: "b" })), ["b/three"])
      yield* cache.removeInformer({ resource: cms, namespace: "b", dependent: dep("d1") })
      const gone = yield* Effect.flip(cache.list(cms, { namespace: "b" }))
      assert.strictEqual(gone._tag, "InformerNotFound", "no informer, and no loss left in b")
    }),
  )

  it.effect("a 403 reported by a run that has ended is dropped; the running one's stops it", () =>
    Effect.gen(function* () {
      const hooks: Array<InformerHooks> = []
      const { cache } = yield* setup({
        informerFactory: (client, spec, h) => {
          hooks.push(h)
          return reflectorInformerFactory(client, spec, h)
        },
      })
      const events = yield* collect(cache)
      yield* cache.start
      yield* cache.addInformer({ resource: cms, namespace: "a", dependent: dep("d1") })
      yield* cache.removeInformer({ resource: cms, namespace: "a", dependent: dep("d1") })
      yield* cache.addInformer({ resource: cms, namespace: "a", dependent: dep("d1") })
      yield* settle
      const loss = (message: string) => ({
        verb: "watch" as const,
        error: new Forbidden({ verb: "watch", path: "/api/v1/namespaces/a/configmaps", message }),
        at: 0,
      })
      yield* (hooks[0] as InformerHooks).onForbidden(loss("late"))
      yield* settle
      assert.strictEqual(yield* running(cache), 1, "the first run's 403 comes too late")
      assert.deepStrictEqual(events, [])
      yield* (hooks[1] as InformerHooks).onForbidden(loss("now"))
      yield* settle
      assert.strictEqual(yield* running(cache), 0)
      assert.deepStrictEqual(
        events.map((e) => e._tag),
        ["PermissionLost"],
      )
      assert.include(events[0]?.message ?? "", "now")
    }),
  )
})
