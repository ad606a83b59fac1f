import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"
import { TestClock } from "effect/testing"
import type { KubeError } from "../kube/errors.ts"
import { applyPatch, jsonPatch, mergePatch } from "../kube/patch.ts"
import type { KubeObject, ResourceRef } from "../kube/resource.ts"
import { InitialEventsEndAnnotation, isInitialEventsEnd, type WatchEvent } from "../kube/watch.ts"
import { failure, settle, widgets } from "./fixtures.ts"
import { makeMemoryClient } from "./memoryClient.ts"
import { FakeApiServer } from "./server.ts"

const cm = (name: string, labels: Record<string, string> = {}, namespace = "default"): KubeObject => ({
  metadata: { name, namespace, labels },
  data: { a: "1" },
})
const widget = (name: string, spec: unknown = { size: 1 }): KubeObject => ({
  metadata: { name, namespace: "default" },
  spec,
})
const configMaps: ResourceRef = {
  group: "",
  version: "v1",
  resource: "configmaps",
  kind: "ConfigMap",
  namespaced: true,
}

/** Runs a watch in the background, collecting its events; `settle` lets it catch up. */
const collect = (stream: Stream.Stream<WatchEvent, KubeError>) =>
  Effect.gen(function* () {
    const events: Array<WatchEvent> = []
    const fiber = yield* Effect.forkChild(Stream.runForEach(stream, (e) => Effect.sync(() => events.push(e))))
    yield* settle
    return { events, fiber }
  })
const summary = (events: ReadonlyArray<WatchEvent>) =>
  events.map(
    (e) =>
      `${e.type}:${e.type === "ERROR" ? e.object.code : (e.object.metadata.name ?? e.object.metadata.resourceVersion)}`,
  )

