import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"
import type { KubeObject } from "../kube/resource.ts"
import { Resources } from "../kube/resource.ts"
import type { WatchEvent } from "../kube/watch.ts"
import { settle } from "./fixtures.ts"
import { FakeApiServer } from "./server.ts"

const cm = (name: string): KubeObject => ({ metadata: { name, namespace: "default" }, data: {} })

describe("FakeApiServer.failWatches", () => {
  it.effect(
    "sends every open watch an ERROR frame with the status, ends it, and leaves new watches alone",
    () =>
      Effect.gen(function* () {
        const fake = yield* FakeApiServer.make()
        const api = fake.client()
        const events: Array<WatchEvent> = []
        const fiber = yield* Effect.forkChild(
          Stream.runForEach(api.watch(Resources.configMaps, { namespace: "default" }), (e) =>
            Effect.sync(() => events.push(e)),
          ),
        )
        yield* settle
        yield* api.create(Resources.configMaps, cm("a"))
        yield* settle
        fake.failWatches({ code: 500, reason: "InternalError", message: "etcd unavailable" })
        assert.isTrue(Exit.isSuccess(yield* Fiber.await(fiber)))
        assert.deepStrictEqual(
          events.map((e) => e.type),
          ["ADDED", "ERROR"],
        )
        assert.deepStrictEqual(events[1]?.object, {
          kind: "Status",
          status: "Failure",
          code: 500,
          reason: "InternalError",
          message: "etcd unavailable",
        })
        assert.strictEqual(fake.watchCount(), 0)
        const later: Array<WatchEvent> = []
        const again = yield* Effect.forkChild(
          Stream.runForEach(
            api.watch(Resources.configMaps, { resourceVersion: fake.resourceVersion() }),
            (e) => Effect.sync(() => later.push(e)),
          ),
        )
        yield* settle
        yield* api.create(Resources.configMaps, cm("b"))
        yield* settle
        assert.deepStrictEqual(
          later.map((e) => e.type),
          ["ADDED"],
        )
        yield* Fiber.interrupt(again)
      }),
  )
})
