// The scoped cache's shell on the in-memory API server and virtual time: informers counted by
// their dependents (scopedcache.informers rows), reads served only by existing informers
// (scopedcache.reads rows), Start (scopedcache.lifecycle rows), and the stop on 403.
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Logger from "effect/Logger"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { TestClock } from "effect/testing"
import { INFORMERS_ROW } from "../../core/scopedcache/informers.ts"
import type { Dependent } from "../../core/scopedcache/types.ts"
import { makeMemoryClient } from "../apiserver/memoryClient.ts"
import { FakeApiServer } from "../apiserver/server.ts"
import { Forbidden } from "../kube/errors.ts"
import { type KubeObject, Resources } from "../kube/resource.ts"
import type { AccessRequest } from "./accessReview.ts"
import {
  CacheNotFound,
  CacheNotStarted,
  InformerForbidden,
  InvalidContinueToken,
  isCacheError,
} from "./errors.ts"
import type { ScopedCacheOptions } from "./options.ts"
import { makeScopedCache, type ScopedCache, type ScopedCacheEvent } from "./scopedCache.ts"

const cms = Resources.configMaps
const secrets = Resources.secrets
const namespaces = Resources.namespaces
const cm = (namespace: string, name: string, labels: Record<string, string> = {}): KubeObject => ({
  metadata: { name, namespace, labels },
  data: { v: name },
})
const settle = Effect.repeat(Effect.yieldNow, { times: 100 })
const names = (objects: ReadonlyArray<KubeObject>) =>
  objects.map((o) => `${o.metadata.namespace ?? ""}/${o.metadata.name ?? ""}`)
const dep = (uid: string): Dependent => ({ uid, kind: "Widget", namespace: "a", name: uid })

const setup = (options: ScopedCacheOptions = {}) =>
  Effect.gen(function* () {
    const fake = yield* FakeApiServer.make()
    const client = yield* makeMemoryClient(fake)
    const api = fake.client()
    for (const [ns, n] of [
      ["a", "one"],
      ["a", "two"],
      ["b", "three"],
      ["c", "four"],
    ] as const)
      yield* api.create(cms, cm(ns, n, { app: n === "two" ? "web" : "db" }))
    const cache = yield* makeScopedCache(client, {
      cluster: "c1",
      reflector: { backoff: { jitter: 0 } },
      ...options,
    })
    return { fake, client, api, cache }
  })

/** Collects the cache's events from now on. */
const collect = (cache: ScopedCache) =>
  Effect.gen(function* () {
    const stream = yield* cache.subscribeEvents
    const events: Array<ScopedCacheEvent> = []
    yield* Effect.forkScoped(Stream.runForEach(stream, (e) => Effect.sync(() => events.push(e))))
    return events
  })

const running = (cache: ScopedCache) => cache.runningCount

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
})

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

