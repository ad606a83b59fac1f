/**
 * A takeover in the propagate suite's `reorder` runs: right before the operator updates a copy in
 * a workload cluster, the third party takes the object over (removes its copy label, so that it
 * is no longer a copy of anything), and gives it back once the update is answered (puts the label
 * back, marked `TAKEN_BACK_ANNOTATION`). An update checked against the resourceVersion the
 * operator observed is refused, and the operator, observing again, finds its copy back; an
 * update without that check overwrites an object that was not a copy when it landed, which the
 * suite's "left alone" invariant reports.
 *
 * Guarantees: both writes are checked against the resourceVersion read just before (the give-back
 * retried on Conflict); the give-back only restores the label when the object has none, and its
 * mark (under the third party's prefix) is masked in the compared state.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import type { KubeClientShape } from "../kube/client.ts"
import { mergePatch } from "../kube/patch.ts"
import type { KubeObject, ResourceRef } from "../kube/resource.ts"

/** Set by the third party's give-back. */
export const TAKEN_BACK_ANNOTATION = "chaos.krtt.dev/taken-back"

type Key = { readonly namespace?: string | undefined; readonly name: string }

/** Puts `label: value` back on the object when it has no such label (up to 5 tries on Conflict). */
const giveBack = (c: KubeClientShape, ref: ResourceRef, key: Key, label: string, value: string) =>
  Effect.gen(function* () {
    for (let attempt = 0; attempt < 5; attempt++) {
      const fresh = yield* Effect.result(c.get(ref, key))
      if (fresh._tag === "Failure" || fresh.success.metadata.labels?.[label] !== undefined) return
      const patch = mergePatch({
        metadata: {
          resourceVersion: fresh.success.metadata.resourceVersion,
          labels: { [label]: value },
          annotations: { [TAKEN_BACK_ANNOTATION]: "true" },
        },
      })
      const written = yield* Effect.result(c.patch(ref, key, patch))
      if (written._tag === "Success" || written.failure._tag !== "Conflict") return
    }
  })

/**
 * Removes `label` from the object (checked against the resourceVersion just read); returns what
 * gives it back (nothing when the object has no such label or changed meanwhile).
 */
export const takeOver = (
  c: KubeClientShape,
  ref: ResourceRef,
  key: Key,
  label: string,
): Effect.Effect<Effect.Effect<void>> =>
  Effect.gen(function* () {
    const found = yield* Effect.result(c.get(ref, key))
    const value = found._tag === "Success" ? found.success.metadata.labels?.[label] : undefined
    if (found._tag === "Failure" || value === undefined) return Effect.void
    const patch = mergePatch({
      metadata: { resourceVersion: found.success.metadata.resourceVersion, labels: { [label]: null } },
    })
    const taken = yield* Effect.result(c.patch(ref, key, patch))
    return taken._tag === "Success" ? giveBack(c, ref, key, label, value) : Effect.void
  })

/** Whether a commit is the third party's give-back of an object it took over. */
export const givenBack = (old: KubeObject, object: KubeObject, label: string): boolean =>
  old.metadata.labels?.[label] === undefined &&
  object.metadata.labels?.[label] !== undefined &&
  old.metadata.annotations?.[TAKEN_BACK_ANNOTATION] === undefined &&
  object.metadata.annotations?.[TAKEN_BACK_ANNOTATION] === "true"
