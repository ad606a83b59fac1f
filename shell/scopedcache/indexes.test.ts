// Index fields of the scoped cache, for running informers and later ones (`indexes.ts`).
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { cms, dep, names, setup } from "./testing.ts"

describe("ScopedCache: index fields", () => {
  it.effect("indexField applies to running informers and to later ones", () =>
    Effect.gen(function* () {
      const { cache } = yield* setup()
      yield* cache.start
      yield* cache.addInformer({ resource: cms, namespace: "a", dependent: dep("d1") })
      yield* cache.indexField(cms, "v", (o) => [String((o.data as { v?: string } | undefined)?.v ?? "")])
      yield* cache.addInformer({ resource: cms, namespace: "b", dependent: dep("d1") })
      assert.deepStrictEqual(names(yield* cache.list(cms, { index: { name: "v", value: "two" } })), ["a/two"])
      assert.deepStrictEqual(names(yield* cache.list(cms, { index: { name: "v", value: "three" } })), [
        "b/three",
      ])
    }),
  )

  it.effect("the first index of a name wins, for running informers and later ones", () =>
    Effect.gen(function* () {
      const { cache } = yield* setup()
      yield* cache.start
      yield* cache.addInformer({ resource: cms, namespace: "a", dependent: dep("d1") })
      yield* cache.indexField(cms, "k", (o) => [o.metadata.name ?? ""])
      yield* cache.indexField(cms, "k", () => ["other"])
      yield* cache.addInformer({ resource: cms, namespace: "b", dependent: dep("d1") })
      assert.deepStrictEqual(names(yield* cache.list(cms, { index: { name: "k", value: "one" } })), ["a/one"])
      assert.deepStrictEqual(names(yield* cache.list(cms, { index: { name: "k", value: "three" } })), [
        "b/three",
      ])
      assert.deepStrictEqual(yield* cache.list(cms, { index: { name: "k", value: "other" } }), [])
    }),
  )
})
