// Reads served only by existing informers (scopedcache.reads rows), the cache's own errors, field
// selectors and pages, on the in-memory API server and virtual time (`reads.ts`).
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { TestClock } from "effect/testing"
import {
  CacheNotFound,
  CacheNotStarted,
  InformerForbidden,
  InvalidContinueToken,
  isCacheError,
} from "./errors.ts"
import { cm, cms, dep, names, namespaces, running, secrets, settle, setup } from "./testing.ts"

describe("ScopedCache: reads only from existing informers", () => {
  it.effect("no informer → InformerNotFound; informer without the object → the API's NotFound", () =>
    Effect.gen(function* () {
      const { cache } = yield* setup()
      const early = yield* Effect.flip(cache.get(cms, { namespace: "a", name: "one" }))
      assert.strictEqual(early._tag, "InformerNotFound", "before Start (reads row 1)")
      yield* cache.start
      const none = yield* Effect.flip(cache.get(cms, { namespace: "a", name: "one" }))
      assert.strictEqual(none._tag, "InformerNotFound")
      assert.include(none.message, "no informer")
      yield* cache.addInformer({ resource: cms, namespace: "a", dependent: dep("d1") })
      const one = yield* cache.get(cms, { namespace: "a", name: "one" })
      assert.strictEqual(one.metadata.name, "one")
      const missing = yield* Effect.flip(cache.get(cms, { namespace: "a", name: "nope" }))
      assert.strictEqual(missing._tag, "NotFound")
      const elsewhere = yield* Effect.flip(cache.get(cms, { namespace: "b", name: "three" }))
      assert.strictEqual(elsewhere._tag, "InformerNotFound", "namespace b has no informer")
      const otherKind = yield* Effect.flip(cache.list(secrets, { namespace: "a" }))
      assert.strictEqual(otherKind._tag, "InformerNotFound")
    }),
  )

  it.effect(
    "a list across namespaces merges their informers without duplicates; a namespace list stays in it",
    () =>
      Effect.gen(function* () {
        const { cache } = yield* setup()
        yield* cache.start
        yield* cache.addInformer({ resource: cms, namespace: "a", dependent: dep("d1") })
        yield* cache.addInformer({ resource: cms, namespace: "b", dependent: dep("d1") })
        yield* cache.addInformer({
          resource: cms,
          namespace: "a",
          labelSelector: "app=web",
          key: "web",
          dependent: dep("d2"),
        })
        assert.deepStrictEqual(names(yield* cache.list(cms)), ["a/one", "a/two", "b/three"])
        assert.deepStrictEqual(names(yield* cache.list(cms, { namespace: "a" })), ["a/one", "a/two"])
        assert.deepStrictEqual(names(yield* cache.list(cms, { labelSelector: "app=db" })), [
          "a/one",
          "b/three",
        ])
        const inC = yield* Effect.flip(cache.list(cms, { namespace: "c" }))
        assert.strictEqual(inC._tag, "InformerNotFound")
      }),
  )

  it.effect("a cluster-level informer serves every namespace and covers the namespace ones", () =>
    Effect.gen(function* () {
      const { fake, cache } = yield* setup()
      yield* cache.start
      yield* cache.addInformer({ resource: cms, namespace: "a", dependent: dep("d1") })
      yield* cache.addInformer({ resource: cms, dependent: dep("d2") })
      yield* settle
      assert.strictEqual(yield* running(cache), 1, "the namespace informer is Covered and stopped")
      assert.strictEqual(fake.watchCount(cms), 1)
      assert.deepStrictEqual(names(yield* cache.list(cms, { namespace: "c" })), ["c/four"])
      assert.deepStrictEqual(names(yield* cache.list(cms)), ["a/one", "a/two", "b/three", "c/four"])
      yield* cache.removeInformer({ resource: cms, dependent: dep("d2") })
      yield* settle
      assert.strictEqual(yield* running(cache), 1, "the namespace informer runs again")
      assert.deepStrictEqual(names(yield* cache.list(cms)), ["a/one", "a/two"])
    }),
  )

  it.effect("getInformer returns an existing informer only; its handlers see the store and changes", () =>
    Effect.gen(function* () {
      const { api, cache } = yield* setup()
      yield* cache.start
      const before = yield* Effect.flip(cache.getInformer(cms, { namespace: "a" }))
      assert.strictEqual(before._tag, "InformerNotFound")
      yield* cache.addInformer({ resource: cms, namespace: "a", dependent: dep("d1") })
      const informer = yield* cache.getInformer(cms, { namespace: "a" })
      yield* informer.waitForSync
      const seen: Array<string> = []
      yield* informer.subscribe((e) => Effect.sync(() => seen.push(`${e._tag}:${e.object.metadata.name}`)))
      yield* api.create(cms, cm("a", "five"))
      yield* settle
      assert.deepStrictEqual(seen.sort(), ["Added:five", "Added:one", "Added:two"])
      assert.strictEqual(informer.namespace, "a")
    }),
  )

  it.effect("cluster-scoped resources are read at cluster level", () =>
    Effect.gen(function* () {
      const { api, cache } = yield* setup()
      yield* api.create(namespaces, { metadata: { name: "a" } })
      yield* cache.start
      yield* cache.addInformer({ resource: namespaces, namespace: "ignored", dependent: dep("d1") })
      const a = yield* cache.get(namespaces, { name: "a" })
      assert.strictEqual(a.metadata.name, "a")
      assert.strictEqual((yield* cache.informers)[0]?.ref.namespace, "")
    }),
  )
})

