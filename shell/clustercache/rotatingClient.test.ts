// A rotating client: every call goes to the client of the current credentials.
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { makeMemoryClient } from "../apiserver/memoryClient.ts"
import { FakeApiServer } from "../apiserver/server.ts"
import type { KubeClientShape } from "../kube/client.ts"
import { Resources } from "../kube/resource.ts"
import { makeRotatingClient } from "./rotatingClient.ts"

const cms = Resources.configMaps
const key = { namespace: "default", name: "a" }
const cm = { apiVersion: "v1", kind: "ConfigMap", metadata: key, data: { v: "1" } }

/** Every call of the client, in order; the fake it reaches is told by what it holds. */
const exercise = (client: KubeClientShape) =>
  Effect.gen(function* () {
    const created = yield* client.create(cms, cm)
    const got = yield* client.get(cms, key)
    const listed = yield* client.list(cms, { namespace: "default" })
    const all = yield* client.listAll(cms)
    const updated = yield* client.update(cms, { ...got, data: { v: "2" } })
    const patched = yield* client.patch(cms, key, { type: "merge", body: { data: { v: "3" } } })
    // ConfigMaps have no status subresource: what matters is which server answers.
    const outcome = <A>(e: Effect.Effect<A, { readonly _tag: string }>) =>
      Effect.map(Effect.result(e), (r) => (r._tag === "Success" ? "ok" : r.failure._tag))
    const status = yield* outcome(client.getStatus(cms, key))
    const statusUpdated = yield* outcome(client.updateStatus(cms, got))
    const statusPatched = yield* outcome(client.patchStatus(cms, key, { type: "merge", body: {} }))
    const events = yield* Stream.runCollect(Stream.take(client.watch(cms, { namespace: "default" }), 1))
    yield* client.probe()
    const raw = yield* outcome(client.raw({ method: "GET", path: "/api/v1" }))
    const deleted = yield* client.delete(cms, key)
    return [
      created.metadata.name,
      got.data,
      listed.items.length,
      all.items.length,
      updated.data,
      patched.data,
      status,
      statusUpdated,
      statusPatched,
      events.length,
      raw,
      deleted?.metadata.name,
    ]
  })

describe("makeRotatingClient", () => {
  it.effect("every call goes to the current client; after replace, to the new one", () =>
    Effect.gen(function* () {
      const first = yield* FakeApiServer.make()
      const second = yield* FakeApiServer.make()
      const rotating = makeRotatingClient(yield* makeMemoryClient(first))
      const expected = yield* exercise(rotating.client)
      assert.deepStrictEqual(expected.slice(0, 6), ["a", { v: "1" }, 1, 1, { v: "2" }, { v: "3" }])
      assert.deepStrictEqual(expected.slice(9), [1, "ok", "a"])
      yield* rotating.replace(yield* makeMemoryClient(second))
      first.inject({
        verb: ["get", "list", "create", "update", "patch", "delete", "watch"],
        error: "Unauthorized",
      })
      assert.deepStrictEqual(yield* exercise(rotating.client), expected)
      // The first server saw nothing after the replace: its object is still gone.
      assert.strictEqual(
        (yield* Effect.flip((yield* makeMemoryClient(second)).get(cms, key)))._tag,
        "NotFound",
      )
    }),
  )
})
