// The scoped cache as `makeScopedCache` builds it from its options: default namespaces,
// selectors, transforms, list-options and key functions, and strict options.
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { makeMemoryClient } from "../apiserver/memoryClient.ts"
import { FakeApiServer } from "../apiserver/server.ts"
import { makeScopedCache } from "./scopedCache.ts"
import { cms, dep, names, running, settle, setup } from "./testing.ts"

describe("ScopedCache: options", () => {
  it.effect("default namespaces: an informer added without namespace watches each of them", () =>
    Effect.gen(function* () {
      const { fake, cache } = yield* setup({ defaultNamespaces: ["a", "c"] })
      yield* cache.start
      yield* cache.addInformer({ resource: cms, dependent: dep("d1") })
      yield* settle
      assert.strictEqual(fake.watchCount(cms), 2)
      assert.deepStrictEqual(names(yield* cache.list(cms)), ["a/one", "a/two", "c/four"])
      assert.strictEqual((yield* Effect.flip(cache.list(cms, { namespace: "b" })))._tag, "InformerNotFound")
      yield* cache.removeInformer({ resource: cms, dependent: dep("d1") })
      assert.strictEqual(yield* running(cache), 0)
    }),
  )

  it.effect("selectors and transforms by resource, a list-options function and a key function", () =>
    Effect.gen(function* () {
      const { cache } = yield* setup({
        byResource: {
          configmaps: {
            transform: (o) => ({
              ...o,
              data: undefined,
              metadata: { ...o.metadata, annotations: { t: "1" } },
            }),
          },
        },
        listOptions: ({ namespace }) => (namespace === "a" ? { labelSelector: "app=web" } : {}),
        keyOf: ({ namespace, labelSelector }) => `${namespace ?? "*"}:${labelSelector ?? "all"}`,
      })
      yield* cache.start
      yield* cache.addInformer({ resource: cms, namespace: "a", dependent: dep("d1") })
      const [info] = yield* cache.informers
      assert.strictEqual(info?.ref.key, "a:app=web")
      const listed = yield* cache.list(cms, { namespace: "a" })
      assert.deepStrictEqual(names(listed), ["a/two"])
      assert.deepStrictEqual(listed[0]?.metadata.annotations, { t: "1" })
      assert.isUndefined(listed[0]?.data)
    }),
  )

  it.effect("bad options fail with the field named", () =>
    Effect.gen(function* () {
      const fake = yield* FakeApiServer.make()
      const client = yield* makeMemoryClient(fake)
      const e = yield* Effect.flip(
        makeScopedCache(client, { cluster: "c1", stopTimout: "1 second" } as never),
      )
      assert.strictEqual(e.field, "stopTimout")
      assert.include(e.message, "did you mean stopTimeout?")
    }),
  )

  it.effect("informers lists every registered informer and whether it runs", () =>
    Effect.gen(function* () {
      const { cache } = yield* setup()
      yield* cache.addInformer({ resource: cms, namespace: "a", dependent: dep("d1") })
      const summary = Effect.map(cache.informers, (all) =>
        all.map((i) => [i.ref.namespace, i.state, i.dependents.map((d) => d.uid), i.running]),
      )
      assert.deepStrictEqual(yield* summary, [["a", "Pending", ["d1"], false]])
      yield* cache.start
      yield* settle
      assert.deepStrictEqual(yield* summary, [["a", "Synced", ["d1"], true]])
    }),
  )
})
