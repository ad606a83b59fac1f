/**
 * The ClusterCache Reconciler's actions carried out: what one action of a deciding row does, and
 * the run's next step as an `Outcome` (core/krtt/run.ts).
 *
 * # Expected flow
 * `run(action, decided)` for each action of the row that decided, in order: `Connect` runs the
 * clusterAccessor table (`connect.ts`) and answers `Outcome.next(ConnectFinished)`; `Probe` asks
 * the workload cluster `GET /` and answers `Outcome.next(ProbeFinished)`; `Continue` answers
 * `Outcome.next` with its trigger; `Requeue` answers `Outcome.requeue(ms)`; `StopCache` closes
 * the connection, `SendEvent` sends the Cluster to its source, metric actions update the
 * metrics, `DeleteAccessor` removes the Cluster's series, `Log` logs at debug level; the others
 * answer `Outcome.done`.
 *
 * # Guarantees
 * - The run's accessor state and connection are this reconcile's own (`ReconcileState`); the
 *   reconcile applies them to the registry, never the interpreter.
 * - A failed probe is an answer, not an error: `failure`, or `unauthorized` for a 401.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import type {
  AccessorState,
  ReconcilerAction,
  ReconcilerStatus,
  ReconcilerTrigger,
} from "../../core/clustercache/index.ts"
import type { RowId, TransitionResult } from "../../core/krtt/index.ts"
import { Outcome, type TableLoopError } from "../../core/krtt/run.ts"
import { keyOf } from "../kube/resource.ts"
import type { ClusterKey } from "./cluster.ts"
import type { Connected } from "./connect.ts"
import { type Connection, closeConnection } from "./connection.ts"
import { probe } from "./health.ts"
import { applyMetrics, removeClusterMetrics } from "./metrics.ts"
import { type RegisteredSource, send } from "./sources.ts"

/** One reconcile's state: the accessor as decided and the connection as the actions left it. */
export interface ReconcileState {
  readonly cluster: ClusterKey
  /** Every row that decided, Reconciler and clusterAccessor rows, in order. */
  readonly rows: Array<RowId>
  readonly registered: ReadonlyMap<string, RegisteredSource>
  state: AccessorState | undefined
  connection: Connection | undefined
}

/** What an action answers the run. */
export type ReconcilerOutcome = Outcome<ReconcilerTrigger, never>

/** Carries out one action of a deciding row of the Reconciler. */
export type Interpret = (
  action: ReconcilerAction,
  decided: TransitionResult<ReconcilerAction, ReconcilerStatus>,
) => Effect.Effect<ReconcilerOutcome, TableLoopError>

/** Makes the interpreter of one reconcile, over its state and Connect(). */
export const makeInterpret =
  (
    connect: (
      cluster: ClusterKey,
      state: AccessorState,
      rows: Array<RowId>,
    ) => Effect.Effect<Connected, TableLoopError>,
  ) =>
  (run: ReconcileState): Interpret =>
  (action, decided) => {
    const { cluster } = run
    switch (action._tag) {
      case "Connect": {
        const state = run.state
        if (state === undefined) return Effect.succeed(Outcome.done)
        return Effect.map(connect(cluster, state, run.rows), (c) => {
          run.state = c.state
          run.connection = c.connection
          return Outcome.next<ReconcilerTrigger>({ _tag: "ConnectFinished", ok: c.connection !== undefined })
        })
      }
      case "Probe":
        return Effect.map(probe(run.connection, action.timeout), (outcome) =>
          Outcome.next<ReconcilerTrigger>({ _tag: "ProbeFinished", outcome }),
        )
      case "StopCache":
        return Effect.sync(() => run.connection).pipe(
          Effect.flatMap(closeConnection),
          Effect.map(() => {
            run.connection = undefined
            return Outcome.done
          }),
        )
      case "SendEvent":
        return Effect.as(send(run.registered, action.source, cluster), Outcome.done)
      case "Continue":
        return Effect.succeed(Outcome.next(action.trigger))
      case "Requeue":
        return Effect.succeed(Outcome.requeue(action.after))
      case "Log":
        return Effect.as(
          Effect.logDebug(action.message).pipe(
            Effect.annotateLogs({ cluster: keyOf(cluster), row: decided.row }),
          ),
          Outcome.done,
        )
      case "SetConnectionUp":
      case "SetHealthCheck":
      case "IncHealthChecksTotal":
        return Effect.as(applyMetrics(cluster, [action]), Outcome.done)
      case "DeleteAccessor":
        return Effect.as(removeClusterMetrics(cluster), Outcome.done)
      case "CreateAccessor":
      case "CleanupSources":
        return Effect.succeed(Outcome.done)
    }
  }
