/**
 * The semantics the chaos perturbations depend on ("resourceVersion conflicts,
 * finalizers and deletion timestamps, status subresource, 410 on compacted watches"), each held
 * to what kube-apiserver does.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"
import type { KubeError } from "../kube/errors.ts"
import { mergePatch } from "../kube/patch.ts"
import { type KubeObject, type ResourceRef, Resources } from "../kube/resource.ts"
import type { WatchEvent } from "../kube/watch.ts"
import { failure, settle, widgets } from "./fixtures.ts"
import { FakeApiServer } from "./server.ts"

const gadgets: ResourceRef = { ...widgets, resource: "gadgets", kind: "Gadget" }
const configMaps = Resources.configMaps
const key = (name: string) => ({ namespace: "default", name })
const widget = (name: string, finalizers?: ReadonlyArray<string>): KubeObject => ({
  metadata: { name, namespace: "default", ...(finalizers ? { finalizers } : {}) },
  spec: { size: 1 },
})
const cm = (name: string): KubeObject => ({ metadata: { name, namespace: "default" }, data: { a: "1" } })

/** The events a watch delivers until `settle`, then the watch is interrupted. */
const eventsOf = (stream: Stream.Stream<WatchEvent, KubeError>) =>
  Effect.gen(function* () {
    const events: Array<string> = []
    const fiber = yield* Effect.forkChild(
      Stream.runForEach(stream, (e) =>
        Effect.sync(() =>
          events.push(`${e.type}:${e.type === "ERROR" ? e.object.code : e.object.metadata.name}`),
        ),
      ),
    )
    yield* settle
    yield* Fiber.interrupt(fiber)
    return events
  })

describe("resourceVersion conflicts", () => {
  it.effect("patch, update and their /status forms with a stale resourceVersion fail with Conflict", () =>
    Effect.gen(function* () {
      const api = (yield* FakeApiServer.make()).client()
      const v1 = yield* api.create(widgets, widget("w"))
      const stale = v1.metadata.resourceVersion
      yield* api.patch(widgets, key("w"), mergePatch({ metadata: { labels: { a: "b" } } }))
      assert.strictEqual(
        yield* failure(
          api.patch(
            widgets,
            key("w"),
            mergePatch({ metadata: { resourceVersion: stale, labels: { c: "d" } } }),
          ),
        ),
        "Conflict",
      )
      assert.strictEqual(
        yield* failure(
          api.patchStatus(
            widgets,
            key("w"),
            mergePatch({ metadata: { resourceVersion: stale }, status: { ready: true } }),
          ),
        ),
        "Conflict",
      )
      assert.strictEqual(
        yield* failure(api.updateStatus(widgets, { ...v1, status: { ready: true } })),
        "Conflict",
      )
      const { resourceVersion: _, ...unconditional } = v1.metadata
      const replaced = yield* api.update(widgets, { ...v1, metadata: unconditional, spec: { size: 2 } })
      assert.deepStrictEqual(replaced.spec, { size: 2 }, "an update without resourceVersion is unconditional")
      assert.isUndefined(replaced.metadata.labels, "a PUT replaces the labels it does not carry")
    }),
  )
})

