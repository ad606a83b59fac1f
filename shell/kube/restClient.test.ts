import { assert, describe, it } from "@effect/vitest"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"
import { serveHttp, tokenKubeConfig } from "../apiserver/http.ts"
import { FakeApiServer } from "../apiserver/server.ts"
import type { KubeClientShape } from "./client.ts"
import { crdResource, resolveKind } from "./discovery.ts"
import type { KubeError } from "./errors.ts"
import { applyPatch, mergePatch } from "./patch.ts"
import type { KubeObject, ResourceRef } from "./resource.ts"
import { Resources } from "./resource.ts"
import { makeRestClient } from "./restClient.ts"
import type { WatchEvent } from "./watch.ts"

const widgets: ResourceRef = {
  group: "example.com",
  version: "v1",
  resource: "widgets",
  kind: "Widget",
  namespaced: true,
}
const cm = (name: string): KubeObject => ({ metadata: { name, namespace: "default" }, data: { a: "1" } })

/** A fake behind HTTP and a REST client for it. */
const setup = (
  options: { readonly timeout?: Duration.Input; readonly bookmarkInterval?: Duration.Input } = {},
) =>
  Effect.gen(function* () {
    const fake = yield* FakeApiServer.make({ bookmarkInterval: options.bookmarkInterval ?? "60 seconds" })
    fake.register(widgets)
    const server = yield* serveHttp(fake)
    const client = yield* makeRestClient(server.kubeConfig(), { timeout: options.timeout ?? "2 seconds" })
    return { fake, server, client }
  })

const failure = <A>(effect: Effect.Effect<A, KubeError>) => Effect.map(Effect.flip(effect), (e) => e._tag)

const collect = (
  client: KubeClientShape,
  ref: ResourceRef,
  options: Parameters<KubeClientShape["watch"]>[1],
) =>
  Effect.gen(function* () {
    const events: Array<WatchEvent> = []
    const fiber = yield* Effect.forkChild(
      Stream.runForEach(client.watch(ref, options), (e) => Effect.sync(() => events.push(e))),
    )
    return { events, fiber }
  })

const until = (check: () => boolean) =>
  Effect.gen(function* () {
    for (let i = 0; i < 200 && !check(); i++) yield* Effect.sleep("10 millis")
    assert.isTrue(check(), "condition not reached within 2 s")
  })

