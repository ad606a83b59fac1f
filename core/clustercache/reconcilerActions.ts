/**
 * The actions the ClusterCache Reconciler's rows return, and what it asks the other ClusterCache
 * tables: `Disconnect()` (clusterAccessor rows 6 and 8) and the requeue Error Handling documents
 * for an error kind.
 *
 * Actions are immutable data, so the hot path shares them instead of allocating each time (a
 * simulation runs the reconciler hundreds of millions of times): the fixed ones are constants,
 * the ones that carry a duration come from bounded memos. A shared action equals one made anew.
 *
 * @module
 */
import { accessorTransition } from "./accessor.ts"
import type { ReconcilerAction } from "./actions.ts"
import type { ClusterCacheConfig } from "./config.ts"
import { errorsTransition } from "./errors.ts"
import type { AccessorState } from "./state.ts"

/** Row 1: create the accessor, then go on with the same reconcile. */
export const CONTINUE_RECONCILE: ReadonlyArray<ReconcilerAction> = [
  { _tag: "CreateAccessor" },
  { _tag: "Continue", trigger: { _tag: "Reconcile" } },
]
/** Row 4: run the accessor's Connect (clusterAccessor rows 1-5). */
export const CONNECT: ReadonlyArray<ReconcilerAction> = [{ _tag: "Connect" }]
/** No action (row 3). */
export const NONE: ReadonlyArray<ReconcilerAction> = []
/** The desired of the tables that read none (Health Checking, Error Handling). */
export const NO_DESIRED = {}

/** A bounded memo of values by a number (a duration). */
// Stryker disable all
const memo = <A>(make: (key: number) => A) => {
  const cache = new Map<number, A>()
  return (key: number): A => {
    let hit = cache.get(key)
    if (hit === undefined) {
      if (cache.size >= 256) cache.clear()
      hit = make(key)
      cache.set(key, hit)
    }
    return hit
  }
}
// Stryker restore all
const completeWith = (didConnect: boolean, didDisconnect: boolean) =>
  memo(
    (requeueAfter): ReconcilerAction => ({
      _tag: "Continue",
      trigger: { _tag: "PhasesComplete", didConnect, didDisconnect, requeueAfter: [requeueAfter] },
    }),
  )
const COMPLETE = [
  completeWith(false, false),
  completeWith(false, true),
  completeWith(true, false),
  completeWith(true, true),
]

/** Go on to `PhasesComplete` (row 12) with what this phase decided. */
export const complete = (
  didConnect: boolean,
  didDisconnect: boolean,
  requeueAfter: number,
): ReconcilerAction =>
  (COMPLETE[(didConnect ? 2 : 0) + (didDisconnect ? 1 : 0)] as (ms: number) => ReconcilerAction)(requeueAfter)

export const REQUEUE = memo((after): ReconcilerAction => ({ _tag: "Requeue", after }))
/** `[Requeue after]` alone: the end of a reconcile that sends no event. */
export const REQUEUE_ONLY = memo((after): ReadonlyArray<ReconcilerAction> => [REQUEUE(after)])
/**
 * `metrics` (the Health Checking table's actions, shared arrays) then the end of the phases,
 * shared per metrics array and duration.
 */
export const thenComplete = (() => {
  const byMetrics = new WeakMap<
    ReadonlyArray<ReconcilerAction>,
    (ms: number) => ReadonlyArray<ReconcilerAction>
  >()
  let lastMetrics: ReadonlyArray<ReconcilerAction> | undefined
  let lastRequeueAfter = Number.NaN
  let last: ReadonlyArray<ReconcilerAction> = NONE
  return (
    metrics: ReadonlyArray<ReconcilerAction>,
    requeueAfter: number,
  ): ReadonlyArray<ReconcilerAction> => {
    // Stryker disable next-line all
    if (metrics === lastMetrics && requeueAfter === lastRequeueAfter) return last
    let f = byMetrics.get(metrics)
    // Stryker disable next-line ConditionalExpression
    if (f === undefined) {
      f = memo((ms) => [...metrics, complete(false, false, ms)])
      // Stryker disable next-line CallExpression
      byMetrics.set(metrics, f)
    }
    last = f(requeueAfter)
    lastMetrics = metrics
    lastRequeueAfter = requeueAfter
    return last
  }
})()
/** `Disconnect()` through the clusterAccessor table (row 6, or row 8 when already disconnected). */
export const disconnectAccessor = (accessor: AccessorState, now: number, config: ClusterCacheConfig) => {
  const r = accessorTransition(
    {
      observed: accessor,
      // Stryker disable next-line ObjectLiteral,StringLiteral
      desired: { clientCertificatePrivateKey: "disabled" },
      trigger: { _tag: "Disconnect" },
      now,
    },
    config,
  )
  return { actions: r.actions as ReadonlyArray<ReconcilerAction>, status: r.status }
}

/** Requeue after the duration that Error Handling documents for an error kind. */
export const requeueFor = (
  kind: Parameters<typeof errorsTransition>[0]["trigger"],
  consecutiveFailures: number,
  now: number,
  config: ClusterCacheConfig,
): number => {
  const { requeue } = errorsTransition(
    { observed: { consecutiveFailures }, desired: NO_DESIRED, trigger: kind, now },
    config,
  ).status
  return requeue._tag === "After" ? requeue.after : config.defaultRequeueAfter
}
