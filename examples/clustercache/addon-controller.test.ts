import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { story } from "./addon-controller.js"

describe("examples/clustercache/addon-controller", () => {
  it.live(
    "installs the add-on fleet-wide, puts a deleted one back, and keeps alpha's connection through a rotation",
    () =>
      Effect.gen(function* () {
        const log = yield* story
        assert.include(log, "alpha: installed")
        assert.include(log, "beta: installed")
        const deleted = log.indexOf("-- someone deletes the add-on in beta")
        assert.include(log.slice(deleted), "beta: installed")
        const rotated = log.indexOf("-- alpha's kubeconfig Secret is rotated: new token, same server")
        assert.isAbove(rotated, deleted)
        assert.include(log.slice(rotated), "alpha: same connection, informers kept")
        assert.include(log.slice(rotated), "alpha: installed")
        assert.strictEqual(log.at(-1), "connected: alpha, beta")
      }),
  )
})
