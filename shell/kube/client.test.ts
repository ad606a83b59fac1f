import { readFileSync } from "node:fs"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { serveHttp } from "../apiserver/http.ts"
import { memoryClientLayer } from "../apiserver/memoryClient.ts"
import { FakeApiServer } from "../apiserver/server.ts"
import { KubeClient } from "./client.ts"
import { Resources } from "./resource.ts"
import { restClientLayer } from "./restClient.ts"

const program = Effect.gen(function* () {
  const client = yield* KubeClient
  yield* client.create(Resources.configMaps, { metadata: { name: "a", namespace: "default" } })
  return (yield* client.list(Resources.configMaps)).items.map((o) => o.metadata.name)
})

describe("KubeClient layers", () => {
  it.effect("memoryClientLayer provides the service over the in-memory API server", () =>
    Effect.gen(function* () {
      const fake = yield* FakeApiServer.make()
      assert.deepStrictEqual(yield* Effect.provide(program, memoryClientLayer(fake)), ["a"])
      assert.strictEqual(fake.objects(Resources.configMaps).length, 1)
    }),
  )

  it.live("restClientLayer provides the REST client for a KubeConfig", () =>
    Effect.gen(function* () {
      const fake = yield* FakeApiServer.make()
      const server = yield* serveHttp(fake)
      assert.deepStrictEqual(yield* Effect.provide(program, restClientLayer(server.kubeConfig())), ["a"])
    }),
  )

  it("the interface module imports no implementation (types only, besides effect)", () => {
    const source = readFileSync(new URL("./client.ts", import.meta.url), "utf8")
    const imports = [...source.matchAll(/^import (type )?[^\n]*? from "([^"]+)"/gm)].map((m) => ({
      typeOnly: m[1] !== undefined,
      from: m[2] as string,
    }))
    assert.isAbove(imports.length, 0)
    for (const i of imports) {
      if (i.from === "effect" || i.from.startsWith("effect/")) continue
      assert.isTrue(i.typeOnly, `client.ts imports ${i.from} for its values`)
    }
  })
})
