/**
 * A foreign controller's finalizer (a backup controller protecting what it has not backed up
 * yet), placed by a scenario's step on an object the controller under test also holds with a
 * finalizer of its own, and taken off by a later step. The promise at stake: a controller adds and
 * removes its own finalizer only; another controller's finalizer is never lost by its writes.
 *
 * Unlike the third party's hold (`hold.ts`), this finalizer is not under the third party's prefix,
 * so it is in the compared state of every run, and the scenario decides when it comes and goes.
 * Its release marks the object with `FOREIGN_RELEASED_ANNOTATION`, so that `foreignFinalizerLost`
 * tells the release from a loss.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import type { FakeApiServer } from "../apiserver/server.ts"
import type { KubeError } from "../kube/errors.ts"
import { mergePatch } from "../kube/patch.ts"
import type { KubeObject, ResourceRef } from "../kube/resource.ts"
import type { Step } from "./scenarios.ts"

/** The foreign controller's finalizer. */
export const FOREIGN_FINALIZER = "backup.example.com/protect"
/** Set by the foreign controller's own release of its finalizer. */
export const FOREIGN_RELEASED_ANNOTATION = "backup.example.com/released"

type Key = { readonly namespace?: string | undefined; readonly name: string }

const finalizersOf = (o: KubeObject | undefined): ReadonlyArray<string> => o?.metadata.finalizers ?? []

/** The foreign finalizer gone in a commit that is not the foreign controller's own release. */
export const foreignFinalizerLost = (old: KubeObject | undefined, object: KubeObject): string | undefined => {
  if (!finalizersOf(old).includes(FOREIGN_FINALIZER)) return undefined
  if (finalizersOf(object).includes(FOREIGN_FINALIZER)) return undefined
  if (object.metadata.annotations?.[FOREIGN_RELEASED_ANNOTATION] === "true") return undefined
  return `another controller's finalizer ${FOREIGN_FINALIZER} lost`
}

/** The oracle on every committed write of `mgmt`: no foreign finalizer lost. Returns the unsubscribe. */
export const watchForeignFinalizers = (mgmt: FakeApiServer, violations: Array<string>): (() => void) =>
  mgmt.onCommit(({ resource, object, old }) => {
    const lost = foreignFinalizerLost(old, object)
    if (lost !== undefined)
      violations.push(
        `${resource} ${object.metadata.namespace ?? ""}/${object.metadata.name ?? ""}: ${lost} (rv ${object.metadata.resourceVersion})`,
      )
  })

/**
 * Rewrites the object's finalizers with optimistic concurrency (up to 5 tries on Conflict):
 * `edit` gives the new list from the current one; `annotations` go with the write. An object
 * already gone is left alone (the oracle says whether it went with the finalizer still on).
 */
export const rewriteFinalizers = (
  mgmt: FakeApiServer,
  ref: ResourceRef,
  key: Key,
  edit: (current: ReadonlyArray<string>) => ReadonlyArray<string>,
  annotations: Record<string, string> = {},
): Effect.Effect<void, KubeError> =>
  Effect.gen(function* () {
    const c = mgmt.client()
    for (let attempt = 0; attempt < 5; attempt++) {
      const read = yield* Effect.result(c.get(ref, key))
      if (read._tag === "Failure") {
        if (read.failure._tag === "NotFound") return
        return yield* Effect.fail(read.failure)
      }
      const found = read.success
      const finalizers = edit(finalizersOf(found))
      const patch = mergePatch({
        metadata: {
          resourceVersion: found.metadata.resourceVersion,
          finalizers: finalizers.length === 0 ? null : finalizers,
          ...(Object.keys(annotations).length === 0 ? {} : { annotations }),
        },
      })
      const written = yield* Effect.result(c.patch(ref, key, patch))
      if (written._tag === "Success") return
      if (written.failure._tag !== "Conflict") return yield* Effect.fail(written.failure)
    }
  })

/** A step: the foreign controller adds its finalizer to the object (after the ones it has). */
export const addForeignFinalizer = (
  what: string,
  settleMillis: number,
  ref: ResourceRef,
  key: Key,
): Step => ({
  name: what,
  settleMillis,
  run: ({ mgmt }) =>
    rewriteFinalizers(mgmt, ref, key, (current) => [
      ...current.filter((f) => f !== FOREIGN_FINALIZER),
      FOREIGN_FINALIZER,
    ]),
})

/** A step: the foreign controller takes its finalizer off the object (a deleting one then goes). */
export const releaseForeignFinalizer = (
  what: string,
  settleMillis: number,
  ref: ResourceRef,
  key: Key,
): Step => ({
  name: what,
  settleMillis,
  run: ({ mgmt }) =>
    rewriteFinalizers(mgmt, ref, key, (current) => current.filter((f) => f !== FOREIGN_FINALIZER), {
      [FOREIGN_RELEASED_ANNOTATION]: "true",
    }),
})
