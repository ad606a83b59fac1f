/**
 * Scenario steps that act on the hub API server's watches, as a real control plane ends and
 * breaks them: watches ended cleanly (their `timeoutSeconds` reached), broken by an `ERROR` 500
 * frame (etcd failing under the server), and the hub's Secret watches refused for a while (a
 * proxy or an RBAC change in between) while a Secret is deleted and the history compacted, so
 * that the reflectors relist. Every watcher of the hub gets the same, the operator's and the
 * plain reflectors beside it.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import type { KubeError } from "../kube/errors.ts"
import { Resources } from "../kube/resource.ts"
import type { Step } from "./scenarios.ts"

/** The hub API server ends every open watch cleanly. */
export const hubWatchesEnd = (settleMillis: number): Step => ({
  name: "the hub API server ends its watches (timeoutSeconds reached)",
  settleMillis,
  run: ({ mgmt }) => Effect.sync(() => mgmt.closeWatches()),
})

/** The hub API server breaks every open watch with an `ERROR` 500 frame. */
export const hubWatchesFail = (settleMillis: number): Step => ({
  name: "the hub API server breaks its watches with an ERROR 500 frame",
  settleMillis,
  run: ({ mgmt }) =>
    Effect.sync(() =>
      mgmt.failWatches({ code: 500, reason: "InternalError", message: "etcdserver: request timed out" }),
    ),
})

/**
 * From now, watches of the hub's Secrets fail with `error` (lists still answer) and the open ones
 * end; with `deleted`, that Secret is deleted meanwhile and the history compacted, so a watcher
 * coming back finds its resourceVersion gone.
 */
export const hubSecretWatchesRefused = (
  error: KubeError["_tag"],
  settleMillis: number,
  deleted?: { readonly namespace: string; readonly name: string },
): Step => ({
  name: `watches of the hub's Secrets refused with ${error}${deleted === undefined ? "" : `, Secret ${deleted.name} deleted meanwhile, history compacted`}`,
  settleMillis,
  run: ({ mgmt }) =>
    Effect.gen(function* () {
      mgmt.inject({ verb: "watch", resource: Resources.secrets.resource, error })
      mgmt.closeWatches()
      if (deleted === undefined) return
      yield* mgmt.client().delete(Resources.secrets, deleted)
      mgmt.compact()
    }),
})

/** The hub answers watches of its Secrets again. */
export const hubSecretWatchesBack = (settleMillis: number): Step => ({
  name: "watches of the hub's Secrets answered again",
  settleMillis,
  run: ({ mgmt }) => Effect.sync(() => mgmt.clearFaults()),
})
