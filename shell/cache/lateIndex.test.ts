import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { KubeObject } from "../kube/resource.ts"
import type { EventHandler } from "../reflector/reflector.ts"
import { Store } from "../reflector/store.ts"
import { IndexedStore, LateIndex } from "./lateIndex.ts"

const cm = (namespace: string, name: string, team: ReadonlyArray<string>): KubeObject => ({
  metadata: { namespace, name, annotations: { team: team.join(",") } },
})
const teams = (o: KubeObject) => (o.metadata.annotations?.team ?? "").split(",").filter((t) => t !== "")
const names = (objects: ReadonlyArray<KubeObject>) => objects.map((o) => o.metadata.name).sort()

describe("LateIndex", () => {
  it("keeps each object under its values once, and moves it when they change", () => {
    const index = new LateIndex(teams)
    index.set(cm("a", "x", ["red", "blue"]))
    index.set(cm("a", "y", ["red"]))
    index.set(cm("a", "x", ["blue"]))
    assert.deepStrictEqual(index.keys("red"), ["a/y"])
    assert.deepStrictEqual(index.keys("blue"), ["a/x"])
    index.remove("a/y")
    assert.deepStrictEqual(index.keys("red"), [])
    assert.deepStrictEqual(index.values(), ["blue"])
  })
})

describe("IndexedStore", () => {
  it.effect("fills a late index from the replayed store, follows events, and reads only live keys", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const inner = new Store<KubeObject>()
        inner.upsert(cm("a", "x", ["red"]))
        const store = new IndexedStore(inner)
        let handler: EventHandler<KubeObject> | undefined
        const subscribe = (h: EventHandler<KubeObject>) =>
          Effect.gen(function* () {
            handler = h
            for (const object of inner.list()) yield* h({ _tag: "Added", object })
          })
        assert.isFalse(store.hasLateIndex("team"))
        yield* store.addIndex("team", teams, subscribe)
        assert.isTrue(store.hasLateIndex("team"))
        assert.deepStrictEqual(names(store.byIndex("team", "red")), ["x"])
        const y = cm("a", "y", ["red"])
        inner.upsert(y)
        yield* handler?.({ _tag: "Added", object: y }) ?? Effect.void
        assert.deepStrictEqual(names(store.byIndex("team", "red")), ["x", "y"])
        assert.deepStrictEqual(store.indexValues("team"), ["red"])
        // The store drops x before the handler hears of it: the read leaves x out.
        const x = inner.get("a/x") as KubeObject
        inner.remove("a/x")
        assert.deepStrictEqual(names(store.byIndex("team", "red")), ["y"])
        // Then the handler hears of it: the index forgets x's values.
        const z = cm("a", "z", ["blue"])
        inner.upsert(z)
        yield* handler?.({ _tag: "Added", object: z }) ?? Effect.void
        assert.deepStrictEqual(store.indexValues("team").toSorted(), ["blue", "red"])
        yield* handler?.({ _tag: "Deleted", object: z }) ?? Effect.void
        yield* handler?.({ _tag: "Deleted", object: x }) ?? Effect.void
        assert.deepStrictEqual(store.indexValues("team"), ["red"])
        // Everything else is the store's own answer.
        assert.deepStrictEqual(names(store.byNamespace("a")), ["y", "z"])
        assert.deepStrictEqual(store.keys().toSorted(), ["a/y", "a/z"])
        assert.strictEqual(store.size(), 2)
        assert.deepStrictEqual(names(store.list()), ["y", "z"])
        assert.strictEqual(store.get("a/y"), y)
        assert.deepStrictEqual(store.byOwner("none"), [])
        assert.deepStrictEqual(store.byLabel("app", "none"), [])
        assert.deepStrictEqual(store.indexValues("other"), inner.indexValues("other"))
      }),
    ),
  )
})
