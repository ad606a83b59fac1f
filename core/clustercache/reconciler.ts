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
 * @module
 */
import { type RowId, rowId, type TransitionInput, type TransitionResult } from "../krtt/index.ts"
import { accessorTransition } from "./accessor.ts"
import type { ReconcilerAction, ReconcilerContinuation } from "./actions.ts"
import { type ClusterCacheConfig, ClusterCacheDefaults } from "./config.ts"
import { errorsTransition } from "./errors.ts"
import { eventReasons, sendEvent } from "./events.ts"
import {
  healthTransition,
  type ProbeOutcome,
  probeActionsFor,
  probeDue,
  probeStarted,
  probeSucceeded,
  SUCCESS_METRICS,
} from "./health.ts"
import { type AccessorState, accessorState, newAccessor, remaining } from "./state.ts"

export const RECONCILER = "clustercache.reconciler"

/** What `client.Get()` of the Cluster returned. */
export type ClusterView =
  | {
      readonly _tag: "Found"
      /** `status.initialization.infrastructureProvisioned`. */
      readonly infrastructureProvisioned: boolean
      /** `metadata.deletionTimestamp` is set. */
      readonly deleting: boolean
    }
  | { readonly _tag: "NotFound" }
  | { readonly _tag: "GetFailed"; readonly error: string }

/** A registered cluster source (`GetClusterSource`). */
export interface ClusterSource {
  /** The controller the source feeds. */
  readonly name: string
  /** `WatchForProbeFailure` durations, ms. */
  readonly probeFailureDurations: ReadonlyArray<number>
}

export interface ReconcilerObserved {
  /** The Cluster's accessor; absent when there is none. */
  readonly accessor?: AccessorState | undefined
}

export interface ReconcilerDesired {
  readonly cluster: ClusterView
  readonly sources: ReadonlyArray<ClusterSource>
}

export type ReconcilerTrigger =
  | ReconcilerContinuation
  | { readonly _tag: "ConnectFinished"; readonly ok: boolean; readonly error?: string | undefined }
  | { readonly _tag: "ProbeFinished"; readonly outcome: ProbeOutcome }

export interface ReconcilerStatus {
  /** The accessor after this step; absent once removed. */
  readonly accessor?: AccessorState | undefined
  /** `false` while the reconcile goes on (a `Connect`, `Probe` or `Continue` action is pending). */
  readonly done: boolean
  /** Set when the reconcile ends with a requeue. */
  readonly requeueAfter?: number | undefined
}

export type ReconcilerInput = TransitionInput<ReconcilerObserved, ReconcilerDesired, ReconcilerTrigger>
export type ReconcilerResult = TransitionResult<ReconcilerAction, ReconcilerStatus>

const r = (n: number): RowId => rowId(RECONCILER, n)
const ROW = {
  create: r(1),
  notFound: r(2),
  infraNotReady: r(3),
  connect: r(4),
  retryWait: r(5),
  connectFailed: r(6),
  probe: r(7),
  probeSucceeded: r(8),
  probeFailed: r(9),
  threshold: r(10),
  unauthorized: r(11),
  complete: r(12),
  deleted: r(13),
  getFailed: r(14),
  probeNotDue: r(15),
  stale: r(16),
}

const CONTINUE_RECONCILE: ReadonlyArray<ReconcilerAction> = [
  { _tag: "CreateAccessor" },
  { _tag: "Continue", trigger: { _tag: "Reconcile" } },
]
const CONNECT: ReadonlyArray<ReconcilerAction> = [{ _tag: "Connect" }]
const NONE: ReadonlyArray<ReconcilerAction> = []
const NO_DESIRED = {}

// Actions are immutable data, so the hot path shares them instead of allocating each time
// (a simulation runs the reconciler hundreds of millions of times). Each memo is bounded.
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
const complete = (didConnect: boolean, didDisconnect: boolean, requeueAfter: number): ReconcilerAction =>
  (COMPLETE[(didConnect ? 2 : 0) + (didDisconnect ? 1 : 0)] as (ms: number) => ReconcilerAction)(requeueAfter)

const REQUEUE = memo((after): ReconcilerAction => ({ _tag: "Requeue", after }))
/** `[Requeue after]` alone: the end of a reconcile that sends no event. */
const REQUEUE_ONLY = memo((after): ReadonlyArray<ReconcilerAction> => [REQUEUE(after)])
/**
 * `metrics` (the Health Checking table's actions, shared arrays) then the end of the phases,
 * shared per metrics array and duration.
 */
