import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { KubeClientShape } from "../kube/client.ts"
import type { KubeObject, ResourceRef } from "../kube/resource.ts"
import { Resources } from "../kube/resource.ts"
import { reviewBody, SelfSubjectAccessReviews, selfSubjectAccessReviewer } from "./accessReview.ts"

/** A client whose only call is `create`, answering reviews from `allowed` (verb → answer). */
const reviewingClient = (allowed: (attrs: Record<string, unknown>) => boolean, seen: Array<KubeObject>) =>
  ({
    create: (resource: ResourceRef, object: KubeObject) =>
      Effect.sync(() => {
        assert.deepStrictEqual(resource, SelfSubjectAccessReviews)
        seen.push(object)
        const attrs = (object.spec as { resourceAttributes: Record<string, unknown> }).resourceAttributes
        const ok = allowed(attrs)
        return { ...object, status: ok ? { allowed: true } : { allowed: false, reason: `no ${attrs.verb}` } }
      }),
  }) as unknown as KubeClientShape

describe("selfSubjectAccessReviewer", () => {
  it.effect("reviews list and watch; allowed only when both are", () =>
    Effect.gen(function* () {
      const seen: Array<KubeObject> = []
      const review = selfSubjectAccessReviewer(reviewingClient((a) => a.verb === "list", seen))
      const d = yield* review({ resource: Resources.configMaps, namespace: "team-a" })
      assert.deepStrictEqual(d, { allowed: false, denied: ["watch"], reason: "no watch" })
      assert.deepStrictEqual(
        seen.map((o) => (o.spec as { resourceAttributes: unknown }).resourceAttributes),
        [
          { group: "", version: "v1", resource: "configmaps", verb: "list", namespace: "team-a" },
          { group: "", version: "v1", resource: "configmaps", verb: "watch", namespace: "team-a" },
        ],
      )
      const all = selfSubjectAccessReviewer(reviewingClient(() => true, []))
      assert.deepStrictEqual(yield* all({ resource: Resources.configMaps, namespace: "team-a" }), {
        allowed: true,
        denied: [],
        reason: undefined,
      })
    }),
  )

  it("asks at cluster scope without a namespace, and for cluster-scoped resources", () => {
    const attrs = (o: KubeObject) =>
      (o.spec as { resourceAttributes: Record<string, unknown> }).resourceAttributes
    assert.notProperty(
      attrs(reviewBody({ resource: Resources.configMaps, namespace: undefined }, "list")),
      "namespace",
    )
    assert.notProperty(
      attrs(reviewBody({ resource: Resources.namespaces, namespace: "x" }, "list")),
      "namespace",
    )
    assert.strictEqual(
      reviewBody({ resource: Resources.namespaces, namespace: "x" }, "list").kind,
      "SelfSubjectAccessReview",
    )
  })
})
