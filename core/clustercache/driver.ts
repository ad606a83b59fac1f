/**
 * A synchronous interpreter of the ClusterCache Reconciler for embedding the core in
 * simulations and model-based tests: the world answers Connect and the health probe at once,
 * and one call runs one whole reconcile, transition after transition, as the shell does with
 * real I/O.
 *
 * # Expected flow
 * `runReconcile` is one run of the Reconciler table on the table runner (`runTableSync`,
 * core/krtt/run.ts): the table decides, each action of its answer is interpreted in order, and
 * `Connect`, `Probe` and `Continue` send the run back to the table with the next trigger. A
 * `Connect` is itself a run of the clusterAccessor table (`runConnect`): each step it asks for
 * (`CreateConnection`, `CreateClientsAndStartCache`, `WaitForCacheSync`) is answered by the
 * world's outcome, success or the step that failed.
 *
 * # Guarantees
 * - No I/O: the world's answers are the only input besides the state.
 * - A run past `config.maxTransitionsPerReconcile` transitions throws `TableLoopError` naming
 *   its rows instead of hanging.
 *
 * @module
 */
import { Outcome, type RowId, runTableSync } from "../krtt/index.ts"
import {
  ACCESSOR,
  type AccessorStatus,
  type AccessorTrigger,
  accessorTransition,
  type ConnectStep,
} from "./accessor.ts"
import type { AccessorAction, MetricAction, ReconcilerAction, SendEventAction } from "./actions.ts"
import { type ClusterCacheConfig, ClusterCacheDefaults } from "./config.ts"
import type { ProbeOutcome } from "./health.ts"
import {
  RECONCILER,
  type ReconcilerDesired,
  type ReconcilerStatus,
  type ReconcilerTrigger,
  reconcilerTransition,
} from "./reconciler.ts"
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

type ConnectOutcome = Outcome<AccessorTrigger, never>
type ConnectAnswer = ReturnType<SyncWorld["connect"]>

const CONNECT: AccessorTrigger = { _tag: "Connect" }
const CREATED: ConnectOutcome = Outcome.next<AccessorTrigger>({ _tag: "ConnectionCreated" })
const STARTED: ConnectOutcome = Outcome.next<AccessorTrigger>({ _tag: "CacheStarted" })
const SYNCED: ConnectOutcome = Outcome.next<AccessorTrigger>({ _tag: "CacheSynced" })

/** A step of Connect carried out: the world's failure when it names this step, else `ok`. */
const connectStep = (answer: ConnectAnswer, step: ConnectStep, ok: ConnectOutcome): ConnectOutcome =>
  !answer.ok && answer.step === step
    ? Outcome.next<AccessorTrigger>({ _tag: "ConnectionFailed", step, error: answer.error })
    : ok

/** Runs Connect() through the clusterAccessor table's steps, as a run of its own. */
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
  runTableSync<AccessorTrigger, AccessorAction, AccessorStatus, never>(
    {
      table: ACCESSOR,
      maxTransitions: config.maxTransitionsPerReconcile,
      decide: (trigger) => {
        const r = accessorTransition({ observed: a, desired, trigger, now }, config)
        rows.push(r.row)
        a = r.status.accessor
        return r
      },
      run: (action) => {
        switch (action._tag) {
          case "CreateConnection":
            return connectStep(answer, "createConnection", CREATED)
          case "CreateClientsAndStartCache":
            return connectStep(answer, "createClients", STARTED)
          case "WaitForCacheSync":
            return connectStep(answer, "cacheSync", SYNCED)
          case "SetConnectionUp":
            metrics.push(action)
            return Outcome.done
          default:
            return Outcome.done
        }
      },
    },
    CONNECT,
  )
  // Connected at the end (or already): ok; the failed outcome leaves the accessor disconnected.
  return { accessor: a, ok: a.connected }
}

const CONNECTED: Outcome<ReconcilerTrigger, never> = Outcome.next<ReconcilerTrigger>({
  _tag: "ConnectFinished",
  ok: true,
})
const NOT_CONNECTED: Outcome<ReconcilerTrigger, never> = Outcome.next<ReconcilerTrigger>({
  _tag: "ConnectFinished",
  ok: false,
})
const PROBED: Readonly<Record<ProbeOutcome, Outcome<ReconcilerTrigger, never>>> = {
  success: Outcome.next<ReconcilerTrigger>({ _tag: "ProbeFinished", outcome: "success" }),
  failure: Outcome.next<ReconcilerTrigger>({ _tag: "ProbeFinished", outcome: "failure" }),
  unauthorized: Outcome.next<ReconcilerTrigger>({ _tag: "ProbeFinished", outcome: "unauthorized" }),
}

/**
 * Runs one reconcile of one Cluster to its end. `transition` is the Reconciler (the core's,
 * unless a test hands a broken one); a reconcile longer than `config.maxTransitionsPerReconcile`
 * throws `TableLoopError`.
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
  let connectAttempt: ReconcileRun["connectAttempt"] = "none"
  let probe: ProbeOutcome | undefined
  let connected = false
  let disconnected = false
  let accessorCreated = false
  let accessorRemoved = false
  const run = runTableSync<ReconcilerTrigger, ReconcilerAction, ReconcilerStatus, never>(
    {
      table: RECONCILER,
      maxTransitions: config.maxTransitionsPerReconcile,
      decide: (trigger) => {
        const r = transition({ observed: { accessor: a }, desired, trigger, now }, config)
        rows.push(r.row)
        a = r.status.accessor
        return r
      },
      run: (x) => {
        switch (x._tag) {
          case "SendEvent":
            events.push(x)
            return Outcome.done
          case "SetConnectionUp":
          case "SetHealthCheck":
          case "IncHealthChecksTotal":
            metrics.push(x)
            return Outcome.done
          case "CreateAccessor":
            accessorCreated = true
            return Outcome.done
          case "DeleteAccessor":
            accessorRemoved = accessor !== undefined || accessorCreated
            return Outcome.done
          case "StopCache":
            disconnected = true
            return Outcome.done
          case "Connect": {
            // Row 1 creates the accessor before it asks to connect; no other row asks without one.
            const c = runConnect(a as AccessorState, world, now, config, rows, metrics)
            a = c.accessor
            connectAttempt = c.ok ? "succeeded" : "failed"
            connected = c.ok
            return c.ok ? CONNECTED : NOT_CONNECTED
          }
          case "Probe":
            probe = world.probe(now)
            return PROBED[probe]
          case "Continue":
            return Outcome.next(x.trigger)
          case "Requeue":
            return Outcome.requeue(x.after)
          case "Log":
          case "CleanupSources":
            return Outcome.done
        }
      },
    },
    { _tag: "Reconcile" },
  )
  return {
    accessor: a,
    requeueAfter: run.requeueAfter,
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
