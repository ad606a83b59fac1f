/**
 * The third-party writer of `reorder` runs: another client of the API server that edits the object
 * the operator is about to write (labels, annotations and, where a suite asks, a foreign status
 * condition and a finalizer of its own, `hold.ts`), so that the operator's write lands on a newer
 * object than the one it computed from.
 *
 * Guarantees: it writes only under `chaos.krtt.dev/` keys, its own condition type
 * (`FOREIGN_CONDITION`) and its own finalizer, which the snapshot masks (`snapshot.ts`; the
 * finalizer is gone again once the operator's write is answered) and the invariants hold the
 * operator to keep (`invariants.ts`); its status and finalizer writes use optimistic
 * concurrency, as a well-behaved writer's do.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import type { FakeApiServer } from "../apiserver/server.ts"
import type { Patch } from "../kube/patch.ts"
import type { KubeObject, ResourceRef } from "../kube/resource.ts"
import { addHold, releaseHold } from "./hold.ts"
import type { Suite, ThirdPartyEdit } from "./suite.ts"

/** The foreign condition the third-party writer keeps on Clusters. */
export const FOREIGN_CONDITION = "ChaosForeignReady"
/** The prefix of the third party's labels and annotations. */
export const THIRD_PARTY_PREFIX = "chaos.krtt.dev/"

/** A status condition, as far as the third party and the invariants read it. */
export type Condition = { readonly type: string; readonly status?: string }

/** An object's status conditions (none when it has no status). */
export const conditionsOf = (o: KubeObject | undefined): ReadonlyArray<Condition> =>
  ((o as { status?: { conditions?: ReadonlyArray<Condition> } } | undefined)?.status?.conditions ??
    []) as ReadonlyArray<Condition>

/**
 * The third-party writer: labels, annotations, (with `condition`) a foreign status condition and
 * (with `hold`) its finalizer on one object; undefined when the object is not there. The edit's
 * `release` takes the finalizer off again.
 */
export const thirdPartyWrite = (
  server: FakeApiServer,
  ref: ResourceRef,
  key: { readonly namespace?: string | undefined; readonly name: string },
  n: number,
  options: { readonly condition: boolean; readonly hold: boolean } = { condition: true, hold: false },
): Effect.Effect<ThirdPartyEdit | undefined> =>
  Effect.gen(function* () {
    const c = server.client()
    const found = yield* Effect.result(c.get(ref, key))
    if (found._tag === "Failure") return undefined
    const meta: Patch = {
      type: "merge",
      body: {
        metadata: {
          labels: { [`${THIRD_PARTY_PREFIX}touched`]: String(n) },
          annotations: { [`${THIRD_PARTY_PREFIX}note`]: `write ${n}` },
        },
      },
    }
    if (found.success.metadata.deletionTimestamp === undefined) yield* Effect.result(c.patch(ref, key, meta))
    const relabelled = yield* Effect.result(c.get(ref, key))
    const held =
      options.hold && relabelled._tag === "Success" && (yield* addHold(c, ref, key, relabelled.success))
    const edit: ThirdPartyEdit = { release: held ? releaseHold(c, ref, key) : Effect.void }
    if (!options.condition) return edit
    // A status writer of its own condition, with optimistic concurrency, as a well-behaved one is.
    for (let attempt = 0; attempt < 5; attempt++) {
      const fresh = yield* Effect.result(c.get(ref, key))
      if (fresh._tag === "Failure") return edit
      const o = fresh.success as KubeObject & { status?: { conditions?: Array<Condition> } }
      const conditions = [
        ...(o.status?.conditions ?? []).filter((x) => x.type !== FOREIGN_CONDITION),
        { type: FOREIGN_CONDITION, status: "True", reason: "Observed", message: `write ${n}` },
      ]
      const written = yield* Effect.result(c.updateStatus(ref, { ...o, status: { ...o.status, conditions } }))
      if (written._tag === "Success" || written.failure._tag !== "Conflict") return edit
    }
    return edit
  })

/**
 * A suite's third party: it edits the object of `ref` about to be written; when the write is of
 * another kind, the first object of `ref` (in `fallbackNamespace`), or (without one) nothing.
 */
export const thirdPartyOn =
  (
    ref: ResourceRef,
    options: {
      readonly fallbackNamespace?: string | undefined
      readonly condition: boolean
      /** Whether it also holds the object with a finalizer of its own (`hold.ts`). */
      readonly hold: boolean
    },
  ): Suite["thirdParty"] =>
  (mgmt, target, n) => {
    const onTarget = target.ref.resource === ref.resource && target.name !== undefined
    if (!onTarget && options.fallbackNamespace === undefined) return Effect.succeed(undefined)
    const name = onTarget ? target.name : mgmt.objects(ref)[0]?.metadata.name
    const key = { namespace: onTarget ? target.namespace : options.fallbackNamespace, name: name ?? "" }
    return name === undefined
      ? Effect.succeed(undefined)
      : thirdPartyWrite(onTarget ? target.server : mgmt, ref, key, n, options)
  }
