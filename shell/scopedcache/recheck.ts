/**
 * The permission recheck: the API server does not re-authorize an open watch, so a Role revoked
 * while an informer watches is noticed by reviewing the running informers' access on a timer
 * (`permissionRecheckInterval`, 10 s by default; `0` turns it off).
 *
 * # Expected flow
 * Every interval, one SelfSubjectAccessReview of `watch` (the verb an open watch goes on relying
 * on) per resource and namespace that has running informers, shared by the informers of that
 * scope; a refusal counts as a 403 on each of them: the registry's table gets a `PermissionLost`
 * with the run's generation (`operate.ts`).
 *
 * # Guarantees
 * - A revoked grant is noticed within the interval plus one review.
 * - A review that fails (not a refusal) is ignored until the next round.
 * - At most 8 reviews run at once; the timer ends with the cache's scope.
 *
 * @module
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { Forbidden } from "../kube/errors.ts"
import { resourcePath } from "../kube/resource.ts"
import type { CacheContext } from "./context.ts"
import type { Operate } from "./operate.ts"
import { millisOf } from "./options.ts"
import type { Running } from "./running.ts"

/** Reviews the `watch` access of the informers of one scope; a refusal stops each of them. */
const recheckScope = (ctx: CacheContext, operate: Operate, group: ReadonlyArray<Running>) =>
  Effect.gen(function* () {
    const spec = (group[0] as Running).informer.spec
    const decision = yield* Effect.result(
      ctx.reviewer({ resource: spec.resource, namespace: spec.namespace, verbs: ["watch"] }),
    )
    if (decision._tag === "Failure" || decision.success.allowed) return
    const at = yield* Clock.currentTimeMillis
    const verb = "watch"
    const message = `access review: ${decision.success.denied.join(" and ")} denied${
      decision.success.reason === undefined ? "" : `: ${decision.success.reason}`
    }`
    const error = new Forbidden({
      verb,
      path: resourcePath(spec.resource, { namespace: spec.namespace }),
      message,
    })
    yield* Effect.forEach(
      group,
      (running) =>
        operate(
          { _tag: "PermissionLost", ref: running.ref, verb, message },
          { generation: running.generation, loss: { verb, error, at } },
        ),
      { discard: true },
    )
  })

/** One round: the running informers grouped by resource and namespace, each group reviewed once. */
export const recheck = (ctx: CacheContext, operate: Operate): Effect.Effect<void> =>
  Effect.suspend(() => {
    const scopes = new Map<string, Array<Running>>()
    for (const running of ctx.levels.all()) {
      const spec = running.informer.spec
      const k = `${spec.resource.group}/${spec.resource.resource}|${spec.namespace ?? ""}`
      scopes.set(k, [...(scopes.get(k) ?? []), running])
    }
    return Effect.forEach(scopes.values(), (group) => recheckScope(ctx, operate, group), {
      concurrency: 8,
      discard: true,
    })
  })

/** Starts the recheck timer in the cache's scope (none when the interval is 0). */
export const startRecheck = (ctx: CacheContext, operate: Operate): Effect.Effect<void> => {
  const every = millisOf(ctx.config.permissionRecheckInterval)
  if (every <= 0) return Effect.void
  return Effect.asVoid(
    Effect.forkIn(
      Effect.forever(Effect.andThen(Effect.sleep(every), recheck(ctx, operate))).pipe(ctx.annotate),
      ctx.cacheScope,
    ),
  )
}
