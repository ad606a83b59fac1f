import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Result from "effect/Result"
import * as Scope from "effect/Scope"
import { TestClock } from "effect/testing"
import { makeMemoryClient } from "../apiserver/memoryClient.ts"
import { FakeApiServer } from "../apiserver/server.ts"
import { mergePatch } from "../kube/patch.ts"
import { type KubeObject, Resources } from "../kube/resource.ts"
import { InformerCacheDefaults, informerCacheFactory, makeInformerCache } from "./informerCache.ts"

const cms = Resources.configMaps
const cm = (namespace: string, name: string, labels: Record<string, string> = {}): KubeObject => ({
  metadata: { name, namespace, labels },
  data: { owner: `${name}-owner` },
})
const settle = Effect.repeat(Effect.yieldNow, { times: 50 })
const names = (objects: ReadonlyArray<KubeObject>) => objects.map((o) => o.metadata.name ?? "").sort()

const setup = Effect.gen(function* () {
  const fake = yield* FakeApiServer.make()
  const client = yield* makeMemoryClient(fake)
  const api = fake.client()
  for (const [ns, n] of [
    ["a", "one"],
    ["a", "two"],
    ["b", "three"],
  ] as const)
    yield* api.create(cms, cm(ns, n, { app: n === "two" ? "web" : "db" }))
  return { fake, client, api }
})

