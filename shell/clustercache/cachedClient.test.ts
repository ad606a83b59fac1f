// The ClusterCache's cached client: reads from the cache, what goes to the API server instead,
// and the client-timeout limit of a cached read.
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { TestClock } from "effect/testing"
import { makeMemoryClient } from "../apiserver/memoryClient.ts"
import { FakeApiServer } from "../apiserver/server.ts"
import { makeInformerCache } from "../cache/informerCache.ts"
import { type Cache, informerNotFound } from "../cache/types.ts"
import type { KubeClientShape, ListOptions } from "../kube/client.ts"
import { Resources } from "../kube/resource.ts"
import { makeCachedClient, makeCachedReader } from "./cachedClient.ts"

const cms = Resources.configMaps
const key = { namespace: "default", name: "a" }

/** A live client that counts its gets and lists. */
const counting = (client: KubeClientShape) => {
  const calls = { get: 0, list: 0 }
  const live: KubeClientShape = {
    ...client,
    get: (r, k) =>
      Effect.suspend(() => {
        calls.get += 1
        return client.get(r, k)
      }),
    list: (r, o) =>
      Effect.suspend(() => {
        calls.list += 1
        return client.list(r, o)
      }),
  }
  return { live, calls }
}

const setup = Effect.gen(function* () {
  const fake = yield* FakeApiServer.make()
  yield* fake.client().create(cms, { metadata: { ...key, labels: { app: "x" } } })
  yield* fake.client().create(cms, { metadata: { namespace: "default", name: "b", labels: { app: "y" } } })
  yield* fake.client().create(cms, { metadata: { namespace: "other", name: "c", labels: { app: "x" } } })
  const { live, calls } = counting(yield* makeMemoryClient(fake))
  const cache = yield* makeInformerCache(live, { cluster: "c" })
  return { fake, live, calls, cache }
})

describe("makeCachedClient", () => {
  it.effect("get and list read the cache; page, point-in-time and field-selector lists go live", () =>
    Effect.gen(function* () {
      const { live, calls, cache } = yield* setup
      const client = makeCachedClient({ live, cache, timeout: "10 seconds" })
      assert.strictEqual((yield* client.get(cms, key)).metadata.name, "a")
      const listed = yield* client.list(cms, { namespace: "default", labelSelector: "app=x" })
      assert.deepStrictEqual(
        listed.items.map((o) => o.metadata.name),
        ["a"],
      )
      assert.strictEqual(listed.resourceVersion, "", "a cache has no resourceVersion of its own")
      assert.strictEqual((yield* client.list(cms, { fieldSelector: "" })).items.length, 3)
      assert.deepStrictEqual(calls, { get: 0, list: 0 })
      const serverLists: ReadonlyArray<ListOptions> = [
        { limit: 1 },
        { continue: "x" },
        { resourceVersion: "0" },
        { resourceVersionMatch: "NotOlderThan" },
        { fieldSelector: "metadata.name=a" },
      ]
      for (const o of serverLists) yield* Effect.ignore(client.list(cms, o))
      assert.deepStrictEqual(calls, { get: 0, list: serverLists.length })
      // Everything else is the live client's.
      yield* client.create(cms, { metadata: { namespace: "default", name: "new" } })
      assert.strictEqual((yield* live.get(cms, { namespace: "default", name: "new" })).metadata.name, "new")
    }),
  )

  it.effect("disableFor: those resources are read live, others from the cache", () =>
    Effect.gen(function* () {
      const { live, calls, cache } = yield* setup
      const reader = makeCachedReader({ live, cache, timeout: "10 seconds", disableFor: [cms] })
      yield* reader.get(cms, key)
      yield* reader.list(cms)
      assert.deepStrictEqual(calls, { get: 1, list: 1 })
      yield* Effect.ignore(reader.get(Resources.secrets, key))
      // The same resource name in another group is not disabled.
      yield* Effect.ignore(reader.get({ ...cms, group: "example.com" }, key).pipe(Effect.timeout("1 second")))
      assert.deepStrictEqual(calls, { get: 1, list: 1 })
    }),
  )

  it.effect("a read the cache has no informer for goes live", () =>
    Effect.gen(function* () {
      const { live, calls, cache } = yield* setup
      const none: Cache = {
        ...cache,
        get: (r, k) => Effect.fail(informerNotFound(r, k.namespace)),
        list: (r, o) => Effect.fail(informerNotFound(r, o?.namespace)),
      }
      const reader = makeCachedReader({ live, cache: none, timeout: "10 seconds" })
      assert.strictEqual((yield* reader.get(cms, key)).metadata.name, "a")
      assert.strictEqual((yield* reader.list(cms)).items.length, 3)
      assert.deepStrictEqual(calls, { get: 1, list: 1 })
    }),
  )

  it.effect("a cached read waits at most the timeout, then fails with Timeout naming it", () =>
    Effect.gen(function* () {
      const { live, cache } = yield* setup
      const hanging: Cache = { ...cache, get: () => Effect.never, list: () => Effect.never }
      const reader = makeCachedReader({ live, cache: hanging, timeout: "3 seconds" })
      const get = yield* Effect.forkChild(Effect.flip(reader.get(cms, key)))
      const list = yield* Effect.forkChild(Effect.flip(reader.list(cms, { namespace: "default" })))
      yield* TestClock.adjust("2999 millis")
      assert.isUndefined(get.pollUnsafe())
      yield* TestClock.adjust("1 millis")
      const [g, l] = [yield* Fiber.join(get), yield* Fiber.join(list)]
      assert.strictEqual(g._tag, "Timeout")
      assert.strictEqual(l._tag, "Timeout")
      assert.include(g.message, "3s")
      assert.strictEqual(g.verb, "list")
      assert.strictEqual(l.path, "/api/v1/namespaces/default/configmaps")
    }),
  )
})
