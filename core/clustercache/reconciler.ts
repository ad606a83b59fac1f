/**
 * The ClusterCache Reconciler (seed 000) as a pure transition.
 *
 * One reconcile of one Cluster runs as a few transitions, each decided by one documented row:
 *
 * Expected flow: `Reconcile` reads the Cluster and the accessor and decides what the reconcile
 * does: create the accessor (row 1, then continue), remove it (rows 2 and 13), wait for the
 * infrastructure (row 3), connect (row 4), wait out the retry interval (row 5), probe (row 7)
 * or wait for the next probe (derived row 15). Connect and probe are I/O: the shell performs
 * them outside any lock and reports `ConnectFinished` (rows 4 and 6) or `ProbeFinished` (rows
 * 8-11). Every reconcile that got past the infrastructure check ends with `PhasesComplete`
 * (row 12): events to the cluster sources, then the requeue.
 *
 * Guarantees: no connection attempt within the retry interval of a failed one; disconnect when
 * the failure threshold is reached or at once on a 401, requeueing after the retry interval or
 * 1 ms; the requeue is the smallest duration the phases asked for, else the default.
 *
 * Assumptions: one reconcile per Cluster at a time (the work queue's promise), so the accessor
 * does not change under a reconcile except through its own actions.
 *
 * Layout: this file dispatches on the trigger and decides `ConnectFinished` (rows 4 and 6) and
 * stale results (row 16); `reconcilerStart.ts` decides `Reconcile`, `reconcilerProbe.ts`
 * `ProbeFinished`, `reconcilerComplete.ts` `PhasesComplete`; `reconcilerTable.ts` holds the
 * table's id, rows and shapes, `reconcilerActions.ts` the shared actions.
 *
 * @module
 */
import { type ClusterCacheConfig, ClusterCacheDefaults } from "./config.ts"
import { complete, requeueFor } from "./reconcilerActions.ts"
import { phasesComplete } from "./reconcilerComplete.ts"
import { probeFinished } from "./reconcilerProbe.ts"
import { reconcile } from "./reconcilerStart.ts"
import {
  RECONCILER_ROWS,
  type ReconcilerInput,
  type ReconcilerResult,
  type ReconcilerTrigger,
} from "./reconcilerTable.ts"
import { type AccessorState, remaining } from "./state.ts"

export {
  type ClusterSource,
  type ClusterView,
  RECONCILER,
  type ReconcilerDesired,
  type ReconcilerInput,
  type ReconcilerObserved,
  type ReconcilerResult,
  type ReconcilerStatus,
  type ReconcilerTrigger,
} from "./reconcilerTable.ts"

/** The ClusterCache Reconciler as a transition. */
export const reconcilerTransition = (
  input: ReconcilerInput,
  config: ClusterCacheConfig = ClusterCacheDefaults,
): ReconcilerResult => {
  const { observed, desired, trigger, now } = input
  const accessor = observed.accessor
  switch (trigger._tag) {
    case "Reconcile":
      return reconcile(accessor, desired.cluster, now, config)
    case "ConnectFinished":
      return connectFinished(accessor, trigger, now, config)
    case "ProbeFinished":
      if (accessor === undefined || !accessor.connected) return stale(accessor, config)
      return probeFinished(accessor, trigger.outcome, now, config)
    case "PhasesComplete": {
      if (accessor === undefined) return stale(accessor, config)
      return phasesComplete(accessor, desired.sources, trigger, now, config)
    }
  }
}

/**
 * The accessor's Connect finished: go on to `PhasesComplete` with the time to the next probe
 * (row 4) or with the retry interval (row 6); row 16 for an accessor gone or not connected.
 */
const connectFinished = (
  accessor: AccessorState | undefined,
  trigger: Extract<ReconcilerTrigger, { readonly _tag: "ConnectFinished" }>,
  now: number,
  config: ClusterCacheConfig,
): ReconcilerResult => {
  if (accessor === undefined) return stale(accessor, config)
  if (trigger.ok) {
    if (!accessor.connected) return stale(accessor, config)
    const next =
      remaining(now, accessor.lastProbeTime, config.healthProbe.interval) || config.healthProbe.interval
    return {
      actions: [complete(true, false, next)],
      status: { accessor, done: false },
      row: RECONCILER_ROWS.connect,
    }
  }
  const after = requeueFor({ _tag: "ConnectionCreationFailed" }, accessor.consecutiveFailures, now, config)
  return {
    actions: [complete(false, false, after)],
    status: { accessor, done: false },
    row: RECONCILER_ROWS.connectFailed,
  }
}

/** A result arrived for an accessor that is gone or no longer in the state it was asked in. */
const stale = (accessor: AccessorState | undefined, config: ClusterCacheConfig): ReconcilerResult =>
  accessor === undefined
    ? {
        actions: [{ _tag: "Log", message: "Dropping a result for a removed accessor" }],
        status: { accessor, done: true },
        row: RECONCILER_ROWS.stale,
      }
    : {
        actions: [
          { _tag: "Log", message: "Dropping a stale result" },
          { _tag: "Requeue", after: config.defaultRequeueAfter },
        ],
        status: { accessor, done: true, requeueAfter: config.defaultRequeueAfter },
        row: RECONCILER_ROWS.stale,
      }
