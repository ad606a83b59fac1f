/**
 * Carrying out the registry's actions (core/scopedcache/actions.ts), one at a time, for the
 * registry's table (`operate.ts`): `StartInformer` builds an informer with the cache's factory and
 * puts it among the running ones, `StopInformer` takes it out and closes its scope,
 * `NotifyDependents` publishes one event, `Log` writes one line.
 *
 * # Guarantees
 * - Nothing here waits for I/O, since it runs under the cache's lock: an informer's list and
 *   watch run on its own fibers, its scope closes on the cache's (`background`), and events are
 *   published there too, once its scope has closed.
 * - A stopped informer's scope closes within `stopTimeout` or is abandoned with a warning; either
 *   way its `closed` completes, so an event waiting for it is published.
 * - An informer's 403 and its first sync come back as operations (`PermissionLost`,
 *   `InformerSynced`) that carry its generation: a stopped run's are dropped (`operate.ts`).
 *
 * @module
 */
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as FiberSet from "effect/FiberSet"
import * as Option from "effect/Option"
import * as PubSub from "effect/PubSub"
import * as Scope from "effect/Scope"
import type { RowId } from "../../core/krtt/index.ts"
import type { ScopedCacheAction } from "../../core/scopedcache/actions.ts"
import { gvkString, type InformerRef, refString } from "../../core/scopedcache/types.ts"
import { type CacheContext, lossKey, type State } from "./context.ts"
import type { InformerSpec, PermissionLoss } from "./informer.ts"
import type { Operate } from "./operate.ts"
import type { Ended, Running } from "./running.ts"

/** What the actions of one answer share. */
export interface ActionRun {
  readonly state: State
  /** The row that decided. */
  readonly row: RowId
  /** The 403 the answer is about, for `PermissionLost`. */
  readonly loss: PermissionLoss | undefined
  /** The informers this answer stopped, by `refString`, for the events about them. */
  readonly stopped: Map<string, Running>
}

/**
 * Closes a stopped informer's scope on the cache's fibers, abandoning it after `stopTimeout`.
 * Closing runs the scope's finalizers uninterruptibly, so the close runs on a fiber of its own
 * that nothing waits for past the timeout: a scope that never closes neither holds the event for
 * the dependents nor the cache's own close.
 */
const closeInBackground = (ctx: CacheContext, running: Running) =>
  FiberSet.run(
    ctx.background,
    Effect.gen(function* () {
      const closing = yield* Effect.forkDetach(Scope.close(running.scope, Exit.void))
      const closed = yield* Effect.timeoutOption(Fiber.await(closing), ctx.stopTimeout)
      if (Option.isNone(closed))
        yield* Effect.logWarning("informer did not stop in time; abandoned").pipe(
          Effect.annotateLogs({ informer: refString(running.ref), timeoutMs: ctx.stopTimeout }),
        )
      yield* Deferred.succeed(running.closed, yield* Clock.currentTimeMillis)
    }),
  )

/** Starts the informer of a registered ref (once), with the indexes known now. */
const startInformer = (ctx: CacheContext, operate: Operate, s: State, ref: InformerRef) =>
  Effect.gen(function* () {
    const base = s.specs.get(refString(ref))
    if (base === undefined || ctx.levels.running(ref) !== undefined) return
    s.losses.delete(lossKey(ref.namespace, ref.gvk))
    const spec: InformerSpec = {
      ...base,
      indexers: Object.fromEntries(ctx.indexers.get(gvkString(ref.gvk)) ?? []),
    }
    const scope = yield* Scope.fork(ctx.cacheScope)
    const generation = ctx.nextGeneration()
    const ended = yield* Deferred.make<Ended>()
    const closed = yield* Deferred.make<number>()
    const informer = yield* ctx.config
      .informerFactory(ctx.client, spec, {
        onForbidden: (loss) =>
          Effect.asVoid(
            FiberSet.run(
              ctx.background,
              operate(
                { _tag: "PermissionLost", ref, verb: loss.verb, message: loss.error.message },
                { generation, loss },
              ),
            ),
          ),
      })
      .pipe(Scope.provide(scope))
    const running: Running = {
      ref,
      generation,
      scope,
      ended,
      closed,
      informer: {
        ...informer,
        // A stopped informer never syncs: waiting ends when it stops (hasSynced stays false).
        waitForSync: Effect.raceFirst(informer.waitForSync, Effect.asVoid(Deferred.await(ended))),
      },
    }
    ctx.levels.of(ref).put(running)
    yield* Effect.forkIn(
      Effect.andThen(informer.waitForSync, operate({ _tag: "InformerSynced", ref }, { generation })),
      scope,
    )
    yield* Effect.logDebug("informer started").pipe(Effect.annotateLogs({ informer: refString(ref) }))
  })

/** Takes a running informer out and closes its scope in the background. */
const stopInformer = (ctx: CacheContext, ref: InformerRef, ended: Ended) =>
  Effect.gen(function* () {
    const running = ctx.levels.of(ref).take(ref)
    if (running === undefined) return undefined
    yield* Deferred.succeed(running.ended, ended)
    yield* closeInBackground(ctx, running)
    return running
  })

/** Publishes one event for the dependents, once the informer's scope has closed. */
const notifyDependents = (
  ctx: CacheContext,
  action: Extract<ScopedCacheAction, { readonly _tag: "NotifyDependents" }>,
  run: ActionRun,
): Effect.Effect<void> => {
  const spec = run.state.specs.get(refString(action.ref))
  const running = run.stopped.get(refString(action.ref))
  if (spec === undefined) return Effect.void
  return Effect.asVoid(
    FiberSet.run(
      ctx.background,
      Effect.gen(function* () {
        const stoppedAt =
          running === undefined ? yield* Clock.currentTimeMillis : yield* Deferred.await(running.closed)
        yield* PubSub.publish(ctx.bus, {
          _tag: action.reason,
          cluster: ctx.cluster,
          ref: action.ref,
          resource: spec.resource,
          dependents: action.dependents,
          message: action.message,
          row: run.row,
          observedAt: run.loss?.at,
          stoppedAt,
        })
      }),
    ),
  )
}

/** Carries out one action of the registry's answer. */
export const runAction = (
  ctx: CacheContext,
  operate: Operate,
  action: ScopedCacheAction,
  run: ActionRun,
): Effect.Effect<void> => {
  switch (action._tag) {
    case "StartInformer":
      return startInformer(ctx, operate, run.state, action.ref)
    case "StopInformer":
      return Effect.flatMap(stopInformer(ctx, action.ref, { reason: action.reason, loss: run.loss }), (r) =>
        Effect.sync(() => {
          if (r !== undefined) run.stopped.set(refString(action.ref), r)
        }),
      )
    case "Log":
      return Effect.logWarning(action.message).pipe(
        Effect.annotateLogs({ informer: refString(action.ref), row: run.row }),
      )
    case "NotifyDependents":
      return notifyDependents(ctx, action, run)
  }
}