describe("ScopedCache: the cache's own errors, told apart from the API server's", () => {
  it.effect("CacheNotStarted, CacheNotFound and InformerForbidden keep the tags handlers catch", () =>
    Effect.gen(function* () {
      const { fake, cache } = yield* setup()
      yield* cache.addInformer({ resource: cms, namespace: "a", dependent: dep("d1") })
      // An informer is registered: the read waits for Start (scopedcache.reads row 5).
      const early = yield* Effect.flip(cache.list(cms, { namespace: "a" }))
      assert.instanceOf(early, CacheNotStarted)
      assert.strictEqual(early._tag, "InformerNotFound")
      assert.isTrue(isCacheError(early))
      assert.strictEqual(early.message, 'the cache of cluster "c1" is not started, can not read objects')
      yield* cache.start
      const missing = yield* Effect.flip(cache.get(cms, { namespace: "a", name: "nope" }))
      assert.instanceOf(missing, CacheNotFound)
      assert.strictEqual(missing._tag, "NotFound")
      assert.strictEqual((missing as CacheNotFound).origin, "cache")
      assert.strictEqual(missing.message, 'configmaps "a/nope" not found in the scoped cache of cluster "c1"')
      assert.strictEqual(
        missing._tag === "NotFound" ? `${missing.verb} ${missing.path}` : "",
        "get /api/v1/namespaces/a/configmaps/nope",
      )
      // The API server's own NotFound is not the cache's.
      const live = yield* Effect.flip(fake.client().get(cms, { namespace: "a", name: "nope" }))
      assert.notInstanceOf(live, CacheNotFound)
      assert.isFalse(isCacheError(live))
      fake.inject({ verb: "list", namespace: "b", error: "Forbidden" })
      yield* cache.addInformer({ resource: cms, namespace: "b", dependent: dep("d1") })
      yield* settle
      const forbidden = yield* Effect.flip(cache.get(cms, { namespace: "b", name: "three" }))
      assert.instanceOf(forbidden, InformerForbidden)
      assert.strictEqual(forbidden._tag, "Forbidden")
      const caught = yield* cache
        .get(cms, { namespace: "a", name: "nope" })
        .pipe(Effect.catchTag("NotFound", (e) => Effect.succeed(e instanceof CacheNotFound)))
      assert.isTrue(caught)
    }),
  )
})

describe("ScopedCache: list with field selectors, limit and continue", () => {
  it.effect("field selectors filter; pages follow the continue token to the end", () =>
    Effect.gen(function* () {
      const { cache } = yield* setup()
      yield* cache.start
      yield* cache.addInformer({ resource: cms, dependent: dep("d1") })
      assert.deepStrictEqual(names(yield* cache.list(cms, { fieldSelector: "metadata.name=two" })), ["a/two"])
      assert.deepStrictEqual(
        names(yield* cache.list(cms, { fieldSelector: "metadata.namespace!=a,metadata.name!=four" })),
        ["b/three"],
      )
      const first = yield* cache.listPage(cms, { limit: 3 })
      assert.deepStrictEqual(names(first.items), ["a/one", "a/two", "b/three"])
      assert.strictEqual(first.remainingItemCount, 1)
      assert.isString(first.continue)
      const second = yield* cache.listPage(cms, { limit: 3, continue: first.continue })
      assert.deepStrictEqual(names(second.items), ["c/four"])
      assert.isUndefined(second.continue)
      assert.deepStrictEqual(names(yield* cache.list(cms, { limit: 2 })), ["a/one", "a/two"])
      const bad = yield* Effect.flip(cache.list(cms, { continue: "not-a-token" }))
      assert.instanceOf(bad, InvalidContinueToken)
      assert.strictEqual(bad._tag, "Invalid")
      const other = yield* Effect.flip(cache.list(secrets, { continue: first.continue }))
      assert.notStrictEqual(other._tag, "Success")
    }),
  )

  it.effect(
    "a page continues after its last key: an object added before it is not seen, one after it is",
    () =>
      Effect.gen(function* () {
        const { api, cache } = yield* setup()
        yield* cache.start
        yield* cache.addInformer({ resource: cms, dependent: dep("d1") })
        const first = yield* cache.listPage(cms, { limit: 2 })
        yield* api.create(cms, cm("a", "alpha"))
        yield* api.create(cms, cm("c", "five"))
        yield* settle
        const rest = yield* cache.list(cms, { continue: first.continue })
        assert.deepStrictEqual(names(rest), ["b/three", "c/five", "c/four"])
      }),
  )
})

