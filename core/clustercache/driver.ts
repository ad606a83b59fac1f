/**
 * A synchronous interpreter of the ClusterCache Reconciler for embedding the core in
 * simulations and model-based tests: the world answers Connect and the health probe at once,
 * and one call runs one whole reconcile, transition after transition, as the shell does with
 * real I/O.
 *
 * It performs no I/O itself: the world's answers are the only input besides the state.
 *
 * @module
 */
import type { RowId } from "../krtt/index.ts"
import { accessorTransition, type ConnectStep } from "./accessor.ts"
import type { MetricAction, ReconcilerAction, ReconcilerContinuation, SendEventAction } from "./actions.ts"
import { type ClusterCacheConfig, ClusterCacheDefaults } from "./config.ts"
import type { ProbeOutcome } from "./health.ts"
import { type ReconcilerDesired, type ReconcilerTrigger, reconcilerTransition } from "./reconciler.ts"
import type { AccessorState } from "./state.ts"

/** How the world answers the I/O a reconcile asks for. */
export interface SyncWorld {
  /** The outcome of a whole Connect(): success, or the step that failed and why. */
  readonly connect: (
    now: number,
  ) => { readonly ok: true } | { readonly ok: false; readonly step: ConnectStep; readonly error: string }
  /** The outcome of `GET /` with the probe timeout. */
  readonly probe: (now: number) => ProbeOutcome
}

export interface ReconcileRun {
  /** The accessor afterwards; absent when removed. */
  readonly accessor: AccessorState | undefined
  readonly requeueAfter: number | undefined
  /** Every row that decided, reconciler and accessor rows, in order. */
  readonly rows: ReadonlyArray<RowId>
  readonly events: ReadonlyArray<SendEventAction>
  readonly metrics: ReadonlyArray<MetricAction>
  readonly connected: boolean
  readonly disconnected: boolean
  /** Whether a connection attempt was made, and whether it failed. */
  readonly connectAttempt: "none" | "succeeded" | "failed"
  readonly probe: ProbeOutcome | undefined
  readonly accessorCreated: boolean
  readonly accessorRemoved: boolean
}

const STEPS: ReadonlyArray<ConnectStep> = ["createConnection", "createClients", "cacheSync"]

/** Runs Connect() through the clusterAccessor table's steps. */
export const runConnect = (
  accessor: AccessorState,
  world: SyncWorld,
  now: number,
  config: ClusterCacheConfig,
  rows: Array<RowId>,
  metrics: Array<MetricAction>,
  // Stryker disable next-line StringLiteral
  clientCertificatePrivateKey: "enabled" | "disabled" = "disabled",
): { readonly accessor: AccessorState; readonly ok: boolean } => {
  const answer = world.connect(now)
  const desired = { clientCertificatePrivateKey }
  let a = accessor
  let step = 0
  let trigger: Parameters<typeof accessorTransition>[0]["trigger"] = { _tag: "Connect" }
  for (;;) {
    const r = accessorTransition({ observed: a, desired, trigger, now }, config)
    rows.push(r.row)
    for (const x of r.actions) if (x._tag === "SetConnectionUp") metrics.push(x)
    a = r.status.accessor
    // Connected at the end (or already): ok; the failed outcome leaves the accessor disconnected.
    if (r.status.connect !== "pending") return { accessor: a, ok: a.connected }
    if (!answer.ok && STEPS[step] === answer.step) {
      trigger = { _tag: "ConnectionFailed", step: answer.step, error: answer.error }
      continue
    }
    trigger =
      step === 0
        ? { _tag: "ConnectionCreated" }
        : step === 1
          ? { _tag: "CacheStarted" }
          : { _tag: "CacheSynced" }
    step++
  }
}

/**
 * The most Reconciler transitions one reconcile may take. No documented path takes more than 4
 * (e.g. row 1, the Connect result, row 12's phases); a core that goes on past this bound loops,
 * and the driver fails naming its rows instead of hanging.
 */
export const MaxTransitionsPerReconcile = 16

/** A reconcile that did not end within `MaxTransitionsPerReconcile` transitions. */
export class ReconcileLoopError extends Error {
  readonly rows: ReadonlyArray<RowId>
  constructor(rows: ReadonlyArray<RowId>) {
    super(
      `a reconcile did not end within ${MaxTransitionsPerReconcile} transitions (the core loops); last row ${rows.at(-1)}, rows ${rows.join(" ")}`,
    )
    this.name = "ReconcileLoopError"
    this.rows = rows
  }
}

/**
 * Runs one reconcile of one Cluster to its end. `transition` is the Reconciler (the core's,
 * unless a test hands a broken one); a reconcile longer than `MaxTransitionsPerReconcile`
 * throws `ReconcileLoopError`.
 */
export const runReconcile = (
  accessor: AccessorState | undefined,
  desired: ReconcilerDesired,
  now: number,
  world: SyncWorld,
  config: ClusterCacheConfig = ClusterCacheDefaults,
  transition: typeof reconcilerTransition = reconcilerTransition,
): ReconcileRun => {
  const rows: Array<RowId> = []
  const events: Array<SendEventAction> = []
  const metrics: Array<MetricAction> = []
  let a = accessor
  let trigger: ReconcilerTrigger = { _tag: "Reconcile" }
  let requeueAfter: number | undefined
  let connectAttempt: ReconcileRun["connectAttempt"] = "none"
  let probe: ProbeOutcome | undefined
  let connected = false
  let disconnected = false
  let accessorCreated = false
  let accessorRemoved = false
  for (let transitions = 0; ; transitions++) {
    if (transitions === MaxTransitionsPerReconcile) throw new ReconcileLoopError(rows)
    const r = transition({ observed: { accessor: a }, desired, trigger, now }, config)
    rows.push(r.row)
    a = r.status.accessor
    let next: ReconcilerTrigger | undefined
    for (const x of r.actions as ReadonlyArray<ReconcilerAction>) {
      switch (x._tag) {
        case "SendEvent":
          events.push(x)
          break
        case "SetConnectionUp":
        case "SetHealthCheck":
        case "IncHealthChecksTotal":
          metrics.push(x)
          break
        case "CreateAccessor":
          accessorCreated = true
          break
        case "DeleteAccessor":
          accessorRemoved = accessor !== undefined || accessorCreated
          break
        case "StopCache":
          disconnected = true
          break
        case "Connect": {
          // Row 1 creates the accessor before it asks to connect; no other row asks without one.
          const c = runConnect(a as AccessorState, world, now, config, rows, metrics)
          a = c.accessor
          connectAttempt = c.ok ? "succeeded" : "failed"
          connected = c.ok
          next = c.ok ? { _tag: "ConnectFinished", ok: true } : { _tag: "ConnectFinished", ok: false }
          break
        }
        case "Probe":
          probe = world.probe(now)
          next = { _tag: "ProbeFinished", outcome: probe }
          break
        case "Continue":
          next = x.trigger satisfies ReconcilerContinuation
          break
        case "Requeue":
          requeueAfter = x.after
          break
        // Stryker disable next-line ConditionalExpression,StringLiteral
        case "Log":
        // Stryker disable next-line ConditionalExpression,StringLiteral
        case "CleanupSources":
          break
      }
    }
    // Stryker disable next-line ConditionalExpression,LogicalOperator
    if (r.status.done || next === undefined) break
    trigger = next
  }
  return {
    accessor: a,
    requeueAfter,
    rows,
    events,
    metrics,
    connected,
    disconnected,
    connectAttempt,
    probe,
    accessorCreated,
    accessorRemoved,
  }
}