describe("FakeApiServer objects", () => {
  it.effect(
    "create assigns uid, resourceVersion, generation 1 and rejects a taken name with AlreadyExists",
    () =>
      Effect.gen(function* () {
        const fake = yield* FakeApiServer.make()
        const api = fake.client()
        const created = yield* api.create(configMaps, cm("a"))
        assert.strictEqual(created.metadata.generation, 1)
        assert.strictEqual(created.metadata.resourceVersion, "2", "a new server is at 1, as a new etcd")
        assert.isString(created.metadata.uid)
        assert.strictEqual(created.apiVersion, "v1")
        assert.strictEqual(created.kind, "ConfigMap")
        assert.strictEqual(yield* failure(api.create(configMaps, cm("a"))), "AlreadyExists")
        assert.strictEqual(
          yield* failure(api.get(configMaps, { namespace: "default", name: "b" })),
          "NotFound",
        )
      }),
  )

  it.effect(
    "update with a stale resourceVersion fails with Conflict; a no-op update keeps the resourceVersion",
    () =>
      Effect.gen(function* () {
        const api = (yield* FakeApiServer.make()).client()
        const v1 = yield* api.create(configMaps, cm("a"))
        const v2 = yield* api.update(configMaps, { ...v1, data: { a: "2" } })
        assert.notStrictEqual(v2.metadata.resourceVersion, v1.metadata.resourceVersion)
        assert.strictEqual(yield* failure(api.update(configMaps, { ...v1, data: { a: "3" } })), "Conflict")
        const same = yield* api.update(configMaps, v2)
        assert.strictEqual(same.metadata.resourceVersion, v2.metadata.resourceVersion)
      }),
  )

  it.effect(
    "generation grows on spec changes only; the main resource ignores status and /status only status",
    () =>
      Effect.gen(function* () {
        const api = (yield* FakeApiServer.make()).client()
        const w = yield* api.create(widgets, { ...widget("w"), status: { ready: true } })
        assert.isUndefined(w.status, "status is dropped on create")
        const labelled = yield* api.patch(
          widgets,
          { namespace: "default", name: "w" },
          mergePatch({ metadata: { labels: { x: "y" } } }),
        )
        assert.strictEqual(labelled.metadata.generation, 1)
        const resized = yield* api.update(widgets, {
          ...labelled,
          spec: { size: 2 },
          status: { ready: true },
        })
        assert.strictEqual(resized.metadata.generation, 2)
        assert.isUndefined(resized.status)
        const withStatus = yield* api.updateStatus(widgets, {
          ...resized,
          spec: { size: 9 },
          status: { ready: true },
        })
        assert.deepStrictEqual(withStatus.status, { ready: true })
        assert.deepStrictEqual(withStatus.spec, { size: 2 })
        assert.strictEqual(withStatus.metadata.generation, 2)
        const patched = yield* api.patchStatus(
          widgets,
          { namespace: "default", name: "w" },
          mergePatch({ status: { ready: false } }),
        )
        assert.deepStrictEqual(patched.status, { ready: false })
        assert.strictEqual(yield* failure(api.updateStatus(configMaps, cm("nope"))), "NotFound")
      }),
  )

  it.effect("delete with finalizers sets deletionTimestamp; removing the last finalizer deletes", () =>
    Effect.gen(function* () {
      const api = (yield* FakeApiServer.make()).client()
      const key = { namespace: "default", name: "w" }
      yield* api.create(widgets, {
        ...widget("w"),
        metadata: { ...widget("w").metadata, finalizers: ["a", "b"] },
      })
      const deleting = yield* api.delete(widgets, key)
      assert.isString(deleting?.metadata.deletionTimestamp)
      const still = yield* api.get(widgets, key)
      assert.deepStrictEqual(still.metadata.finalizers, ["a", "b"])
      assert.strictEqual(
        yield* failure(
          api.update(widgets, { ...still, metadata: { ...still.metadata, finalizers: ["a", "b", "c"] } }),
        ),
        "Invalid",
      )
      const one = yield* api.patch(
        widgets,
        key,
        jsonPatch([{ op: "replace", path: "/metadata/finalizers", value: ["a"] }]),
      )
      assert.deepStrictEqual(one.metadata.finalizers, ["a"])
      yield* api.update(widgets, { ...one, metadata: { ...one.metadata, finalizers: [] } })
      assert.strictEqual(yield* failure(api.get(widgets, key)), "NotFound")
    }),
  )

  it.effect("delete checks uid and resourceVersion preconditions", () =>
    Effect.gen(function* () {
      const api = (yield* FakeApiServer.make()).client()
      const created = yield* api.create(configMaps, cm("a"))
      const key = { namespace: "default", name: "a" }
      assert.strictEqual(
        yield* failure(api.delete(configMaps, key, { preconditions: { uid: "other" } })),
        "Conflict",
      )
      const gone = yield* api.delete(configMaps, key, { preconditions: { uid: created.metadata.uid } })
      assert.strictEqual(gone?.metadata.name, "a")
      assert.strictEqual(yield* failure(api.delete(configMaps, key)), "NotFound")
    }),
  )

  it.effect("server-side apply creates and merges, and needs a fieldManager", () =>
    Effect.gen(function* () {
      const api = (yield* FakeApiServer.make()).client()
      const key = { namespace: "default", name: "w" }
      assert.strictEqual(yield* failure(api.patch(widgets, key, applyPatch(widget("w")))), "ApiError")
      const created = yield* api.patch(widgets, key, applyPatch(widget("w")), {
        fieldManager: "krtt",
        force: true,
      })
      assert.strictEqual(created.metadata.generation, 1)
      const merged = yield* api.patch(widgets, key, applyPatch({ spec: { color: "red" } }), {
        fieldManager: "krtt",
      })
      assert.deepStrictEqual(merged.spec, { size: 1, color: "red" })
      assert.strictEqual(merged.metadata.generation, 2)
      assert.strictEqual(
        yield* failure(api.patch(widgets, { namespace: "default", name: "x" }, mergePatch({}))),
        "NotFound",
      )
    }),
  )

  it.effect(
    "list pages with limit and continue, selects by label, and a continue token older than a compaction is Gone",
    () =>
      Effect.gen(function* () {
        const fake = yield* FakeApiServer.make()
        const api = fake.client()
        for (const n of ["a", "b", "c", "d", "e"])
          yield* api.create(configMaps, cm(n, { tier: n < "c" ? "front" : "back" }))
        yield* api.create(configMaps, cm("z", {}, "other"))
        const first = yield* api.list(configMaps, { namespace: "default", limit: 2 })
        assert.deepStrictEqual(
          first.items.map((o) => o.metadata.name),
          ["a", "b"],
        )
        assert.strictEqual(first.remainingItemCount, 3)
        const second = yield* api.list(configMaps, {
          namespace: "default",
          limit: 2,
          continue: first.continue,
        })
        assert.deepStrictEqual(
          second.items.map((o) => o.metadata.name),
          ["c", "d"],
        )
        assert.strictEqual(second.resourceVersion, first.resourceVersion)
        const all = yield* api.listAll(configMaps, { pageSize: 2 })
        assert.strictEqual(all.items.length, 6)
        const back = yield* api.list(configMaps, { labelSelector: "tier in (back)" })
        assert.deepStrictEqual(
          back.items.map((o) => o.metadata.name),
          ["c", "d", "e"],
        )
        yield* api.create(configMaps, cm("f"))
        fake.compact()
        assert.strictEqual(
          yield* failure(api.list(configMaps, { limit: 2, continue: second.continue })),
          "Gone",
        )
      }),
  )
})