describe("informerCache", () => {
  it.effect("shares one informer (one watch) per resource and scope between concurrent first uses", () =>
    Effect.gen(function* () {
      const { fake, client } = yield* setup
      const cache = yield* informerCacheFactory(client, { cluster: "c1" })
      const [x, y] = yield* Effect.all([cache.getInformer(cms), cache.getInformer(cms)], {
        concurrency: "unbounded",
      })
      assert.strictEqual(x, y)
      yield* x.waitForSync
      yield* settle
      assert.strictEqual(fake.watchCount(cms), 1)
      const inA = yield* cache.getInformer(cms, { namespace: "a" })
      assert.notStrictEqual(inA, x)
      assert.strictEqual(inA.namespace, "a")
      assert.strictEqual(yield* cache.getInformer(cms, { namespace: "a" }), inA)
    }),
  )

  it.effect("get and list read from the store; a list in a namespace filters, labels select", () =>
    Effect.gen(function* () {
      const { client } = yield* setup
      const cache = yield* makeInformerCache(client, { cluster: "c1" })
      assert.deepStrictEqual(names(yield* cache.list(cms)), ["one", "three", "two"])
      assert.deepStrictEqual(names(yield* cache.list(cms, { namespace: "a" })), ["one", "two"])
      assert.deepStrictEqual(names(yield* cache.list(cms, { labelSelector: "app=db" })), ["one", "three"])
      const got = yield* cache.get(cms, { namespace: "b", name: "three" })
      assert.strictEqual(got.metadata.name, "three")
      const missing = yield* Effect.flip(cache.get(cms, { namespace: "b", name: "nope" }))
      assert.strictEqual(missing._tag, "NotFound")
      assert.include(missing.message, 'cluster "c1"')
    }),
  )

  it.effect("a read in a namespace uses the all-namespaces informer when it exists", () =>
    Effect.gen(function* () {
      const { fake, client } = yield* setup
      const cache = yield* makeInformerCache(client, { cluster: "c1" })
      yield* cache.list(cms)
      yield* cache.list(cms, { namespace: "a" })
      yield* settle
      assert.strictEqual(fake.watchCount(cms), 1)
    }),
  )

  it.effect("with namespaces set, a list without namespace merges their informers without duplicates", () =>
    Effect.gen(function* () {
      const { fake, client } = yield* setup
      const cache = yield* makeInformerCache(client, { cluster: "c1", namespaces: ["a", "b"] })
      assert.deepStrictEqual(names(yield* cache.list(cms)), ["one", "three", "two"])
      yield* settle
      assert.strictEqual(fake.watchCount(cms), 2)
      const outside = yield* Effect.flip(cache.list(cms, { namespace: "c" }))
      assert.strictEqual(outside._tag, "InformerNotFound")
      assert.include(outside.message, "watches only namespaces a, b")
      // cluster-scoped resources are not restricted
      yield* fake.client().create(Resources.namespaces, { metadata: { name: "a" } })
      assert.deepStrictEqual(names(yield* cache.list(Resources.namespaces)), ["a"])
    }),
  )

  it.effect(
    "indexField applies to informers that exist (filled from the store, then kept) and to later ones",
    () =>
      Effect.gen(function* () {
        const { client, api } = yield* setup
        const cache = yield* makeInformerCache(client, { cluster: "c1" })
        const byOwner = (o: KubeObject) => [String((o.data as Record<string, string>).owner)]
        const informer = yield* cache.getInformer(cms)
        yield* informer.waitForSync
        yield* cache.indexField(cms, "owner-field", byOwner)
        assert.deepStrictEqual(
          names(yield* cache.list(cms, { index: { name: "owner-field", value: "two-owner" } })),
          ["two"],
        )
        yield* api.patch(cms, { namespace: "a", name: "two" }, mergePatch({ data: { owner: "x" } }))
        yield* api.create(cms, cm("b", "four"))
        yield* settle
        assert.deepStrictEqual(
          names(yield* cache.list(cms, { index: { name: "owner-field", value: "x" } })),
          ["two"],
        )
        assert.deepStrictEqual(
          names(yield* cache.list(cms, { index: { name: "owner-field", value: "two-owner" } })),
          [],
        )
        assert.deepStrictEqual(
          names(yield* cache.list(cms, { index: { name: "owner-field", value: "four-owner" } })),
          ["four"],
        )
        // a later informer (namespace b) gets the index from its start
        const inB = yield* cache.getInformer(cms, { namespace: "b" })
        yield* inB.waitForSync
        assert.deepStrictEqual(names(inB.store.byIndex("owner-field", "three-owner")), ["three"])
      }),
  )

  it.effect("getInformerForKind resolves the kind through discovery; an unknown kind is NotFound", () =>
    Effect.gen(function* () {
      const { client } = yield* setup
      const cache = yield* makeInformerCache(client, { cluster: "c1" })
      const informer = yield* cache.getInformerForKind({ group: "", version: "v1", kind: "ConfigMap" })
      assert.strictEqual(informer.resource.resource, "configmaps")
      assert.strictEqual(informer, yield* cache.getInformer(cms))
      const err = yield* Effect.flip(cache.getInformerForKind({ group: "", version: "v1", kind: "Nope" }))
      assert.strictEqual(err._tag, "NotFound")
    }),
  )

  it.effect("waitForCacheSync waits for every informer; false once the cache has stopped", () =>
    Effect.gen(function* () {
      const { fake, client } = yield* setup
      const scope = yield* Scope.make()
      const cache = yield* makeInformerCache(client, { cluster: "c1" }).pipe(Scope.provide(scope))
      yield* Scope.provide(cache.start, scope)
      assert.isTrue(yield* cache.isStarted)
      fake.stop()
      yield* cache.getInformer(cms)
      const waiting = yield* Effect.forkChild(cache.waitForCacheSync)
      yield* TestClock.adjust("5 seconds")
      assert.isUndefined(waiting.pollUnsafe())
      fake.start()
      yield* TestClock.adjust("1 minute")
      assert.isTrue(yield* Fiber.join(waiting))
      yield* Scope.close(scope, Exit.void)
      assert.isFalse(yield* cache.waitForCacheSync)
      assert.isFalse(yield* cache.isStarted)
      const after = yield* Effect.flip(cache.getInformer(cms))
      assert.strictEqual(after._tag, "InformerNotFound")
      assert.include(after.message, "has stopped")
    }),
  )

  it.effect("a read of an informer that cannot sync fails with Timeout after syncTimeout (2 min)", () =>
    Effect.gen(function* () {
      assert.strictEqual(InformerCacheDefaults.syncTimeout, "2 minutes")
      const { fake, client } = yield* setup
      const cache = yield* makeInformerCache(client, { cluster: "c1" })
      fake.stop()
      const read = yield* Effect.forkChild(Effect.result(cache.list(cms)))
      yield* TestClock.adjust("119 seconds")
      assert.isUndefined(read.pollUnsafe())
      yield* TestClock.adjust("1 second")
      const r = yield* Fiber.join(read)
      assert.isTrue(Result.isFailure(r) && r.failure._tag === "Timeout")
    }),
  )

  it.effect("closing the factory's scope stops the informers (their watches close)", () =>
    Effect.gen(function* () {
      const { fake, client } = yield* setup
      const scope = yield* Scope.make()
      const cache = yield* informerCacheFactory(client, { cluster: "c1" }).pipe(Scope.provide(scope))
      yield* cache.list(cms)
      yield* settle
      assert.strictEqual(fake.watchCount(cms), 1)
      yield* Scope.close(scope, Exit.void)
      yield* settle
      assert.strictEqual(fake.watchCount(cms), 0)
    }),
  )
})
