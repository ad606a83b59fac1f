import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { KubeClient } from "./client.ts"
import { serveHttp } from "./fake/http.ts"
import { FakeApiServer } from "./fake/server.ts"
import { Resources } from "./resource.ts"

const program = Effect.gen(function* () {
  const client = yield* KubeClient
  yield* client.create(Resources.configMaps, { metadata: { name: "a", namespace: "default" } })
  return (yield* client.list(Resources.configMaps)).items.map((o) => o.metadata.name)
})

describe("KubeClient layers", () => {
  it.effect("layerMemory provides the service over a FakeApiServer", () =>
    Effect.gen(function* () {
      const fake = yield* FakeApiServer.make()
      assert.deepStrictEqual(yield* Effect.provide(program, KubeClient.layerMemory(fake)), ["a"])
      assert.strictEqual(fake.objects(Resources.configMaps).length, 1)
    }),
  )

  it.live("layer provides the REST client for a KubeConfig", () =>
    Effect.gen(function* () {
      const fake = yield* FakeApiServer.make()
      const server = yield* serveHttp(fake)
      assert.deepStrictEqual(yield* Effect.provide(program, KubeClient.layer(server.kubeConfig())), ["a"])
    }),
  )
})