describe("FakeApiServer watches", () => {
  it.effect("replays history after a resourceVersion, then follows live changes", () =>
    Effect.gen(function* () {
      const api = (yield* FakeApiServer.make()).client()
      const a = yield* api.create(configMaps, cm("a"))
      yield* api.create(configMaps, cm("b"))
      const { events } = yield* collect(
        api.watch(configMaps, { resourceVersion: a.metadata.resourceVersion }),
      )
      yield* api.delete(configMaps, { namespace: "default", name: "a" })
      yield* settle
      assert.deepStrictEqual(summary(events), ["ADDED:b", "DELETED:a"])
    }),
  )

  it.effect(
    "without a resourceVersion sends the current objects as ADDED, with sendInitialEvents then the end bookmark",
    () =>
      Effect.gen(function* () {
        const api = (yield* FakeApiServer.make()).client()
        yield* api.create(configMaps, cm("a"))
        const { events } = yield* collect(
          api.watch(configMaps, { sendInitialEvents: true, allowWatchBookmarks: true }),
        )
        assert.deepStrictEqual(summary(events), ["ADDED:a", "BOOKMARK:2"])
        const end = events[1]
        assert.isTrue(end !== undefined && end.type === "BOOKMARK" && isInitialEventsEnd(end))
        assert.strictEqual(
          end?.type === "BOOKMARK" && end.object.metadata.annotations?.[InitialEventsEndAnnotation],
          "true",
        )
      }),
  )

  it.effect("label-selected watches see objects enter as ADDED and leave as DELETED", () =>
    Effect.gen(function* () {
      const api = (yield* FakeApiServer.make()).client()
      const { events } = yield* collect(api.watch(configMaps, { labelSelector: "app=web" }))
      const key = { namespace: "default", name: "a" }
      yield* api.create(configMaps, cm("a"))
      yield* api.patch(configMaps, key, mergePatch({ metadata: { labels: { app: "web" } } }))
      yield* api.patch(configMaps, key, mergePatch({ data: { a: "2" } }))
      yield* api.patch(configMaps, key, mergePatch({ metadata: { labels: { app: null } } }))
      yield* settle
      assert.deepStrictEqual(summary(events), ["ADDED:a", "MODIFIED:a", "DELETED:a"])
    }),
  )

  it.effect("sends bookmarks every bookmarkInterval and ends at timeoutSeconds", () =>
    Effect.gen(function* () {
      const fake = yield* FakeApiServer.make({ bookmarkInterval: "10 seconds" })
      const { events, fiber } = yield* collect(
        fake.client().watch(configMaps, { allowWatchBookmarks: true, timeoutSeconds: 25 }),
      )
      yield* TestClock.adjust("21 seconds")
      assert.deepStrictEqual(summary(events), ["BOOKMARK:1", "BOOKMARK:1"])
      yield* TestClock.adjust("5 seconds")
      assert.isTrue(Exit.isSuccess(yield* Fiber.await(fiber)), "the watch ends cleanly")
      assert.strictEqual(fake.watchCount(), 0)
    }),
  )

  it.effect("counts open watches per client name, until each ends", () =>
    Effect.gen(function* () {
      const fake = yield* FakeApiServer.make()
      const a = yield* collect(fake.client("operator#0").watch(configMaps, { namespace: "default" }))
      yield* collect(fake.client().watch(configMaps))
      yield* TestClock.adjust("1 second")
      assert.deepStrictEqual(
        [...fake.openWatches()].sort((x, y) => String(x.client).localeCompare(String(y.client))),
        [
          { client: "operator#0", resource: "/configmaps", namespace: "default" },
          { client: undefined, resource: "/configmaps", namespace: undefined },
        ],
      )
      yield* Fiber.interrupt(a.fiber)
      assert.deepStrictEqual(
        fake.openWatches().map((w) => w.client),
        [undefined],
      )
    }),
  )

  it.effect(
    "a watch from a compacted resourceVersion gets an ERROR 410 frame; expireWatches does the same to open ones",
    () =>
      Effect.gen(function* () {
        const fake = yield* FakeApiServer.make()
        const api = fake.client()
        yield* api.create(configMaps, cm("a"))
        yield* api.create(configMaps, cm("b"))
        fake.compact()
        const old = yield* collect(api.watch(configMaps, { resourceVersion: "1" }))
        assert.deepStrictEqual(summary(old.events), ["ERROR:410"])
        const live = yield* collect(api.watch(configMaps, { resourceVersion: "2" }))
        fake.expireWatches()
        yield* settle
        assert.deepStrictEqual(summary(live.events), ["ERROR:410"])
        assert.isTrue(Exit.isSuccess(yield* Fiber.await(live.fiber)))
      }),
  )

  it.effect("stop() breaks open watches with Unreachable and refuses calls until start()", () =>
    Effect.gen(function* () {
      const fake = yield* FakeApiServer.make()
      const api = fake.client()
      const { fiber } = yield* collect(api.watch(configMaps))
      fake.stop()
      const exit = yield* Fiber.await(fiber)
      assert.isTrue(Exit.isFailure(exit))
      assert.strictEqual(yield* failure(api.list(configMaps)), "Unreachable")
      assert.strictEqual(yield* failure(api.probe()), "Unreachable")
      fake.start()
      assert.strictEqual((yield* api.list(configMaps)).items.length, 0)
    }),
  )
})