describe("makeRestClient over HTTP", () => {
  it.live(
    "creates, reads, replaces, patches, applies and deletes; a stale resourceVersion is a Conflict",
    () =>
      Effect.gen(function* () {
        const { client } = yield* setup()
        const created = yield* client.create(Resources.configMaps, cm("a"))
        assert.strictEqual(created.kind, "ConfigMap")
        assert.strictEqual(yield* failure(client.create(Resources.configMaps, cm("a"))), "AlreadyExists")
        const read = yield* client.get(Resources.configMaps, { namespace: "default", name: "a" })
        assert.deepStrictEqual(read.data, { a: "1" })
        const replaced = yield* client.update(Resources.configMaps, { ...read, data: { a: "2" } })
        assert.strictEqual(
          yield* failure(client.update(Resources.configMaps, { ...read, data: { a: "3" } })),
          "Conflict",
        )
        const key = { namespace: "default", name: "a" }
        const patched = yield* client.patch(Resources.configMaps, key, mergePatch({ data: { b: "x" } }))
        assert.deepStrictEqual(patched.data, { a: "2", b: "x" })
        assert.notStrictEqual(patched.metadata.resourceVersion, replaced.metadata.resourceVersion)
        const w = yield* client.patch(
          widgets,
          { namespace: "default", name: "w" },
          applyPatch({ spec: { size: 1 } }),
          {
            fieldManager: "krtt",
            force: true,
          },
        )
        assert.strictEqual(w.kind, "Widget")
        const withStatus = yield* client.patchStatus(
          widgets,
          { namespace: "default", name: "w" },
          mergePatch({ status: { ok: true } }),
        )
        assert.deepStrictEqual(withStatus.status, { ok: true })
        const st = yield* client.getStatus(widgets, { namespace: "default", name: "w" })
        assert.deepStrictEqual(st.status, { ok: true })
        assert.strictEqual(
          yield* failure(client.delete(Resources.configMaps, key, { preconditions: { uid: "x" } })),
          "Conflict",
        )
        const deleted = yield* client.delete(Resources.configMaps, key)
        assert.strictEqual(deleted?.metadata.name, "a")
        assert.strictEqual(yield* failure(client.get(Resources.configMaps, key)), "NotFound")
      }),
  )

  it.live("a refused token is Unauthorized and an RBAC denial is Forbidden, with verb and path", () =>
    Effect.gen(function* () {
      const { fake, server } = yield* setup()
      const bad = yield* makeRestClient(server.kubeConfig("wrong-token"))
      const e = yield* Effect.flip(bad.list(Resources.configMaps, { namespace: "default" }))
      assert.strictEqual(e._tag, "Unauthorized")
      assert.strictEqual(e.verb, "list")
      assert.strictEqual(e.path, "/api/v1/namespaces/default/configmaps")
      assert.notInclude(JSON.stringify(e), "wrong-token", "errors never carry credentials")
      fake.inject({ verb: "list", error: "Forbidden" })
      const good = yield* makeRestClient(server.kubeConfig())
      assert.strictEqual(yield* failure(good.list(Resources.secrets)), "Forbidden")
    }),
  )

  it.live("listAll follows continue tokens page by page", () =>
    Effect.gen(function* () {
      const { client } = yield* setup()
      for (let i = 0; i < 7; i++) yield* client.create(Resources.configMaps, cm(`cm-${i}`))
      const page = yield* client.list(Resources.configMaps, { namespace: "default", limit: 3 })
      assert.strictEqual(page.items.length, 3)
      assert.isString(page.continue)
      const all = yield* client.listAll(Resources.configMaps, { pageSize: 3 })
      assert.deepStrictEqual(
        all.items.map((o) => o.metadata.name),
        Array.from({ length: 7 }, (_, i) => `cm-${i}`),
      )
      assert.strictEqual(all.resourceVersion, page.resourceVersion)
    }),
  )

  it.live("watch streams events and bookmarks, ends at timeoutSeconds, and parses ERROR 410 frames", () =>
    Effect.gen(function* () {
      const { fake, client } = yield* setup({ bookmarkInterval: "100 millis" })
      yield* client.create(Resources.configMaps, cm("a"))
      const w = yield* collect(client, Resources.configMaps, {
        allowWatchBookmarks: true,
        resourceVersion: "2",
        timeoutSeconds: 1,
      })
      yield* Effect.sleep("50 millis")
      yield* client.create(Resources.configMaps, cm("b"))
      yield* until(() => w.events.some((e) => e.type === "BOOKMARK"))
      assert.deepStrictEqual(
        w.events.filter((e) => e.type === "ADDED").map((e) => e.type !== "ERROR" && e.object.metadata.name),
        ["b"],
      )
      assert.isTrue(
        Exit.isSuccess(yield* Fiber.await(w.fiber)),
        "the server's timeout ends the stream cleanly",
      )
      fake.compact()
      const old = yield* collect(client, Resources.configMaps, { resourceVersion: "2" })
      yield* Fiber.await(old.fiber)
      assert.deepStrictEqual(
        old.events.map((e) => e.type === "ERROR" && e.object.code),
        [410],
      )
    }),
  )

  it.live("a dropped connection fails the watch with Unreachable", () =>
    Effect.gen(function* () {
      const { server, client } = yield* setup()
      const w = yield* collect(client, Resources.configMaps, {})
      yield* Effect.sleep("100 millis")
      yield* server.dropConnections
      const exit = yield* Fiber.await(w.fiber)
      assert.isTrue(Exit.isFailure(exit))
      assert.include(String(exit), "Unreachable")
    }),
  )

  it.live("nothing listening is Unreachable (ECONNREFUSED); a slow answer is a Timeout", () =>
    Effect.gen(function* () {
      const nobody = yield* makeRestClient(tokenKubeConfig("http://127.0.0.1:1", "t"))
      const e = yield* Effect.flip(nobody.probe())
      assert.isTrue(e._tag === "Unreachable" && e.code === "ECONNREFUSED")
      const { fake, client } = yield* setup({ timeout: "200 millis" })
      fake.inject({ verb: "get", delay: "2 seconds", times: 1 })
      assert.strictEqual(
        yield* failure(client.get(Resources.configMaps, { namespace: "default", name: "a" })),
        "Timeout",
      )
      yield* client.probe()
    }),
  )

  it.live("discovery resolves a kind to its resource and reads CRDs", () =>
    Effect.gen(function* () {
      const { client } = yield* setup()
      const ref = yield* resolveKind(client, { group: "example.com", version: "v1", kind: "Widget" })
      assert.deepStrictEqual(ref, widgets)
      assert.strictEqual(
        yield* failure(resolveKind(client, { group: "example.com", version: "v1", kind: "Gadget" })),
        "NotFound",
      )
      const crd = {
        metadata: { name: "widgets.example.com" },
        spec: {
          group: "example.com",
          scope: "Namespaced" as const,
          names: { plural: "widgets", kind: "Widget" },
          versions: [{ name: "v1", served: true, storage: true, subresources: { status: {} } }],
        },
      }
      assert.deepStrictEqual(crdResource(crd), widgets)
      assert.isUndefined(crdResource(crd, "v2"))
    }),
  )
})
