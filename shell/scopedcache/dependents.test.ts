// Informers counted by their dependents (scopedcache.informers rows) and the access review before
// a new one, on the in-memory API server and virtual time (`dependents.ts`).
import { assert, describe, it } from "@effect/vitest"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { TestClock } from "effect/testing"
import { INFORMERS_ROW } from "../../core/scopedcache/informers.ts"
import type { AccessRequest } from "./accessReview.ts"
import { cms, collect, dep, running, settle, setup } from "./testing.ts"

describe("ScopedCache: informers counted by dependents", () => {
  it.effect(
    "an informer starts with its first dependent (after Start), is shared, and stops with its last",
    () =>
      Effect.gen(function* () {
        const { fake, cache } = yield* setup()
        yield* cache.addInformer({ resource: cms, namespace: "a", dependent: dep("d1") })
        assert.strictEqual(yield* running(cache), 0, "before Start an informer is Pending (lifecycle row 1)")
        yield* cache.start
        assert.isTrue(yield* cache.isStarted)
        assert.strictEqual(yield* running(cache), 1)
        yield* cache.addInformer({ resource: cms, namespace: "a", dependent: dep("d2") })
        yield* cache.addInformer({ resource: cms, namespace: "a", dependent: dep("d2") })
        assert.isTrue(yield* cache.waitForCacheSync)
        yield* settle
        assert.strictEqual(fake.watchCount(cms), 1, "one informer, one watch")
        const [info] = yield* cache.informers
        assert.deepStrictEqual(
          info?.dependents.map((d) => d.uid),
          ["d1", "d2"],
        )
        assert.strictEqual(info?.state, "Synced")
        yield* cache.removeInformer({ resource: cms, namespace: "a", dependent: dep("d1") })
        assert.strictEqual(yield* running(cache), 1)
        yield* cache.removeInformer({ resource: cms, namespace: "a", dependent: dep("d2") })
        yield* settle
        assert.strictEqual(yield* running(cache), 0)
        assert.deepStrictEqual(yield* cache.informers, [])
        assert.strictEqual(fake.watchCount(cms), 0, "its watch is closed")
      }),
  )

  it.effect("with automatic termination off, an informer without dependents keeps running until forced", () =>
    Effect.gen(function* () {
      const { fake, cache } = yield* setup({ automaticTermination: false })
      const events = yield* collect(cache)
      yield* cache.start
      yield* cache.addInformer({ resource: cms, namespace: "a", dependent: dep("d1") })
      yield* cache.removeInformer({ resource: cms, namespace: "a", dependent: dep("d1") })
      yield* settle
      assert.strictEqual(yield* running(cache), 1)
      assert.strictEqual(fake.watchCount(cms), 1)
      yield* cache.addInformer({ resource: cms, namespace: "a", dependent: dep("d3") })
      yield* cache.removeInformer({ resource: cms, namespace: "a", force: true })
      yield* settle
      assert.strictEqual(yield* running(cache), 0)
      assert.strictEqual(fake.watchCount(cms), 0)
      assert.deepStrictEqual(
        events.map((e) => [e._tag, e.row, e.dependents.map((d) => d.uid)]),
        [["InformerRemoved", INFORMERS_ROW.forceRemove, ["d3"]]],
      )
    }),
  )

  it.effect("an informer removed by force before Start tells its dependents at once", () =>
    Effect.gen(function* () {
      const { cache } = yield* setup()
      const events = yield* collect(cache)
      yield* cache.addInformer({ resource: cms, namespace: "a", dependent: dep("d1") })
      yield* TestClock.adjust("3 seconds")
      const at = yield* Clock.currentTimeMillis
      yield* cache.removeInformer({ resource: cms, namespace: "a", force: true })
      yield* settle
      assert.deepStrictEqual(
        events.map((e) => [e._tag, e.dependents.map((d) => d.uid), e.stoppedAt]),
        [["InformerRemoved", ["d1"], at]],
      )
      assert.deepStrictEqual(yield* cache.informers, [])
    }),
  )
})

describe("ScopedCache: access review before a new informer", () => {
  it.effect("with access review on, an informer the identity may not list is never started", () =>
    Effect.gen(function* () {
      const allowed = new Set(["a"])
      const reviews: Array<string> = []
      const { fake, cache } = yield* setup({
        accessReview: true,
        accessReviewer: () => (request: AccessRequest) =>
          Effect.sync(() => {
            reviews.push(request.namespace ?? "*")
            const ok = allowed.has(request.namespace ?? "*")
            return {
              allowed: ok,
              denied: ok ? [] : ["list", "watch"],
              reason: ok ? undefined : "no RoleBinding",
            }
          }),
      })
      yield* cache.start
      yield* cache.addInformer({ resource: cms, namespace: "a", dependent: dep("d1") })
      yield* cache.addInformer({ resource: cms, namespace: "a", dependent: dep("d2") })
      const denied = yield* Effect.flip(
        cache.addInformer({ resource: cms, namespace: "b", dependent: dep("d1") }),
      )
      assert.strictEqual(denied._tag, "Forbidden")
      assert.include(denied.message, "no RoleBinding")
      assert.deepStrictEqual(reviews, ["a", "b"], "one review per new informer")
      yield* settle
      assert.strictEqual(yield* running(cache), 1)
      assert.strictEqual(fake.watchCount(cms), 1)
      allowed.add("b")
      yield* cache.addInformer({ resource: cms, namespace: "b", dependent: dep("d1") })
      assert.strictEqual(yield* running(cache), 2)
    }),
  )

  it.effect("a refusal names the verbs, the resource, the scope and the reviewer's reason", () =>
    Effect.gen(function* () {
      const { cache } = yield* setup({
        accessReview: true,
        accessReviewer: () => (request: AccessRequest) =>
          Effect.succeed({
            allowed: false,
            denied: request.namespace === undefined ? ["list", "watch"] : ["watch"],
            reason: request.namespace === undefined ? "no ClusterRoleBinding" : undefined,
          }),
      })
      yield* cache.start
      const cluster = yield* Effect.flip(cache.addInformer({ resource: cms, dependent: dep("d1") }))
      assert.strictEqual(cluster._tag, "Forbidden")
      assert.strictEqual(
        cluster.message,
        "access review: list and watch configmaps denied at cluster scope: no ClusterRoleBinding",
      )
      assert.strictEqual(cluster.verb, "list")
      assert.strictEqual(cluster.path, "/api/v1/configmaps")
      const namespaced = yield* Effect.flip(
        cache.addInformer({ resource: cms, namespace: "a", dependent: dep("d1") }),
      )
      assert.strictEqual(namespaced.message, "access review: watch configmaps denied in namespace a")
      assert.strictEqual(namespaced.verb, "watch")
      assert.strictEqual(namespaced.path, "/api/v1/namespaces/a/configmaps")
      assert.deepStrictEqual(yield* cache.informers, [], "nothing is registered")
    }),
  )
})
