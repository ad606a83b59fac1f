import { assert, describe, it } from "@effect/vitest"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Random from "effect/Random"
import * as Result from "effect/Result"
import * as Scope from "effect/Scope"
import { TestClock } from "effect/testing"
import { makeMemoryClient } from "../apiserver/memoryClient.ts"
import { FakeApiServer } from "../apiserver/server.ts"
import { mergePatch } from "../kube/patch.ts"
import { type KubeObject, Resources } from "../kube/resource.ts"
import { ReflectorDefaults } from "./options.ts"
import { make, type ReflectorEvent, type ReflectorOptions } from "./reflector.ts"

const cms = Resources.configMaps
const cm = (name: string, labels: Record<string, string> = {}): KubeObject => ({
  metadata: { name, namespace: "default", labels },
  data: { v: "1" },
})
const settle = Effect.repeat(Effect.yieldNow, { times: 50 })
const describeEvent = (e: ReflectorEvent<KubeObject>) => `${e._tag}:${e.object.metadata.name}`

/** A random service that always draws `x`, to pin the random watch timeout. */
const fixedRandom = (x: number) =>
  Effect.provideService(Random.Random, { nextIntUnsafe: () => 0, nextDoubleUnsafe: () => x })

/** A fake, a client over it, and a reflector on configmaps recording its events. */
const setup = (
  options: Partial<ReflectorOptions<KubeObject>> = {},
  fakeOptions: { readonly bookmarkInterval?: Duration.Input } = {},
) =>
  Effect.gen(function* () {
    const fake = yield* FakeApiServer.make({ bookmarkInterval: fakeOptions.bookmarkInterval ?? "60 seconds" })
    const client = yield* makeMemoryClient(fake)
    const events: Array<string> = []
    const start = (extra: Partial<ReflectorOptions<KubeObject>> = {}) =>
      make(client, {
        resource: cms,
        watchTimeout: "1 hour",
        backoff: { jitter: 0 },
        handlers: [(e) => Effect.sync(() => events.push(describeEvent(e)))],
        ...options,
        ...extra,
      })
    return { fake, api: fake.client(), events, start }
  })