describe("FakeApiServer faults", () => {
  it.effect("inject fails matching calls the given number of times", () =>
    Effect.gen(function* () {
      const fake = yield* FakeApiServer.make()
      const api = fake.client()
      fake.inject({ verb: "list", resource: "configmaps", error: "Unauthorized", times: 1 })
      fake.inject({ verb: "create", error: "Forbidden" })
      assert.strictEqual(yield* failure(api.list(configMaps)), "Unauthorized")
      assert.strictEqual((yield* api.list(configMaps)).items.length, 0)
      assert.strictEqual(yield* failure(api.create(configMaps, cm("a"))), "Forbidden")
      fake.clearFaults()
      yield* api.create(configMaps, cm("a"))
    }),
  )

  it.effect(
    "a delayed answer beyond the client timeout fails with Timeout (10 s by default) on virtual time",
    () =>
      Effect.gen(function* () {
        const fake = yield* FakeApiServer.make()
        const client = yield* makeMemoryClient(fake)
        fake.inject({ verb: "probe", delay: "11 seconds", times: 1 })
        const probe = yield* Effect.forkChild(Effect.flip(client.probe()))
        yield* TestClock.adjust("9999 millis")
        assert.isUndefined(probe.pollUnsafe())
        yield* TestClock.adjust("1 millis")
        const error = yield* Fiber.join(probe)
        assert.strictEqual(error._tag, "Timeout")
        fake.inject({ verb: "probe", delay: "3 seconds", times: 1 })
        const quick = yield* Effect.forkChild(client.probe({ timeout: "5 seconds" }))
        yield* TestClock.adjust("3 seconds")
        assert.isTrue(Exit.isSuccess(yield* Fiber.await(quick)))
      }),
  )
})
