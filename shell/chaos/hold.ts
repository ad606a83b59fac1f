/**
 * The third party's finalizer in `reorder` runs: besides its labels, annotations and condition,
 * the third-party writer puts a finalizer of its own (`HOLD_FINALIZER`) on a live object the
 * operator is about to write, and takes it off once that write is answered, as a controller that
 * holds an object for a moment (a backup, an audit) does. An operator that writes its own
 * finalizers without a resourceVersion, from the list it read before, drops the hold: a real
 * cluster would then delete the object before its other holder let it go.
 *
 * Guarantees:
 * - The hold is only added to an object that is not deleting (the API server refuses new
 *   finalizers then), with a resourceVersion check; its release is checked the same way,
 *   retried on Conflict, and marks the object `RELEASED_ANNOTATION` (masked, under the third
 *   party's prefix), so that `heldFinalizerLost` tells the release from a loss.
 * - Once released, the object is as the operator left it: a deleting object whose last finalizer
 *   was the hold is removed by the release, as the reference run removed it earlier.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import type { KubeClientShape } from "../kube/client.ts"
import { mergePatch } from "../kube/patch.ts"
import type { KubeObject, ResourceRef } from "../kube/resource.ts"

/** The third party's finalizer. */
export const HOLD_FINALIZER = "chaos.krtt.dev/third-party"
/** Set by the third party's own release of the hold. */
export const RELEASED_ANNOTATION = "chaos.krtt.dev/released"

type Key = { readonly namespace?: string | undefined; readonly name: string }

const finalizersOf = (o: KubeObject): ReadonlyArray<string> => o.metadata.finalizers ?? []

/** Adds the hold to `found` (as read); false when it is deleting or changed meanwhile. */
export const addHold = (c: KubeClientShape, ref: ResourceRef, key: Key, found: KubeObject) =>
  Effect.gen(function* () {
    if (found.metadata.deletionTimestamp !== undefined) return false
    if (finalizersOf(found).includes(HOLD_FINALIZER)) return true
    const patch = mergePatch({
      metadata: {
        resourceVersion: found.metadata.resourceVersion,
        finalizers: [...finalizersOf(found), HOLD_FINALIZER],
      },
    })
    return (yield* Effect.result(c.patch(ref, key, patch)))._tag === "Success"
  })

/** Takes the hold off again (up to 5 tries on Conflict); nothing when it is not there. */
export const releaseHold = (c: KubeClientShape, ref: ResourceRef, key: Key): Effect.Effect<void> =>
  Effect.gen(function* () {
    for (let attempt = 0; attempt < 5; attempt++) {
      const fresh = yield* Effect.result(c.get(ref, key))
      if (fresh._tag === "Failure" || !finalizersOf(fresh.success).includes(HOLD_FINALIZER)) return
      const rest = finalizersOf(fresh.success).filter((f) => f !== HOLD_FINALIZER)
      const patch = mergePatch({
        metadata: {
          resourceVersion: fresh.success.metadata.resourceVersion,
          finalizers: rest.length === 0 ? null : rest,
          annotations: { [RELEASED_ANNOTATION]: "true" },
        },
      })
      const written = yield* Effect.result(c.patch(ref, key, patch))
      if (written._tag === "Success" || written.failure._tag !== "Conflict") return
    }
  })

/** The hold gone from a commit that is not the third party's own release. */
export const heldFinalizerLost = (old: KubeObject | undefined, object: KubeObject): string | undefined => {
  if (old === undefined || !finalizersOf(old).includes(HOLD_FINALIZER)) return undefined
  if (finalizersOf(object).includes(HOLD_FINALIZER)) return undefined
  if (object.metadata.annotations?.[RELEASED_ANNOTATION] === "true") return undefined
  return `another writer's finalizer ${HOLD_FINALIZER} lost`
}
