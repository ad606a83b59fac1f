// The permission recheck: running informers' watch access reviewed on a timer, a refusal counted
// as a 403 (`recheck.ts`).
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { TestClock } from "effect/testing"
import { Forbidden } from "../kube/errors.ts"
import type { AccessRequest } from "./accessReview.ts"
import { InformerForbidden } from "./errors.ts"
import { cms, collect, dep, running, settle, setup } from "./testing.ts"

describe("ScopedCache: permission recheck", () => {
  it.effect("the permission recheck stops a running informer whose access was revoked", () =>
    Effect.gen(function* () {
      const allowed = new Set(["a", "b"])
      const { cache } = yield* setup({
        permissionRecheckInterval: "500 millis",
        accessReviewer: () => (request: AccessRequest) =>
          Effect.succeed({
            allowed: allowed.has(request.namespace ?? "*"),
            denied: allowed.has(request.namespace ?? "*") ? [] : ["watch"],
            reason: undefined,
          }),
      })
      const events = yield* collect(cache)
      yield* cache.start
      yield* cache.addInformer({ resource: cms, namespace: "a", dependent: dep("d1") })
      yield* cache.addInformer({ resource: cms, namespace: "b", dependent: dep("d1") })
      yield* TestClock.adjust("1 second")
      assert.strictEqual(yield* running(cache), 2)
      allowed.delete("b")
      yield* TestClock.adjust("500 millis")
      yield* settle
      assert.strictEqual(yield* running(cache), 1)
      assert.deepStrictEqual(
        events.map((e) => [e._tag, e.ref.namespace]),
        [["PermissionLost", "b"]],
      )
      const read = yield* Effect.flip(cache.list(cms, { namespace: "b" }))
      assert.strictEqual(read._tag, "Forbidden")
      assert.strictEqual(
        read.message,
        "the informer stopped after permission loss: access review: watch denied",
      )
    }),
  )
})

describe("ScopedCache: permission recheck by default", () => {
  it.effect("every 10 s by default, one review of watch per resource and namespace", () =>
    Effect.gen(function* () {
      const requests: Array<AccessRequest> = []
      const allowed = new Set(["a", "b"])
      const { cache } = yield* setup({
        informerKey: "gvkAndSelectors",
        accessReviewer: () => (request: AccessRequest) =>
          Effect.sync(() => {
            requests.push(request)
            const ok = allowed.has(request.namespace ?? "*")
            return {
              allowed: ok,
              denied: ok ? [] : ["list", "watch"],
              reason: ok ? undefined : "RBAC: no binding",
            }
          }),
      })
      const events = yield* collect(cache)
      yield* cache.start
      yield* cache.addInformer({ resource: cms, namespace: "a", dependent: dep("d1") })
      yield* cache.addInformer({ resource: cms, namespace: "b", dependent: dep("d1") })
      yield* cache.addInformer({
        resource: cms,
        namespace: "b",
        labelSelector: "app=db",
        dependent: dep("d2"),
      })
      yield* settle
      assert.strictEqual(yield* running(cache), 3)
      yield* TestClock.adjust("9999 millis")
      yield* settle
      assert.deepStrictEqual(requests, [])
      yield* TestClock.adjust("1 millis")
      yield* settle
      assert.deepStrictEqual(
        requests.map((r) => [r.namespace, r.verbs]),
        [
          ["a", ["watch"]],
          ["b", ["watch"]],
        ],
      )
      allowed.delete("b")
      yield* TestClock.adjust("10 seconds")
      yield* settle
      assert.strictEqual(yield* running(cache), 1)
      assert.deepStrictEqual(
        events.map((e) => [e._tag, e.ref.namespace]),
        [
          ["PermissionLost", "b"],
          ["PermissionLost", "b"],
        ],
      )
      const read = yield* Effect.flip(cache.list(cms, { namespace: "b" }))
      assert.instanceOf(read, InformerForbidden)
      assert.strictEqual(
        read.message,
        "the informer stopped after permission loss: access review: list and watch denied: RBAC: no binding",
      )
      assert.strictEqual((read as InformerForbidden).verb, "watch")
      assert.strictEqual((read as InformerForbidden).path, "/api/v1/namespaces/b/configmaps")
    }),
  )

  it.effect("a review that fails (not a refusal) stops nothing; the next round asks again", () =>
    Effect.gen(function* () {
      let calls = 0
      const { cache } = yield* setup({
        accessReviewer: () => () =>
          Effect.suspend(() => {
            calls++
            return Effect.fail(
              new Forbidden({ verb: "create", path: "/apis/authorization.k8s.io", message: "no" }),
            )
          }),
      })
      yield* cache.start
      yield* cache.addInformer({ resource: cms, namespace: "a", dependent: dep("d1") })
      yield* TestClock.adjust("20 seconds")
      yield* settle
      assert.strictEqual(calls, 2)
      assert.strictEqual(yield* running(cache), 1)
    }),
  )

  it.effect("0 turns it off", () =>
    Effect.gen(function* () {
      const requests: Array<AccessRequest> = []
      const { cache } = yield* setup({
        permissionRecheckInterval: 0,
        accessReviewer: () => (request: AccessRequest) =>
          Effect.sync(() => {
            requests.push(request)
            return { allowed: false, denied: ["watch"], reason: undefined }
          }),
      })
      yield* cache.start
      yield* cache.addInformer({ resource: cms, namespace: "a", dependent: dep("d1") })
      yield* TestClock.adjust("10 minutes")
      yield* settle
      assert.deepStrictEqual(requests, [])
      assert.strictEqual(yield* running(cache), 1)
    }),
  )
})
