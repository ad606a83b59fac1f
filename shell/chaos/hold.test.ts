// The third party's finalizer of `reorder` runs (hold.ts): put on and taken off with
// resourceVersion checks, and the oracle that tells a lost hold from the third party's release.
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { FakeApiServer } from "../apiserver/server.ts"
import { ClusterResource } from "../clustercache/service.ts"
import { mergePatch } from "../kube/patch.ts"
import type { KubeObject } from "../kube/resource.ts"
import { addHold, HOLD_FINALIZER, heldFinalizerLost, RELEASED_ANNOTATION, releaseHold } from "./hold.ts"
import { watchInvariants } from "./invariants.ts"

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
  const c = mgmt.client()
  yield* c.create(ClusterResource, withFinalizers([OWN]))
  return { mgmt, c }
})

describe("heldFinalizerLost", () => {
  it("reports a commit that drops the hold", () => {
    assert.strictEqual(
      heldFinalizerLost(withFinalizers([OWN, HOLD_FINALIZER]), withFinalizers([OWN])),
      `another writer's finalizer ${HOLD_FINALIZER} lost`,
    )
    assert.isDefined(heldFinalizerLost(withFinalizers([HOLD_FINALIZER]), withFinalizers([])))
  })

  it("accepts a commit that keeps the hold, the third party's release, and objects never held", () => {
    assert.isUndefined(heldFinalizerLost(withFinalizers([HOLD_FINALIZER]), withFinalizers([HOLD_FINALIZER])))
    assert.isUndefined(
      heldFinalizerLost(
        withFinalizers([OWN, HOLD_FINALIZER]),
        withFinalizers([OWN], { [RELEASED_ANNOTATION]: "true" }),
      ),
    )
    assert.isUndefined(heldFinalizerLost(withFinalizers([OWN]), withFinalizers([])))
    assert.isUndefined(heldFinalizerLost(undefined, withFinalizers([])))
  })
})

describe("the hold on a server", () => {
  it.effect("is added and released without a violation; a finalizer write from a stale read loses it", () =>
    Effect.gen(function* () {
      const { mgmt, c } = yield* server
      const violations: Array<string> = []
      const off = watchInvariants(mgmt, violations)
      const read = yield* c.get(ClusterResource, key)
      assert.isTrue(yield* addHold(c, ClusterResource, key, read))
      assert.deepStrictEqual((yield* c.get(ClusterResource, key)).metadata.finalizers, [OWN, HOLD_FINALIZER])
      yield* releaseHold(c, ClusterResource, key)
      const released = yield* c.get(ClusterResource, key)
      assert.deepStrictEqual(released.metadata.finalizers, [OWN])
      assert.deepStrictEqual(violations, [])

      // Held again (the released mark cleared by another writer), then a finalizer list
      // computed from the read before the hold, written without a resourceVersion.
      yield* c.patch(
        ClusterResource,
        key,
        mergePatch({ metadata: { annotations: { [RELEASED_ANNOTATION]: null } } }),
      )
      assert.isTrue(yield* addHold(c, ClusterResource, key, yield* c.get(ClusterResource, key)))
      yield* c.patch(ClusterResource, key, mergePatch({ metadata: { finalizers: [OWN] } }))
      off()
      assert.deepStrictEqual(violations, [
        `Cluster chaos/c1: another writer's finalizer ${HOLD_FINALIZER} lost (rv ${(yield* c.get(ClusterResource, key)).metadata.resourceVersion})`,
      ])
    }),
  )

  it.effect("is not added to a stale read nor to a deleting object", () =>
    Effect.gen(function* () {
      const { c } = yield* server
      const read = yield* c.get(ClusterResource, key)
      yield* c.patch(ClusterResource, key, mergePatch({ metadata: { labels: { a: "b" } } }))
      assert.isFalse(yield* addHold(c, ClusterResource, key, read))
      yield* c.delete(ClusterResource, key)
      const deleting = yield* c.get(ClusterResource, key)
      assert.isDefined(deleting.metadata.deletionTimestamp)
      assert.isFalse(yield* addHold(c, ClusterResource, key, deleting))
      assert.deepStrictEqual((yield* c.get(ClusterResource, key)).metadata.finalizers, [OWN])
    }),
  )
})
