/**
 * The registry's table, run with the runner every controller uses (`runTable`,
 * shell/controller/table.ts): each change of the scoped cache is one operation on the registry.
 *
 * # Expected flow
 * `operate(op)` takes the cache's lock (`SynchronizedRef.modifyEffect`), drops the operation when
 * the cache has stopped or when it comes from an informer run that has ended, and runs the table
 * for it: `decide` applies the operation to the registry (core/scopedcache/registry.ts, where the
 * documented tables `scopedcache.informers` and `scopedcache.lifecycle` decide and name their
 * row), and `run` carries out each action of the answer (`actions.ts`). Then the spec of a ref the
 * registry no longer has is forgotten, and `Start` releases the waiters of `waitForCacheSync`.
 *
 * # Guarantees
 * - Decide purely, then act, under one short lock: no action waits for I/O (starting an informer
 *   forks its reflector; closing its scope and publishing events run on the cache's fibers).
 * - An operation from a running informer (its sync, its 403) carries the generation of that run
 *   and is dropped when the run has ended: a late sync or 403 of a stopped informer changes
 *   nothing.
 * - After the cache's scope closed, operations change nothing.
 * - A `PermissionLost` that stops an informer (`scopedcache.informers`, "permission lost") keeps
 *   its loss for the reads of that scope (`InformerForbidden`) until an informer starts there.
 *
 * @module
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as SynchronizedRef from "effect/SynchronizedRef"
import { Outcome } from "../../core/krtt/run.ts"
import type { TransitionResult } from "../../core/krtt/types.ts"
import type { ScopedCacheAction } from "../../core/scopedcache/actions.ts"
import { INFORMERS_ROW } from "../../core/scopedcache/informers.ts"
import { apply, lookup, type Operation, type Registry } from "../../core/scopedcache/registry.ts"
import { refString } from "../../core/scopedcache/types.ts"
import { runTable, type Table } from "../controller/table.ts"
import { runAction } from "./actions.ts"
import { type BaseSpec, type CacheContext, lossKey, type State } from "./context.ts"
import type { PermissionLoss } from "./informer.ts"
import type { Running } from "./running.ts"

/** The informer run an operation comes from, and the 403 it saw. */
export interface FromRun {
  readonly generation: number
  readonly loss?: PermissionLoss | undefined
}

/**
 * Applies one operation to the registry and carries out its actions, under the lock; `spec` is
 * what to start for a ref the registry does not have yet.
 */
export type Operate = (op: Operation, from?: FromRun, spec?: BaseSpec) => Effect.Effect<void>

/** The registry as a table: its answer's status is the registry after the operation. */
type RegistryTable = Table<Operation, ScopedCacheAction, Registry, never, never, never>

/** Whether `op` comes from an informer run that is no longer the running one. */
const isStale = (ctx: CacheContext, op: Operation, from: FromRun | undefined): boolean =>
  from !== undefined && op._tag !== "Start" && ctx.levels.running(op.ref)?.generation !== from.generation

/** The table of one operation on `s`: decides on the registry, runs actions with `actions.ts`. */
const registryTable = (
  ctx: CacheContext,
  operate: Operate,
  s: State,
  loss: PermissionLoss | undefined,
): RegistryTable => {
  let registry = s.registry
  const stopped = new Map<string, Running>()
  return {
    table: "scopedcache.registry",
    // No action of the registry names a next trigger: a run is one decision.
    maxTransitions: 1,
    decide: (op) =>
      Effect.sync((): TransitionResult<ScopedCacheAction, Registry> => {
        const step = apply(registry, op, ctx.config)
        registry = step.registry
        if (op._tag === "PermissionLost" && step.row === INFORMERS_ROW.permissionLost && loss !== undefined)
          s.losses.set(lossKey(op.ref.namespace, op.ref.gvk), { ...loss, message: op.message })
        return { actions: step.actions, status: step.registry, row: step.row }
      }),
    run: (action, decided) =>
      Effect.as(runAction(ctx, operate, action, { state: s, row: decided.row, loss, stopped }), Outcome.done),
  }
}

/** Makes the cache's `operate`. */
export const make = (ctx: CacheContext): Operate => {
  const operate: Operate = (op, from, spec) =>
    SynchronizedRef.modifyEffect(ctx.state, (s) =>
      Effect.gen(function* () {
        if (s.closed || isStale(ctx, op, from)) return [undefined, s] as const
        if (spec !== undefined && op._tag !== "Start" && !s.specs.has(refString(op.ref)))
          s.specs.set(refString(op.ref), spec)
        const run = yield* runTable(registryTable(ctx, operate, s, from?.loss), op).pipe(
          // The bound holds: no outcome of `runAction` is a next trigger.
          Effect.catchTag("TableLoopError", (e) => Effect.die(e)),
        )
        const next: State = { ...s, registry: run.last.status }
        if (op._tag !== "Start" && lookup(next.registry, op.ref) === undefined)
          next.specs.delete(refString(op.ref))
        if (op._tag === "Start") yield* Deferred.succeed(ctx.started, undefined)
        return [undefined, next] as const
      }),
    ).pipe(ctx.annotate)
  return operate
}
