/**
 * Fixtures shared by the in-memory API server's tests: a namespaced custom resource with a status
 * subresource, and the small effects the tests use to read failures and let watches catch up.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import type { KubeError } from "../kube/errors.ts"
import type { ResourceRef } from "../kube/resource.ts"

/** A namespaced custom resource (with a status subresource, the server's default). */
export const widgets: ResourceRef = {
  group: "example.com",
  version: "v1",
  resource: "widgets",
  kind: "Widget",
  namespaced: true,
}

/** The tag of the error `effect` fails with (the test fails if it succeeds). */
export const failure = <A>(effect: Effect.Effect<A, KubeError>): Effect.Effect<KubeError["_tag"], A> =>
  Effect.map(Effect.flip(effect), (e) => e._tag)

/** Yields enough times for forked watch consumers to take what is queued. */
export const settle: Effect.Effect<void> = Effect.asVoid(Effect.repeat(Effect.yieldNow, { times: 20 }))
