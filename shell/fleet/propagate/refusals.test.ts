import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { TestClock } from "effect/testing"
import type { Source } from "../../../core/propagate/index.ts"
import type { Cache } from "../../cache/types.ts"
import type { KubeClientShape } from "../../kube/client.ts"
import { Forbidden } from "../../kube/errors.ts"
import type { KubeObject } from "../../kube/resource.ts"
import type { Cluster } from "../../multicluster/index.ts"
import { observeCopy } from "./observe.ts"
import { makeRefusals } from "./refusals.ts"

const source: Source = {
  kind: "ConfigMap",
  namespace: "team-a",
  name: "settings",
  labelled: true,
  deleting: false,
  content: { data: {}, binaryData: {}, labels: {}, annotations: {}, type: undefined },
}

describe("refusals: a namespace that refused is asked again only after the interval", () => {
  it.effect("remembers a refusal for its interval, per cache, kind and namespace", () =>
    Effect.gen(function* () {
      const refusals = makeRefusals(10_000)
      const east = { cache: {}, kind: "ConfigMap" as const, namespace: "team-a" }
      assert.isFalse(yield* refusals.recent(east))
      yield* TestClock.adjust(60_000)
      yield* refusals.refused(east)
      assert.isTrue(yield* refusals.recent(east))
      assert.isFalse(yield* refusals.recent({ ...east, cache: {} }), "another cluster's cache")
      assert.isFalse(yield* refusals.recent({ ...east, kind: "Secret" }), "another kind")
      assert.isFalse(yield* refusals.recent({ ...east, namespace: "team-b" }), "another namespace")
      yield* TestClock.adjust(9_999)
      assert.isTrue(yield* refusals.recent(east))
      yield* TestClock.adjust(1)
      assert.isFalse(yield* refusals.recent(east), "asked again once the interval has passed")
    }),
  )

  it.effect("forgets a refusal once the namespace answers", () =>
    Effect.gen(function* () {
      const refusals = makeRefusals(10_000)
      const east = { cache: {}, kind: "Secret" as const, namespace: "team-a" }
      yield* refusals.refused(east)
      refusals.answered(east)
      assert.isFalse(yield* refusals.recent(east))
    }),
  )

  it.effect("observeCopy reads a refusing namespace once per interval, Forbidden in between", () =>
    Effect.gen(function* () {
      let reads = 0
      let allowed = false
      const get = () => {
        reads++
        return allowed
          ? Effect.succeed({ metadata: { name: "settings", labels: {} }, data: {} } as KubeObject)
          : Effect.fail(new Forbidden({ verb: "get", path: "/x", message: "forbidden" }))
      }
      const cluster = {
        name: "east",
        client: { get } as unknown as KubeClientShape,
        generation: "1",
        cache: { get } as unknown as Cache,
      } as unknown as Cluster
      const follow = { cache: () => Effect.void, informer: () => Effect.void, refusals: makeRefusals(10_000) }
      const place = { cluster, source, uid: "u1", namespace: "team-a" }
      const first = yield* observeCopy(place, false, follow)
      const second = yield* observeCopy(place, true, follow)
      assert.deepStrictEqual([first.access, second.access, reads], ["Forbidden", "Forbidden", 1])
      allowed = true
      yield* TestClock.adjust(10_000)
      const third = yield* observeCopy(place, false, follow)
      assert.deepStrictEqual([third.access, reads], ["Allowed", 2])
      allowed = false
      const fourth = yield* observeCopy(place, false, follow)
      assert.deepStrictEqual([fourth.access, reads], ["Forbidden", 3], "an answer forgot the refusal")
    }),
  )
})