const thenComplete = (() => {
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
const PROBE_RESULT = {
  success: { _tag: "ProbeResult", outcome: "success" },
  failure: { _tag: "ProbeResult", outcome: "failure" },
  unauthorized: { _tag: "ProbeResult", outcome: "unauthorized" },
} as const

/** `Disconnect()` through the clusterAccessor table (row 6, or row 8 when already disconnected). */
const disconnectAccessor = (accessor: AccessorState, now: number, config: ClusterCacheConfig) => {
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
const requeueFor = (
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
    case "ConnectFinished": {
      if (accessor === undefined) return stale(accessor, config)
      if (trigger.ok) {
        if (!accessor.connected) return stale(accessor, config)
        const next =
          remaining(now, accessor.lastProbeTime, config.healthProbe.interval) || config.healthProbe.interval
        return { actions: [complete(true, false, next)], status: { accessor, done: false }, row: ROW.connect }
      }
      const after = requeueFor(
        { _tag: "ConnectionCreationFailed" },
        accessor.consecutiveFailures,
        now,
        config,
      )
      return {
        actions: [complete(false, false, after)],
        status: { accessor, done: false },
        row: ROW.connectFailed,
      }
    }
    case "ProbeFinished":
      return probeFinished(accessor, trigger.outcome, now, config)
    case "PhasesComplete": {
      if (accessor === undefined) return stale(accessor, config)
      return phasesComplete(accessor, desired.sources, trigger, now, config)
    }
  }
}

const reconcile = (
  accessor: AccessorState | undefined,
  cluster: ClusterView,
  now: number,
  config: ClusterCacheConfig,
): ReconcilerResult => {
  switch (cluster._tag) {
    case "GetFailed": {
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
        row: ROW.getFailed,
      }
    }
    case "NotFound": {
      if (accessor === undefined) {
        return {
          actions: [{ _tag: "DeleteAccessor" }, { _tag: "CleanupSources" }],
          status: { accessor: undefined, done: true },
          row: ROW.notFound,
        }
      }
      const disconnect = disconnectAccessor(accessor, now, config)
      return {
        actions: [...disconnect.actions, { _tag: "DeleteAccessor" }, { _tag: "CleanupSources" }],
        status: { accessor: undefined, done: true },
        row: ROW.deleted,
      }
    }
    // Stryker disable next-line ConditionalExpression,StringLiteral
    case "Found":
      break
  }
  if (accessor === undefined)
    return { actions: CONTINUE_RECONCILE, status: { accessor: newAccessor, done: false }, row: ROW.create }
  if (!cluster.infrastructureProvisioned)
    return { actions: NONE, status: { accessor, done: true }, row: ROW.infraNotReady }
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
        row: ROW.retryWait,
      }
    return { actions: CONNECT, status: { accessor, done: false }, row: ROW.connect }
  }
  // The Health Checking table, rows 7 (not due) and 2 (probe), for a connected accessor.
  if (!probeDue(accessor, now, config)) {
    const wait = remaining(now, accessor.lastProbeTime, config.healthProbe.interval)
    return {
      actions: [complete(false, false, wait)],
      status: { accessor, done: false },
      row: ROW.probeNotDue,
    }
  }
  return {
    actions: probeActionsFor(config.healthProbe.timeout) as ReadonlyArray<ReconcilerAction>,
    status: { accessor: probeStarted(accessor, now), done: false },
    row: ROW.probe,
  }
}

const probeFinished = (
  accessor: AccessorState | undefined,
  outcome: ProbeOutcome,
  now: number,
  config: ClusterCacheConfig,
): ReconcilerResult => {
  if (accessor === undefined || !accessor.connected) return stale(accessor, config)
  // The Health Checking table, row 3, for a connected accessor.
  if (outcome === "success") {
    return {
      actions: thenComplete(SUCCESS_METRICS as ReadonlyArray<ReconcilerAction>, config.healthProbe.interval),
      status: { accessor: probeSucceeded(accessor, now), done: false },
      row: ROW.probeSucceeded,
    }
  }
  const health = healthTransition(
    { observed: accessor, desired: NO_DESIRED, trigger: PROBE_RESULT[outcome], now },
    config,
  )
  const { tooManyConsecutiveFailures, unauthorizedErrorOccurred } = health.status
  const metrics = health.actions as ReadonlyArray<ReconcilerAction>
  const probed = health.status.accessor
  const after = requeueFor(
    { _tag: "HealthProbeFailed", unauthorized: unauthorizedErrorOccurred },
    probed.consecutiveFailures,
    now,
    config,
  )
  if (!tooManyConsecutiveFailures && !unauthorizedErrorOccurred) {
    return {
      actions: thenComplete(metrics, after),
      status: { accessor: probed, done: false },
      row: ROW.probeFailed,
    }
  }
  const disconnect = disconnectAccessor(probed, now, config)
  return {
    actions: [...metrics, ...disconnect.actions, complete(false, true, after)],
    status: { accessor: disconnect.status.accessor, done: false },
    row: unauthorizedErrorOccurred ? ROW.unauthorized : ROW.threshold,
  }
}

const phasesComplete = (
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
  return { actions, status: { accessor: next, done: true, requeueAfter }, row: ROW.complete }
}

/** A result arrived for an accessor that is gone or no longer in the state it was asked in. */
const stale = (accessor: AccessorState | undefined, config: ClusterCacheConfig): ReconcilerResult =>
  accessor === undefined
    ? {
        actions: [{ _tag: "Log", message: "Dropping a result for a removed accessor" }],
        status: { accessor, done: true },
        row: ROW.stale,
      }
    : {
        actions: [
          { _tag: "Log", message: "Dropping a stale result" },
          { _tag: "Requeue", after: config.defaultRequeueAfter },
        ],
        status: { accessor, done: true, requeueAfter: config.defaultRequeueAfter },
        row: ROW.stale,
      }
