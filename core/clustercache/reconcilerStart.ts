/**
 * What a reconcile of the ClusterCache Reconciler does, decided when it starts (trigger
 * `Reconcile`, seed 000, "ClusterCache Reconciler"): from the Cluster read by `client.Get()` and
 * the accessor, one row each.
 *
 * Expected flow: a failed Get requeues (row 14); a Cluster that is gone removes the accessor
 * (rows 2 and 13); a Cluster without an accessor gets one and the reconcile goes on (row 1);
 * infrastructure not provisioned ends the reconcile (row 3); a disconnected accessor connects
 * (row 4) or waits out the retry interval (row 5); a connected one is probed (row 7) or waits for
 * the next probe (row 15).
 *
 * Guarantees: no connection attempt within `connectionCreationRetryInterval` of a failed one;
 * no probe before `healthProbe.interval` since the last.
 *
 * @module
 */
import type { ReconcilerAction } from "./actions.ts"
import type { ClusterCacheConfig } from "./config.ts"
import { errorsTransition } from "./errors.ts"
import { probeActionsFor, probeDue, probeStarted } from "./health.ts"
import {
  CONNECT,
  CONTINUE_RECONCILE,
  complete,
  disconnectAccessor,
  NO_DESIRED,
  NONE,
} from "./reconcilerActions.ts"
import { type ClusterView, RECONCILER_ROWS, type ReconcilerResult } from "./reconcilerTable.ts"
import { type AccessorState, newAccessor, remaining } from "./state.ts"

/** A reconcile starts: what it does, by the Cluster and the accessor (rows 1-5, 7 and 13-15). */
export const reconcile = (
  accessor: AccessorState | undefined,
  cluster: ClusterView,
  now: number,
  config: ClusterCacheConfig,
): ReconcilerResult => {
  switch (cluster._tag) {
    case "GetFailed":
      return getFailed(accessor, now, config)
    case "NotFound":
      return clusterGone(accessor, now, config)
    // Stryker disable next-line ConditionalExpression,StringLiteral
    case "Found":
      break
  }
  if (accessor === undefined)
    return {
      actions: CONTINUE_RECONCILE,
      status: { accessor: newAccessor, done: false },
      row: RECONCILER_ROWS.create,
    }
  if (!cluster.infrastructureProvisioned)
    return { actions: NONE, status: { accessor, done: true }, row: RECONCILER_ROWS.infraNotReady }
  if (!accessor.connected) {
    const wait = remaining(
      now,
      accessor.lastConnectionCreationErrorTime,
      config.connectionCreationRetryInterval,
    )
    if (wait > 0)
      return {
        actions: [complete(false, false, wait)],
        status: { accessor, done: false },
        row: RECONCILER_ROWS.retryWait,
      }
    return { actions: CONNECT, status: { accessor, done: false }, row: RECONCILER_ROWS.connect }
  }
  // The Health Checking table, rows 7 (not due) and 2 (probe), for a connected accessor.
  if (!probeDue(accessor, now, config)) {
    const wait = remaining(now, accessor.lastProbeTime, config.healthProbe.interval)
    return {
      actions: [complete(false, false, wait)],
      status: { accessor, done: false },
      row: RECONCILER_ROWS.probeNotDue,
    }
  }
  return {
    actions: probeActionsFor(config.healthProbe.timeout) as ReadonlyArray<ReconcilerAction>,
    status: { accessor: probeStarted(accessor, now), done: false },
    row: RECONCILER_ROWS.probe,
  }
}

/** `client.Get()` failed otherwise than NotFound: requeue as Error Handling row 7 says (row 14). */
const getFailed = (
  accessor: AccessorState | undefined,
  now: number,
  config: ClusterCacheConfig,
): ReconcilerResult => {
  const { actions, status } = errorsTransition(
    {
      // Stryker disable next-line ObjectLiteral,LogicalOperator
      observed: { consecutiveFailures: accessor?.consecutiveFailures ?? 0 },
      desired: NO_DESIRED,
      trigger: { _tag: "ClusterGetFailed" },
      now,
    },
    config,
  )
  // Stryker disable next-line ConditionalExpression,EqualityOperator,StringLiteral
  const after = status.requeue._tag === "After" ? status.requeue.after : config.defaultRequeueAfter
  return {
    actions: actions as ReadonlyArray<ReconcilerAction>,
    status: { accessor, done: true, requeueAfter: after },
    row: RECONCILER_ROWS.getFailed,
  }
}

/** The Cluster is gone: disconnect and delete the accessor, clean up the sources (rows 2 and 13). */
const clusterGone = (
  accessor: AccessorState | undefined,
  now: number,
  config: ClusterCacheConfig,
): ReconcilerResult => {
  if (accessor === undefined) {
    return {
      actions: [{ _tag: "DeleteAccessor" }, { _tag: "CleanupSources" }],
      status: { accessor: undefined, done: true },
      row: RECONCILER_ROWS.notFound,
    }
  }
  const disconnect = disconnectAccessor(accessor, now, config)
  return {
    actions: [...disconnect.actions, { _tag: "DeleteAccessor" }, { _tag: "CleanupSources" }],
    status: { accessor: undefined, done: true },
    row: RECONCILER_ROWS.deleted,
  }
}