describe("ScopedCache: permission loss (403) and return", () => {
  it.effect(
    "a list answered 403 stops the informer at once; its dependents get one event; reads get Forbidden; one log line",
    () => {
      const lines: Array<string> = []
      const capture = Logger.layer([
        Logger.make(({ message }) => lines.push(String(Array.isArray(message) ? message[0] : message))),
      ])
      return Effect.gen(function* () {
        const { fake, cache } = yield* setup()
        const events = yield* collect(cache)
        yield* cache.start
        fake.inject({ verb: "list", namespace: "b", error: "Forbidden" })
        yield* cache.addInformer({ resource: cms, namespace: "a", dependent: dep("d1") })
        yield* cache.addInformer({ resource: cms, namespace: "b", dependent: dep("d1") })
        yield* cache.addInformer({ resource: cms, namespace: "b", dependent: dep("d2") })
        yield* settle
        assert.strictEqual(yield* running(cache), 1, "b stopped without any clock advance (< 1 s)")
        assert.deepStrictEqual(
          events.map((e) => [e._tag, e.ref.namespace, e.row, e.dependents.map((d) => d.uid)]),
          [["PermissionLost", "b", INFORMERS_ROW.permissionLost, ["d1", "d2"]]],
        )
        const event = events[0]
        assert.isDefined(event)
        assert.isAtMost((event?.stoppedAt ?? 0) - (event?.observedAt ?? 0), 1000)
        const read = yield* Effect.flip(cache.list(cms, { namespace: "b" }))
        assert.instanceOf(read, Forbidden)
        assert.include(read.message, "permission")
        const get = yield* Effect.flip(cache.get(cms, { namespace: "b", name: "three" }))
        assert.strictEqual(get._tag, "Forbidden")
        assert.deepStrictEqual(names(yield* cache.list(cms)), ["a/one", "a/two"], "a keeps working")
        // The reflector is stopped: no retry floods the log or the server.
        yield* TestClock.adjust("10 minutes")
        yield* settle
        assert.deepStrictEqual(
          lines.filter((l) => l.includes("forbidden") || l.includes("failed")),
          [lines.find((l) => l.includes("forbidden")) ?? "missing"],
        )
        assert.include(lines.find((l) => l.includes("forbidden")) ?? "", "informer b/v1/ConfigMap")
        // Permission comes back: adding the informer again works.
        fake.clearFaults()
        yield* cache.addInformer({ resource: cms, namespace: "b", dependent: dep("d1") })
        assert.deepStrictEqual(names(yield* cache.list(cms, { namespace: "b" })), ["b/three"])
        assert.strictEqual(yield* running(cache), 2)
      }).pipe(Effect.provide(capture))
    },
  )

  it.effect("a watch answered 403 after the sync stops a cluster-level informer too", () =>
    Effect.gen(function* () {
      const { fake, cache } = yield* setup()
      const events = yield* collect(cache)
      yield* cache.start
      yield* cache.addInformer({ resource: cms, dependent: dep("d1") })
      assert.isTrue(yield* cache.waitForCacheSync)
      yield* settle
      fake.inject({ verb: "watch", error: "Forbidden" })
      fake.closeWatches()
      // The server closed the watch without an event: the reflector re-watches after 800 ms.
      yield* TestClock.adjust("800 millis")
      yield* settle
      assert.strictEqual(yield* running(cache), 0)
      assert.deepStrictEqual(
        events.map((e) => [e._tag, e.ref.namespace]),
        [["PermissionLost", ""]],
      )
      const read = yield* Effect.flip(cache.get(cms, { namespace: "c", name: "four" }))
      assert.strictEqual(read._tag, "Forbidden")
      fake.clearFaults()
      yield* cache.addInformer({ resource: cms, dependent: dep("d1") })
      assert.strictEqual((yield* cache.get(cms, { namespace: "c", name: "four" })).metadata.name, "four")
    }),
  )

  it.effect("other failures are retried with backoff, not treated as permission loss", () =>
    Effect.gen(function* () {
      const { fake, cache } = yield* setup()
      yield* cache.start
      fake.inject({ verb: "list", namespace: "a", error: "Unreachable", times: 2 })
      yield* cache.addInformer({ resource: cms, namespace: "a", dependent: dep("d1") })
      const fiber = yield* Effect.forkChild(cache.list(cms, { namespace: "a" }))
      yield* TestClock.adjust("3 seconds")
      assert.deepStrictEqual(names(yield* Fiber.join(fiber)), ["a/one", "a/two"])
      assert.strictEqual(yield* running(cache), 1)
    }),
  )

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
      yield* cache.start
      const missing = yield* Effect.flip(cache.get(cms, { namespace: "a", name: "nope" }))
      assert.instanceOf(missing, CacheNotFound)
      assert.strictEqual(missing._tag, "NotFound")
      assert.strictEqual((missing as CacheNotFound).origin, "cache")
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
})

describe("ScopedCache: lifecycle", () => {
  it.effect("waitForCacheSync waits for Start and every informer; false once the cache stopped", () =>
    Effect.gen(function* () {
      const { fake, cache } = yield* setup()
      fake.inject({ verb: "list", namespace: "a", error: "Unreachable", times: 1 })
      yield* cache.addInformer({ resource: cms, namespace: "a", dependent: dep("d1") })
      const waiting = yield* Effect.forkChild(cache.waitForCacheSync)
      yield* settle
      assert.isUndefined(waiting.pollUnsafe())
      yield* cache.start
      yield* settle
      assert.isUndefined(waiting.pollUnsafe(), "the first list failed; backing off")
      yield* TestClock.adjust("1 second")
      assert.isTrue(yield* Fiber.join(waiting))
    }),
  )

  it.effect(
    "closing the cache's scope stops its informers; afterwards reads fail and waitForCacheSync is false",
    () =>
      Effect.gen(function* () {
        const fake = yield* FakeApiServer.make()
        const client = yield* makeMemoryClient(fake)
        const scope = yield* Scope.make()
        const cache = yield* makeScopedCache(client, { cluster: "c1" }).pipe(Scope.provide(scope))
        yield* cache.addInformer({ resource: cms, namespace: "a", dependent: dep("d1") })
        yield* cache.start.pipe(Scope.provide(scope))
        assert.isTrue(yield* cache.waitForCacheSync)
        yield* settle
        assert.strictEqual(fake.watchCount(cms), 1)
        yield* Scope.close(scope, Exit.void)
        yield* settle
        assert.strictEqual(fake.watchCount(cms), 0)
        assert.isFalse(yield* cache.waitForCacheSync)
        assert.isFalse(yield* cache.isStarted)
        const read = yield* Effect.flip(cache.list(cms, { namespace: "a" }))
        assert.strictEqual(read._tag, "InformerNotFound")
        assert.include(read.message, "stopped")
      }),
  )
})
