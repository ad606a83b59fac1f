import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { makeMemoryClient } from "../apiserver/memoryClient.ts"
import { FakeApiServer } from "../apiserver/server.ts"
import { informerCacheFactory } from "../cache/informerCache.ts"
import { Resources } from "../kube/resource.ts"
import { makeCluster } from "../multicluster/cluster.ts"
import { asScopedCache, makeScopedCacheFactory, scopedCacheFactory } from "./factory.ts"
import { InvalidScopedCacheOptionsError } from "./options.ts"
import type { ScopedCache } from "./scopedCache.ts"

const cms = Resources.configMaps

describe("scopedCacheFactory", () => {
  it.effect("makes a started-on-getInformer scoped cache per cluster, as providers use it", () =>
    Effect.gen(function* () {
      const fake = yield* FakeApiServer.make()
      const client = yield* makeMemoryClient(fake)
      yield* fake.client().create(cms, { metadata: { namespace: "a", name: "x" } })
      const cache = yield* scopedCacheFactory(client, { cluster: "c1" })
      assert.isTrue(yield* cache.isStarted, "started by the factory, as providers do not call start")
      const informer = yield* cache.getInformer(cms, { namespace: "a" })
      yield* informer.waitForSync
      assert.deepStrictEqual(informer.store.keys(), ["a/x"])
      assert.strictEqual(
        yield* cache.getInformer(cms, { namespace: "a" }),
        informer,
        "the same informer again",
      )
      const scoped = asScopedCache(cache)
      assert.isDefined(scoped)
      assert.deepStrictEqual(
        (yield* scoped?.informers ?? Effect.succeed([])).map((i) => i.dependents.map((d) => d.kind)),
        [["GetInformer"]],
      )
      assert.strictEqual((yield* cache.get(cms, { namespace: "a", name: "x" })).metadata.name, "x")
    }),
  )

  it.effect("without startOnGetInformer, getInformer finds existing informers only", () =>
    Effect.gen(function* () {
      const fake = yield* FakeApiServer.make()
      const client = yield* makeMemoryClient(fake)
      const cache = yield* makeScopedCacheFactory()(client, { cluster: "c1" })
      assert.strictEqual(
        (yield* Effect.flip(cache.getInformer(cms, { namespace: "a" })))._tag,
        "InformerNotFound",
      )
    }),
  )

  it.effect("a multi-cluster Cluster built on it finds its informers through getInformer", () =>
    Effect.gen(function* () {
      const fake = yield* FakeApiServer.make()
      const client = yield* makeMemoryClient(fake)
      yield* fake.client().create(cms, { metadata: { namespace: "b", name: "y" } })
      const cluster = yield* makeCluster({ client, cacheFactory: scopedCacheFactory })
      const informer = yield* cluster.cache.getInformer(cms, { namespace: "b" })
      yield* informer.waitForSync
      assert.deepStrictEqual(informer.store.keys(), ["b/y"])
      assert.deepStrictEqual(
        (yield* cluster.cache.list(cms, { namespace: "b" })).map((o) => o.metadata.name),
        ["y"],
      )
    }),
  )

  it.effect("an informer added by getInformer stops with its last subscription", () =>
    Effect.gen(function* () {
      const fake = yield* FakeApiServer.make()
      const client = yield* makeMemoryClient(fake)
      const cache = yield* scopedCacheFactory(client, { cluster: "c1" })
      const scoped = asScopedCache(cache) as ScopedCache
      const kinds = Effect.map(scoped.informers, (all) => all.map((i) => i.dependents.map((d) => d.kind)))
      const informer = yield* cache.getInformer(cms, { namespace: "a" })
      const first = yield* Scope.make()
      const second = yield* Scope.make()
      yield* informer.subscribe(() => Effect.void).pipe(Scope.provide(first))
      // The first subscription takes the place of getInformer's dependent.
      assert.deepStrictEqual(yield* kinds, [["Subscription"]])
      // getInformer again (another controller) holds it until that one subscribes too.
      assert.strictEqual(yield* cache.getInformer(cms, { namespace: "a" }), informer)
      yield* informer.subscribe(() => Effect.void).pipe(Scope.provide(second))
      assert.deepStrictEqual(yield* kinds, [["Subscription", "Subscription"]])
      yield* Scope.close(first, Exit.void)
      assert.strictEqual(yield* scoped.runningCount, 1)
      yield* Scope.close(second, Exit.void)
      assert.deepStrictEqual(yield* kinds, [])
      assert.strictEqual(yield* scoped.runningCount, 0)
      assert.strictEqual(
        (yield* Effect.flip(cache.get(cms, { namespace: "a", name: "x" })))._tag,
        "InformerNotFound",
      )
    }),
  )

  it.effect("an informer with an addInformer dependent outlives its subscriptions", () =>
    Effect.gen(function* () {
      const fake = yield* FakeApiServer.make()
      const client = yield* makeMemoryClient(fake)
      const cache = yield* scopedCacheFactory(client, { cluster: "c1" })
      const scoped = asScopedCache(cache) as ScopedCache
      yield* scoped.addInformer({ resource: cms, namespace: "a", dependent: { uid: "tenant-a" } })
      const informer = yield* cache.getInformer(cms, { namespace: "a" })
      const subscription = yield* Scope.make()
      yield* informer.subscribe(() => Effect.void).pipe(Scope.provide(subscription))
      yield* Scope.close(subscription, Exit.void)
      assert.deepStrictEqual(
        (yield* scoped.informers).map((i) => i.dependents.map((d) => d.uid)),
        [["tenant-a"]],
      )
      assert.strictEqual(yield* scoped.runningCount, 1)
    }),
  )

  it("bad options throw when the factory is made, naming the field", () => {
    assert.throws(
      () => makeScopedCacheFactory({ acessReview: true } as never),
      InvalidScopedCacheOptionsError,
    )
  })

  it.effect("asScopedCache tells a scoped cache from the informer cache", () =>
    Effect.gen(function* () {
      const fake = yield* FakeApiServer.make()
      const client = yield* makeMemoryClient(fake)
      assert.isUndefined(asScopedCache(yield* informerCacheFactory(client, { cluster: "c1" })))
    }),
  )
})