describe("finalizers and deletionTimestamp", () => {
  it.effect("a second delete of a finalizing object changes nothing: same resourceVersion, no event", () =>
    Effect.gen(function* () {
      const fake = yield* FakeApiServer.make()
      const api = fake.client()
      yield* api.create(widgets, widget("w", ["x"]))
      const first = yield* api.delete(widgets, key("w"))
      const log: Array<string> = []
      fake.onCommit((c) => log.push(c.type))
      const second = yield* api.delete(widgets, key("w"))
      assert.strictEqual(second?.metadata.resourceVersion, first?.metadata.resourceVersion)
      assert.strictEqual(second?.metadata.deletionTimestamp, first?.metadata.deletionTimestamp)
      assert.deepStrictEqual(log, [])
    }),
  )

  it.effect("no finalizer may be added while deleting, by patch or update; removing one is allowed", () =>
    Effect.gen(function* () {
      const api = (yield* FakeApiServer.make()).client()
      yield* api.create(widgets, widget("w", ["a", "b"]))
      yield* api.delete(widgets, key("w"))
      const error = yield* Effect.flip(
        api.patch(widgets, key("w"), mergePatch({ metadata: { finalizers: ["a", "b", "c"] } })),
      )
      assert.strictEqual(error._tag, "Invalid")
      assert.include(error.message, "metadata.finalizers")
      const swapped = yield* failure(
        api.patch(widgets, key("w"), mergePatch({ metadata: { finalizers: ["a", "c"] } })),
      )
      assert.strictEqual(swapped, "Invalid", "a swap adds one")
      const one = yield* api.patch(widgets, key("w"), mergePatch({ metadata: { finalizers: ["b"] } }))
      assert.deepStrictEqual(one.metadata.finalizers, ["b"])
      assert.isString(one.metadata.deletionTimestamp)
    }),
  )

  it.effect("the deletion fields cannot be written: deletionTimestamp on create or update is dropped", () =>
    Effect.gen(function* () {
      const api = (yield* FakeApiServer.make()).client()
      const created = yield* api.create(widgets, {
        ...widget("w", ["x"]),
        metadata: { ...widget("w", ["x"]).metadata, deletionTimestamp: "2000-01-01T00:00:00Z" },
      })
      assert.isUndefined(created.metadata.deletionTimestamp)
      const updated = yield* api.update(widgets, {
        ...created,
        metadata: { ...created.metadata, deletionTimestamp: "2000-01-01T00:00:00Z" },
      })
      assert.isUndefined(updated.metadata.deletionTimestamp)
      assert.deepStrictEqual(updated.metadata.finalizers, ["x"])
    }),
  )
})

describe("status subresource", () => {
  it.effect("the main resource keeps the stored status; /status keeps spec and metadata", () =>
    Effect.gen(function* () {
      const api = (yield* FakeApiServer.make()).client()
      yield* api.create(widgets, widget("w"))
      const withStatus = yield* api.patchStatus(widgets, key("w"), mergePatch({ status: { ready: true } }))
      const main = yield* api.update(widgets, { ...withStatus, status: { ready: false } })
      assert.deepStrictEqual(main.status, { ready: true })
      const statusWrite = yield* api.updateStatus(widgets, {
        ...main,
        metadata: { ...main.metadata, labels: { sneaky: "yes" }, finalizers: ["sneaky"] },
        spec: { size: 9 },
        status: { ready: false },
      })
      assert.deepStrictEqual(statusWrite.status, { ready: false })
      assert.deepStrictEqual(statusWrite.spec, { size: 1 })
      assert.isUndefined(statusWrite.metadata.labels, "/status ignores metadata")
      assert.isUndefined(statusWrite.metadata.finalizers)
      assert.strictEqual(statusWrite.metadata.generation, 1)
    }),
  )

  it.effect(
    "without the subresource status is an ordinary field: written by the main resource, counted by generation",
    () =>
      Effect.gen(function* () {
        const fake = yield* FakeApiServer.make()
        fake.register(gadgets, { status: false })
        const api = fake.client()
        const created = yield* api.create(gadgets, { ...widget("g"), status: { ready: true } })
        assert.deepStrictEqual(created.status, { ready: true })
        const updated = yield* api.update(gadgets, { ...created, status: { ready: false } })
        assert.deepStrictEqual(updated.status, { ready: false })
        assert.strictEqual(updated.metadata.generation, 2)
        assert.strictEqual(yield* failure(api.getStatus(configMaps, key("none"))), "NotFound")
        assert.strictEqual(
          yield* failure(api.patchStatus(gadgets, key("g"), mergePatch({ status: {} }))),
          "NotFound",
        )
      }),
  )
})

/** Three writes on a new server (rv 1): "a" created (rv 2), "b" created (rv 3), "a" deleted (rv 4). */
const aThenBThenNotA = Effect.gen(function* () {
  const fake = yield* FakeApiServer.make()
  const api = fake.client()
  yield* api.create(configMaps, cm("a"))
  yield* api.create(configMaps, cm("b"))
  yield* api.delete(configMaps, key("a"))
  return { fake, api }
})