describe("ScopedCache: reads without a serving informer", () => {
  it.effect("a list across namespaces whose only informer lost its permission gets InformerForbidden", () =>
    Effect.gen(function* () {
      const { fake, cache } = yield* setup()
      yield* cache.start
      fake.inject({ verb: "list", namespace: "b", error: "Forbidden" })
      yield* cache.addInformer({ resource: cms, namespace: "b", dependent: dep("d1") })
      yield* settle
      assert.strictEqual(yield* running(cache), 0)
      const across = yield* Effect.flip(cache.list(cms))
      assert.instanceOf(across, InformerForbidden)
      assert.include(across.message, "the informer stopped after permission loss")
      const other = yield* Effect.flip(cache.list(secrets))
      assert.strictEqual(other._tag, "InformerNotFound", "a loss of ConfigMaps says nothing of Secrets")
    }),
  )

  it.effect("reads wait for the first list up to syncTimeout: then Timeout, and getInformer finds none", () =>
    Effect.gen(function* () {
      const { fake, cache } = yield* setup({ syncTimeout: "5 seconds" })
      yield* cache.start
      fake.inject({ verb: "list", namespace: "a", error: "Unreachable" })
      yield* cache.addInformer({ resource: cms, namespace: "a", dependent: dep("d1") })
      const read = yield* Effect.forkChild(Effect.flip(cache.list(cms, { namespace: "a" })))
      const informer = yield* Effect.forkChild(Effect.flip(cache.getInformer(cms, { namespace: "a" })))
      yield* settle
      yield* TestClock.adjust("5 seconds")
      const timeout = yield* Fiber.join(read)
      assert.strictEqual(timeout._tag, "Timeout")
      assert.strictEqual(timeout.message, 'the informers of cluster "c1" did not sync within 5s')
      assert.strictEqual(timeout._tag === "Timeout" ? timeout.path : "", "/api/v1/namespaces/a/configmaps")
      const none = yield* Fiber.join(informer)
      assert.strictEqual(none._tag, "InformerNotFound")
      assert.strictEqual(none.message, "no informer for configmaps in namespace a")
    }),
  )

  it.effect("getInformer names a namespace when the cache watches several by default", () =>
    Effect.gen(function* () {
      const { cache } = yield* setup({ defaultNamespaces: ["a", "b"] })
      yield* cache.start
      yield* cache.addInformer({ resource: cms, dependent: dep("d1") })
      const e = yield* Effect.flip(cache.getInformer(cms))
      assert.strictEqual(e._tag, "InformerNotFound")
      assert.strictEqual(
        e.message,
        "no informer for configmaps: name a namespace: the cache watches namespaces a, b",
      )
      const a = yield* cache.getInformer(cms, { namespace: "a" })
      assert.strictEqual(a.namespace, "a")
    }),
  )

  it.effect("getInformerForKind finds the resource through discovery", () =>
    Effect.gen(function* () {
      const { cache } = yield* setup()
      yield* cache.start
      yield* cache.addInformer({ resource: cms, namespace: "a", dependent: dep("d1") })
      const informer = yield* cache.getInformerForKind(
        { group: "", version: "v1", kind: "ConfigMap" },
        {
          namespace: "a",
        },
      )
      assert.strictEqual(informer.resource.resource, "configmaps")
      assert.strictEqual(informer, yield* cache.getInformer(cms, { namespace: "a" }))
    }),
  )
})
