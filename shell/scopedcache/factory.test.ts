import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { makeMemoryClient } from "../apiserver/memoryClient.ts"
import { FakeApiServer } from "../apiserver/server.ts"
import { informerCacheFactory } from "../cache/informerCache.ts"
import { Resources } from "../kube/resource.ts"
import { makeCluster } from "../multicluster/cluster.ts"
import { asScopedCache, makeScopedCacheFactory, scopedCacheFactory } from "./factory.ts"
import { InvalidScopedCacheOptions } from "./options.ts"

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

  it("bad options throw when the factory is made, naming the field", () => {
    assert.throws(() => makeScopedCacheFactory({ acessReview: true } as never), InvalidScopedCacheOptions)
  })

  it.effect("asScopedCache tells a scoped cache from the informer cache", () =>
    Effect.gen(function* () {
      const fake = yield* FakeApiServer.make()
      const client = yield* makeMemoryClient(fake)
      assert.isUndefined(asScopedCache(yield* informerCacheFactory(client, { cluster: "c1" })))
    }),
  )
})
