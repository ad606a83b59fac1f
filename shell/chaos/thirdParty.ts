/**
 * The third-party writer of `reorder` runs: another client of the API server that edits the object
 * the operator is about to write (labels, annotations and, where a suite asks, a foreign status
 * condition of its own), so that the operator's write lands on a newer object than the one it
 * computed from.
 *
 * Guarantees: it writes only under `chaos.krtt.dev/` keys and its own condition type
 * (`FOREIGN_CONDITION`), which the snapshot masks (`snapshot.ts`) and the invariants hold the
 * operator to keep (`invariants.ts`); its status write uses optimistic concurrency, as a
 * well-behaved writer's does.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import type { FakeApiServer } from "../apiserver/server.ts"
import type { Patch } from "../kube/patch.ts"
import type { KubeObject, ResourceRef } from "../kube/resource.ts"
import type { Suite } from "./suite.ts"

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
 * The third-party writer: labels, annotations and (with `condition`) a foreign status condition
 * on one object.
 */
export const thirdPartyWrite = (
  server: FakeApiServer,
  ref: ResourceRef,
  key: { readonly namespace?: string | undefined; readonly name: string },
  n: number,
  condition = true,
) =>
  Effect.gen(function* () {
    const c = server.client()
    const found = yield* Effect.result(c.get(ref, key))
    if (found._tag === "Failure") return false
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
    if (!condition) return true
    // A status writer of its own condition, with optimistic concurrency, as a well-behaved one is.
    for (let attempt = 0; attempt < 5; attempt++) {
      const fresh = yield* Effect.result(c.get(ref, key))
      if (fresh._tag === "Failure") return true
      const o = fresh.success as KubeObject & { status?: { conditions?: Array<Condition> } }
      const conditions = [
        ...(o.status?.conditions ?? []).filter((x) => x.type !== FOREIGN_CONDITION),
        { type: FOREIGN_CONDITION, status: "True", reason: "Observed", message: `write ${n}` },
      ]
      const written = yield* Effect.result(c.updateStatus(ref, { ...o, status: { ...o.status, conditions } }))
      if (written._tag === "Success" || written.failure._tag !== "Conflict") return true
    }
    return true
  })

/**
 * A suite's third party: it edits the object of `ref` about to be written; when the write is of
 * another kind, the first object of `ref` (in `fallbackNamespace`), or (without one) nothing.
 */
export const thirdPartyOn =
  (
    ref: ResourceRef,
    options: { readonly fallbackNamespace?: string | undefined; readonly condition: boolean },
  ): Suite["thirdParty"] =>
  (mgmt, target, n) => {
    const onTarget = target.ref.resource === ref.resource && target.name !== undefined
    if (!onTarget && options.fallbackNamespace === undefined) return Effect.succeed(false)
    const name = onTarget ? target.name : mgmt.objects(ref)[0]?.metadata.name
    const key = { namespace: onTarget ? target.namespace : options.fallbackNamespace, name: name ?? "" }
    return name === undefined
      ? Effect.succeed(false)
      : thirdPartyWrite(onTarget ? target.server : mgmt, ref, key, n, options.condition)
  }
