import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { demo } from "./fanout.js"

describe("examples/multicluster/fanout", () => {
  it.live("a hub policy is copied to the clusters it names, follows its edits, and copies are repaired", () =>
    Effect.gen(function* () {
      const log = yield* demo
      assert.deepStrictEqual(log, [
        "fanned out: east=10 west=10",
        "west dropped, north added: east=20 north=20",
        "east's copy repaired: east=20 north=20",
        "runnable: engaged (hub), engaged east, engaged north, engaged west",
      ])
    }),
  )
})
