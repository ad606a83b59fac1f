/**
 * The HTTP front end carries what the garbage collector and the list semantics read: a delete's
 * `propagationPolicy` (in the DeleteOptions body, as client-go and client-node send it) and a
 * list's `resourceVersion`/`resourceVersionMatch`, with their errors as Status codes.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { controllerReference, type KubeObject, Resources } from "../kube/resource.ts"
import { makeRestClient } from "../kube/restClient.ts"
import { failure, widgets } from "./fixtures.ts"
import { serveHttp } from "./http.ts"
import { ForegroundFinalizer } from "./objects.ts"
import { FakeApiServer } from "./server.ts"

const key = (name: string) => ({ namespace: "default", name })
const widget = (name: string, owner?: KubeObject): KubeObject => ({
  metadata: {
    name,
    namespace: "default",
    ...(owner ? { ownerReferences: [controllerReference(owner)] } : {}),
  },
  spec: {},
})

/** A fake with garbage collection behind HTTP, and a REST client for it. */
const setup = Effect.gen(function* () {
  const fake = yield* FakeApiServer.make({ garbageCollection: true })
  fake.register(widgets)
  const server = yield* serveHttp(fake)
  const client = yield* makeRestClient(server.kubeConfig(), { timeout: "5 seconds" })
  return { fake, client }
})

describe("serveHttp", () => {
  it.live("passes a delete's propagationPolicy: Foreground cascades, Orphan keeps the dependents", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { fake, client } = yield* setup
        const owner = yield* client.create(widgets, widget("owner"))
        yield* client.create(widgets, widget("child", owner))
        const answer = yield* client.delete(widgets, key("owner"), { propagationPolicy: "Foreground" })
        assert.deepStrictEqual(
          answer?.metadata.finalizers,
          [ForegroundFinalizer],
          "the owner as the delete left it",
        )
        assert.deepStrictEqual(fake.objects(widgets), [], "then the collector took the child and the owner")

        const kept = yield* client.create(widgets, widget("kept"))
        yield* client.create(widgets, widget("orphan", kept))
        yield* client.delete(widgets, key("kept"), { propagationPolicy: "Orphan" })
        const orphan = yield* client.get(widgets, key("orphan"))
        assert.isUndefined(orphan.metadata.ownerReferences)
      }),
    ),
  )

  it.live("passes a list's resourceVersion and resourceVersionMatch; their errors keep their codes", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { client } = yield* setup
        const cm = Resources.configMaps
        yield* client.create(cm, { metadata: { name: "a", namespace: "default" } })
        yield* client.delete(cm, key("a"))
        const exact = yield* client.list(cm, { resourceVersion: "2", resourceVersionMatch: "Exact" })
        assert.deepStrictEqual(
          exact.items.map((o) => o.metadata.name),
          ["a"],
        )
        assert.strictEqual(exact.resourceVersion, "2")
        assert.strictEqual(yield* failure(client.list(cm, { resourceVersion: "99" })), "Timeout")
        assert.strictEqual(yield* failure(client.list(cm, { resourceVersionMatch: "Exact" })), "Invalid")
      }),
    ),
  )
})