describe("Reflector", () => {
  it.effect(
    "lists in pages, watches from the list's resourceVersion, and keeps store and handlers in step",
    () =>
      Effect.gen(function* () {
        const { fake, api, events, start } = yield* setup({ pageSize: 2 })
        for (const n of ["a", "b", "c", "d", "e"]) yield* api.create(cms, cm(n))
        const r = yield* start()
        yield* r.waitForSync
        assert.strictEqual(r.store.size(), 5)
        assert.deepStrictEqual(events, ["Added:a", "Added:b", "Added:c", "Added:d", "Added:e"])
        yield* settle
        assert.strictEqual(fake.watchCount(cms), 1)
        yield* api.patch(cms, { namespace: "default", name: "a" }, mergePatch({ data: { v: "2" } }))
        yield* api.delete(cms, { namespace: "default", name: "b" })
        yield* api.create(cms, cm("f"))
        yield* settle
        assert.deepStrictEqual(events.slice(5), ["Updated:a", "Deleted:b", "Added:f"])
        assert.deepStrictEqual(r.store.get("default/a")?.data, { v: "2" })
        const status = yield* r.status
        assert.strictEqual(status.resourceVersion, fake.resourceVersion())
        assert.strictEqual(status.lists, 1)
      }),
  )

  it.effect("lists 500 per page by default (client-go's pager), and the page size is an option", () =>
    Effect.gen(function* () {
      assert.strictEqual(ReflectorDefaults.pageSize, 500)
      const fake = yield* FakeApiServer.make()
      const client = yield* makeMemoryClient(fake)
      const pages: Array<number | undefined> = []
      const spy = {
        ...client,
        listAll: ((ref, options) => {
          pages.push(options?.pageSize)
          return client.listAll(ref, options)
        }) as typeof client.listAll,
      }
      yield* (yield* make(spy, { resource: cms })).waitForSync
      yield* (yield* make(spy, { resource: cms, pageSize: 7 })).waitForSync
      assert.deepStrictEqual(pages, [500, 7])
    }),
  )

  it.effect(
    "asks each watch for a random server timeout in [5, 10) min (watchTimeout 5 min, as client-go)",
    () =>
      Effect.gen(function* () {
        assert.strictEqual(ReflectorDefaults.watchTimeout, "5 minutes")
        // Bookmarks every minute keep the watch from the inactivity timeout; the server ends it.
        const fake = yield* FakeApiServer.make({ bookmarkInterval: "60 seconds" })
        const r = yield* fixedRandom(0.5)(make(yield* makeMemoryClient(fake), { resource: cms }))
        yield* r.waitForSync
        yield* settle
        for (let i = 0; i < 449; i++) yield* TestClock.adjust("1 second")
        yield* settle
        assert.strictEqual((yield* r.status).watches, 1, "5 min × (1 + 0.5) = 450 s")
        yield* TestClock.adjust("1 second")
        yield* settle
        assert.strictEqual(
          (yield* r.status).watches,
          2,
          "the server ended the watch at 450 s; watched again at once",
        )
        assert.strictEqual((yield* r.status).lists, 1)
      }),
  )

  it.effect(
    "reports its phase: Listing, then Watching, Waiting while it backs off, lastError until it recovers",
    () =>
      Effect.gen(function* () {
        const { fake, start } = yield* setup()
        fake.inject({ verb: "list", error: "Unreachable", times: 1 })
        const r = yield* start()
        yield* settle
        const waiting = yield* r.status
        assert.strictEqual(waiting.phase, "Waiting")
        assert.strictEqual(waiting.lastError?._tag, "Unreachable")
        assert.isFalse(waiting.synced)
        yield* TestClock.adjust("800 millis")
        yield* settle
        const watching = yield* r.status
        assert.strictEqual(watching.phase, "Watching")
        assert.isTrue(watching.synced)
        assert.isUndefined(watching.lastError)
        assert.strictEqual(watching.lists, 2)
        assert.strictEqual(watching.watches, 1)
      }),
  )

  it.effect("lists and watches only the namespace and label selection it is given", () =>
    Effect.gen(function* () {
      const { api, events, start } = yield* setup()
      yield* api.create(cms, cm("in", { team: "a" }))
      yield* api.create(cms, cm("other-label", { team: "b" }))
      yield* api.create(cms, {
        ...cm("other-ns", { team: "a" }),
        metadata: { name: "other-ns", namespace: "kube-system", labels: { team: "a" } },
      })
      const r = yield* start({ namespace: "default", labelSelector: "team=a" })
      yield* r.waitForSync
      yield* settle
      yield* api.create(cms, cm("later", { team: "a" }))
      yield* api.create(cms, cm("later-b", { team: "b" }))
      yield* settle
      assert.deepStrictEqual(events, ["Added:in", "Added:later"])
      assert.deepStrictEqual([...r.store.keys()].sort(), ["default/in", "default/later"])
    }),
  )

  it.effect("a handler that dies does not keep the other handlers or the reflector from going on", () =>
    Effect.gen(function* () {
      const { api, events, start } = yield* setup()
      const r = yield* start({
        handlers: [() => Effect.die("boom"), (e) => Effect.sync(() => events.push(describeEvent(e)))],
      })
      yield* r.waitForSync
      yield* settle
      yield* api.create(cms, cm("a"))
      yield* api.create(cms, cm("b"))
      yield* settle
      assert.deepStrictEqual(events, ["Added:a", "Added:b"])
    }),
  )

  it.effect("bookmarks advance the tracked resourceVersion", () =>
    Effect.gen(function* () {
      const { fake, api, start } = yield* setup()
      const r = yield* start()
      yield* r.waitForSync
      yield* settle
      yield* api.create(Resources.secrets, { metadata: { name: "s", namespace: "default" } })
      assert.notStrictEqual((yield* r.status).resourceVersion, fake.resourceVersion())
      fake.bookmark()
      yield* settle
      assert.strictEqual((yield* r.status).resourceVersion, fake.resourceVersion())
    }),
  )

  it.effect("relists after 410 Gone and reports objects deleted meanwhile as Deleted", () =>
    Effect.gen(function* () {
      const { fake, api, events, start } = yield* setup()
      yield* api.create(cms, cm("a"))
      yield* api.create(cms, cm("b"))
      const r = yield* start()
      yield* r.waitForSync
      yield* settle
      // The watch breaks and cannot come back for a while; meanwhile b goes, c comes, history is compacted.
      fake.inject({ verb: "watch", error: "Unreachable" })
      fake.closeWatches()
      yield* settle
      fake.clearFaults()
      fake.inject({ verb: "watch", error: "Unreachable", times: 1 })
      yield* fake.client().delete(cms, { namespace: "default", name: "b" })
      yield* fake.client().create(cms, cm("c"))
      fake.compact()
      events.length = 0
      yield* TestClock.adjust("1 minute")
      yield* settle
      assert.deepStrictEqual(events, ["Deleted:b", "Added:c"])
      assert.deepStrictEqual([...r.store.keys()].sort(), ["default/a", "default/c"])
      assert.strictEqual((yield* r.status).lists, 2, "one relist")
    }),
  )

  it.effect(
    "restarts a watch that delivers nothing, not even a bookmark, for the inactivity timeout (5 min)",
    () =>
      Effect.gen(function* () {
        const { start } = yield* setup({}, { bookmarkInterval: "0 millis" })
        const r = yield* start()
        yield* r.waitForSync
        yield* settle
        assert.strictEqual((yield* r.status).watches, 1)
        yield* TestClock.adjust("299 seconds")
        assert.strictEqual((yield* r.status).watches, 1)
        yield* TestClock.adjust("1 second")
        yield* settle
        assert.strictEqual((yield* r.status).watches, 2)
        assert.strictEqual((yield* r.status).lists, 1, "a restart is a watch, not a relist")
      }),
  )

  it.effect("keeps a watch with bookmarks (every minute) open past the inactivity timeout", () =>
    Effect.gen(function* () {
      const { start } = yield* setup()
      const r = yield* start()
      yield* r.waitForSync
      for (let i = 0; i < 10; i++) yield* TestClock.adjust("1 minute")
      yield* settle
      assert.strictEqual((yield* r.status).watches, 1)
    }),
  )

  it.effect(
    "backs off 800 ms, 1.6 s, 3.2 s … 30 s between failed reconnects, and recovers when the server is back",
    () =>
      Effect.gen(function* () {
        const { fake, api, events, start } = yield* setup()
        const r = yield* start()
        yield* r.waitForSync
        yield* settle
        fake.stop()
        const attempts: Array<number> = []
        let seen = (yield* r.status).watches
        for (let t = 100; t <= 140_400; t += 100) {
          yield* TestClock.adjust("100 millis")
          const now = (yield* r.status).watches
          if (now > seen) attempts.push(t)
          seen = now
        }
        const gaps = attempts.map((t, i) => t - (i === 0 ? 0 : (attempts[i - 1] ?? 0)))
        assert.deepStrictEqual(gaps, [800, 1600, 3200, 6400, 12800, 25600, 30000, 30000, 30000])
        assert.strictEqual((yield* r.status).lastError?._tag, "Unreachable")
        fake.start()
        yield* api.create(cms, cm("late"))
        yield* TestClock.adjust("30 seconds")
        yield* settle
        assert.include(events, "Added:late")
        assert.isUndefined((yield* r.status).lastError)
      }),
  )

  it.effect("survives an API server restart without losing changes made right after it", () =>
    Effect.gen(function* () {
      const { fake, api, events, start } = yield* setup()
      const r = yield* start()
      yield* r.waitForSync
      yield* settle
      fake.restart()
      yield* api.create(cms, cm("after-restart"))
      yield* TestClock.adjust("1 second")
      yield* settle
      assert.deepStrictEqual(events, ["Added:after-restart"])
      assert.strictEqual((yield* r.status).lists, 1, "resumed from the last resourceVersion, no relist")
    }),
  )

  it.effect("hasSynced turns true only after a first list succeeds", () =>
    Effect.gen(function* () {
      const { fake, start } = yield* setup()
      fake.inject({ verb: "list", error: "Forbidden", times: 2 })
      const r = yield* start()
      yield* settle
      assert.isFalse(yield* r.hasSynced)
      yield* TestClock.adjust("800 millis")
      yield* settle
      assert.isFalse(yield* r.hasSynced)
      yield* TestClock.adjust("1600 millis")
      yield* settle
      assert.isTrue(yield* r.hasSynced)
    }),
  )

  it.effect("subscribe replays the store as Added, then follows; closing the scope unsubscribes", () =>
    Effect.gen(function* () {
      const { api, start } = yield* setup({ handlers: [] })
      yield* api.create(cms, cm("a"))
      const r = yield* start()
      yield* r.waitForSync
      const seen: Array<string> = []
      const scope = yield* Scope.make()
      yield* Scope.provide(
        r.subscribe((e) => Effect.sync(() => seen.push(describeEvent(e)))),
        scope,
      )
      yield* api.create(cms, cm("b"))
      yield* settle
      yield* Scope.close(scope, Exit.void)
      yield* api.create(cms, cm("c"))
      yield* settle
      assert.deepStrictEqual(seen, ["Added:a", "Added:b"])
    }),
  )

  it.effect("closing its scope stops the reflector and its watch", () =>
    Effect.gen(function* () {
      const { fake, start } = yield* setup()
      const scope = yield* Scope.make()
      const r = yield* Scope.provide(start(), scope)
      yield* r.waitForSync
      yield* settle
      assert.strictEqual(fake.watchCount(), 1)
      yield* Scope.close(scope, Exit.void)
      yield* settle
      assert.strictEqual(fake.watchCount(), 0)
    }),
  )

  it.effect("keeps objects that do not decode out of the store and lists them", () =>
    Effect.gen(function* () {
      const { api, events, start } = yield* setup()
      yield* api.create(cms, cm("good"))
      yield* api.create(cms, cm("bad", { broken: "yes" }))
      const r = yield* start({
        decode: (o) => (o.metadata.labels?.broken ? Result.fail("label broken is set") : Result.succeed(o)),
      })
      yield* r.waitForSync
      assert.deepStrictEqual(r.store.keys(), ["default/good"])
      assert.deepStrictEqual([...(yield* r.undecodable)], [["default/bad", "label broken is set"]])
      yield* api.patch(
        cms,
        { namespace: "default", name: "good" },
        mergePatch({ metadata: { labels: { broken: "yes" } } }),
      )
      yield* settle
      assert.strictEqual(r.store.size(), 0)
      assert.deepStrictEqual(
        events,
        ["Added:good", "Deleted:good"],
        "an object that stops decoding is Deleted",
      )
      assert.deepStrictEqual([...(yield* r.undecodable)].map(([k]) => k).sort(), [
        "default/bad",
        "default/good",
      ])
      yield* api.delete(cms, { namespace: "default", name: "bad" })
      yield* settle
      assert.deepStrictEqual(
        [...(yield* r.undecodable)].map(([k]) => k),
        ["default/good"],
        "deleted: no longer listed",
      )
      assert.deepStrictEqual(
        events,
        ["Added:good", "Deleted:good"],
        "deleting an object not in the store tells no handler",
      )
    }),
  )
})