describe("list and watch resourceVersion semantics", () => {
  it.effect('at "0" a list and a watch serve the current state, even after a compaction', () =>
    Effect.gen(function* () {
      const { fake, api } = yield* aThenBThenNotA
      fake.compact()
      const list = yield* api.list(configMaps, { resourceVersion: "0" })
      assert.deepStrictEqual(
        list.items.map((o) => o.metadata.name),
        ["b"],
      )
      assert.strictEqual(list.resourceVersion, "4")
      assert.deepStrictEqual(yield* eventsOf(api.watch(configMaps, { resourceVersion: "0" })), ["ADDED:b"])
      assert.deepStrictEqual(
        yield* eventsOf(api.watch(configMaps, { resourceVersion: "3" })),
        ["ERROR:410"],
        "a compacted resourceVersion is 410",
      )
      assert.deepStrictEqual(yield* eventsOf(api.watch(configMaps, { resourceVersion: "4" })), [])
    }),
  )

  it.effect('a new server lists at a resourceVersion, not at "0": a watch from it replays later writes', () =>
    Effect.gen(function* () {
      const api = (yield* FakeApiServer.make()).client()
      const empty = yield* api.list(configMaps, { namespace: "default" })
      assert.deepStrictEqual(empty.items, [])
      assert.notStrictEqual(empty.resourceVersion, "0")
      yield* api.create(configMaps, cm("a"))
      yield* api.delete(configMaps, key("a"))
      assert.deepStrictEqual(
        yield* eventsOf(
          api.watch(configMaps, { namespace: "default", resourceVersion: empty.resourceVersion }),
        ),
        ["ADDED:a", "DELETED:a"],
      )
    }),
  )

  it.effect(
    "a resourceVersion the server has not reached is a 504 Timeout (Too large resource version)",
    () =>
      Effect.gen(function* () {
        const api = (yield* FakeApiServer.make()).client()
        yield* api.create(configMaps, cm("a"))
        const listed = yield* Effect.flip(api.list(configMaps, { resourceVersion: "7" }))
        assert.strictEqual(listed._tag, "Timeout")
        assert.include(listed.message, "Too large resource version: 7, current: 2")
        const watched = yield* Effect.flip(Stream.runDrain(api.watch(configMaps, { resourceVersion: "7" })))
        assert.strictEqual(watched._tag, "Timeout")
        assert.strictEqual(yield* failure(api.list(configMaps, { resourceVersion: "x" })), "ApiError")
      }),
  )

  it.effect("Exact lists the snapshot at that revision, Gone once compacted; the match needs a version", () =>
    Effect.gen(function* () {
      const { fake, api } = yield* aThenBThenNotA
      const then = yield* api.list(configMaps, { resourceVersion: "2", resourceVersionMatch: "Exact" })
      assert.deepStrictEqual(
        then.items.map((o) => o.metadata.name),
        ["a"],
      )
      assert.strictEqual(then.resourceVersion, "2")
      const now = yield* api.list(configMaps, { resourceVersion: "2", resourceVersionMatch: "NotOlderThan" })
      assert.deepStrictEqual(
        now.items.map((o) => o.metadata.name),
        ["b"],
      )
      fake.compact(3)
      assert.strictEqual(
        yield* failure(api.list(configMaps, { resourceVersion: "2", resourceVersionMatch: "Exact" })),
        "Gone",
      )
      const unsupported = yield* Effect.flip(
        api.list(configMaps, { resourceVersion: "1", resourceVersionMatch: "Latest" as "Exact" }),
      )
      assert.strictEqual(unsupported._tag, "Invalid")
      assert.include(unsupported.message, 'resourceVersionMatch: Unsupported value: "Latest"')
      const unmatched = yield* Effect.flip(api.list(configMaps, { resourceVersionMatch: "Exact" }))
      assert.strictEqual(unmatched._tag, "Invalid")
      assert.include(unmatched.message, "resourceVersionMatch")
      assert.strictEqual(
        yield* failure(api.list(configMaps, { resourceVersion: "0", resourceVersionMatch: "Exact" })),
        "Invalid",
      )
    }),
  )

  it.effect("later pages of a list come from the first page's snapshot", () =>
    Effect.gen(function* () {
      const api = (yield* FakeApiServer.make()).client()
      for (const n of ["a", "b", "c", "d"]) yield* api.create(configMaps, cm(n))
      const first = yield* api.list(configMaps, { limit: 2 })
      yield* api.delete(configMaps, key("c"))
      yield* api.create(configMaps, cm("e"))
      const second = yield* api.list(configMaps, { limit: 2, continue: first.continue })
      assert.deepStrictEqual(
        second.items.map((o) => o.metadata.name),
        ["c", "d"],
      )
      assert.isUndefined(second.continue)
      assert.strictEqual(second.resourceVersion, first.resourceVersion)
    }),
  )
})
