// The foreign controller's finalizer (foreignFinalizer.ts): its steps put it on and take it off,
// and the oracle tells its release from a controller that loses it.
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { FakeApiServer } from "../apiserver/server.ts"
import { ClusterResource } from "../clustercache/service.ts"
import { mergePatch } from "../kube/patch.ts"
import type { KubeObject } from "../kube/resource.ts"
import {
  addForeignFinalizer,
  FOREIGN_FINALIZER,
  FOREIGN_RELEASED_ANNOTATION,
  foreignFinalizerLost,
  releaseForeignFinalizer,
  watchForeignFinalizers,
} from "./foreignFinalizer.ts"

const key = { namespace: "chaos", name: "c1" }
const OWN = "cluster.cluster.x-k8s.io"

const withFinalizers = (
  finalizers: ReadonlyArray<string>,
  annotations?: Record<string, string>,
): KubeObject => ({
  apiVersion: "cluster.x-k8s.io/v1beta2",
  kind: "Cluster",
  metadata: { ...key, finalizers: [...finalizers], ...(annotations === undefined ? {} : { annotations }) },
})

const server = Effect.gen(function* () {
  const mgmt = yield* FakeApiServer.make()
  mgmt.register(ClusterResource)
  yield* mgmt.client().create(ClusterResource, withFinalizers([]))
  return mgmt
})

describe("foreignFinalizerLost", () => {
  it("reports a commit that drops the foreign finalizer", () => {
    assert.strictEqual(
      foreignFinalizerLost(withFinalizers([FOREIGN_FINALIZER]), withFinalizers([OWN])),
      `another controller's finalizer ${FOREIGN_FINALIZER} lost`,
    )
    assert.isDefined(foreignFinalizerLost(withFinalizers([OWN, FOREIGN_FINALIZER]), withFinalizers([])))
  })

  it("accepts a commit that keeps it, its owner's release, and objects it never held", () => {
    assert.isUndefined(
      foreignFinalizerLost(withFinalizers([FOREIGN_FINALIZER]), withFinalizers([FOREIGN_FINALIZER, OWN])),
    )
    assert.isUndefined(
      foreignFinalizerLost(
        withFinalizers([OWN, FOREIGN_FINALIZER]),
        withFinalizers([OWN], { [FOREIGN_RELEASED_ANNOTATION]: "true" }),
      ),
    )
    assert.isUndefined(foreignFinalizerLost(withFinalizers([OWN]), withFinalizers([])))
    assert.isUndefined(foreignFinalizerLost(undefined, withFinalizers([])))
  })
})

describe("the foreign finalizer on a server", () => {
  it.effect("is added and released by its steps without a violation", () =>
    Effect.gen(function* () {
      const mgmt = yield* server
      const violations: Array<string> = []
      const off = watchForeignFinalizers(mgmt, violations)
      const stage = { mgmt, workload: () => mgmt }
      yield* addForeignFinalizer("protect", 0, ClusterResource, key).run(stage)
      assert.deepStrictEqual((yield* mgmt.client().get(ClusterResource, key)).metadata.finalizers, [
        FOREIGN_FINALIZER,
      ])
      yield* releaseForeignFinalizer("let go", 0, ClusterResource, key).run(stage)
      assert.isUndefined((yield* mgmt.client().get(ClusterResource, key)).metadata.finalizers)
      // Releasing again, or an object already gone, is nothing.
      yield* releaseForeignFinalizer("let go", 0, ClusterResource, key).run(stage)
      yield* mgmt.client().delete(ClusterResource, key)
      yield* releaseForeignFinalizer("let go", 0, ClusterResource, key).run(stage)
      off()
      assert.deepStrictEqual(violations, [])
    }),
  )

  it.effect("catches a controller that sets its finalizer list from scratch, dropping the foreign one", () =>
    Effect.gen(function* () {
      const mgmt = yield* server
      const violations: Array<string> = []
      const off = watchForeignFinalizers(mgmt, violations)
      yield* addForeignFinalizer("protect", 0, ClusterResource, key).run({ mgmt, workload: () => mgmt })
      // The broken controller: its AddFinalizer writes only its own finalizer.
      yield* mgmt.client().patch(ClusterResource, key, mergePatch({ metadata: { finalizers: [OWN] } }))
      off()
      assert.strictEqual(violations.length, 1)
      assert.include(violations[0], `chaos/c1: another controller's finalizer ${FOREIGN_FINALIZER} lost`)
    }),
  )
})
