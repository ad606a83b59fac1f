/**
 * The end of a reconcile of the ClusterCache Reconciler (trigger `PhasesComplete`, seed 000,
 * "ClusterCache Reconciler" row 12): events to the cluster sources, then the requeue.
 *
 * Expected flow: each registered source for which the Event Trigger Conditions table finds a
 * reason (connect, disconnect, probe failure for its durations) gets one event; the accessor
 * remembers when each source was last sent one; the reconcile requeues.
 *
 * Guarantees: the requeue is the smallest duration the phases asked for, else
 * `defaultRequeueAfter`; a source is sent one event with every reason, never one per reason.
 *
 * @module
 */
import type { ReconcilerAction } from "./actions.ts"
import type { ClusterCacheConfig } from "./config.ts"
import { eventReasons, sendEvent } from "./events.ts"
import { REQUEUE, REQUEUE_ONLY } from "./reconcilerActions.ts"
import { RECONCILER_ROWS, type ReconcilerResult, type ReconcilerTrigger } from "./reconcilerTable.ts"
import { type AccessorState, accessorState } from "./state.ts"

/** All phases are done: send the events, requeue (row 12). */
export const phasesComplete = (
  accessor: AccessorState,
  sources: ReadonlyArray<{ readonly name: string; readonly probeFailureDurations: ReadonlyArray<number> }>,
  trigger: Extract<ReconcilerTrigger, { _tag: "PhasesComplete" }>,
  now: number,
  config: ClusterCacheConfig,
): ReconcilerResult => {
  let events: Array<ReconcilerAction> | undefined
  let lastEventSent = accessor.lastEventSent
  for (let k = 0; k < sources.length; k++) {
    const source = sources[k] as (typeof sources)[number]
    // The Event Trigger Conditions table for this source.
    const reasons = eventReasons(
      accessor.lastProbeSuccessTime,
      accessor.lastEventSent[source.name],
      source.probeFailureDurations,
      trigger,
      now,
    )
    if (reasons !== undefined) {
      events ??= []
      events.push(sendEvent(source.name, reasons))
      if (lastEventSent === accessor.lastEventSent) lastEventSent = { ...lastEventSent }
      ;(lastEventSent as Record<string, number>)[source.name] = now
    }
  }
  let requeueAfter = config.defaultRequeueAfter
  const asked = trigger.requeueAfter
  if (asked.length > 0) {
    requeueAfter = asked[0] as number
    for (let k = 1; k < asked.length; k++) requeueAfter = Math.min(requeueAfter, asked[k] as number)
  }
  let actions: ReadonlyArray<ReconcilerAction>
  if (events === undefined) actions = REQUEUE_ONLY(requeueAfter)
  else {
    events.push(REQUEUE(requeueAfter))
    actions = events
  }
  const next =
    lastEventSent === accessor.lastEventSent
      ? accessor
      : accessorState(
          accessor.connected,
          accessor.lastConnectionCreationErrorTime,
          accessor.lastProbeTime,
          accessor.lastProbeSuccessTime,
          accessor.consecutiveFailures,
          accessor.watches,
          lastEventSent,
          accessor.privateKeyGenerated,
        )
  return { actions, status: { accessor: next, done: true, requeueAfter }, row: RECONCILER_ROWS.complete }
}
