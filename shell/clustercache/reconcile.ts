/**
 * One reconcile of one Cluster: a run of the ClusterCache Reconciler table (seed 000) on the
 * table runner (`runTable`, shell/controller/table.ts).
 *
 * # Expected flow
 * `reconcile(cluster)`: observe the Cluster, the sources and the accessor (`observe.ts`); take a
 * rotated kubeconfig Secret (`rotation.ts`); then the run: the Reconciler decides at the current
 * time on the accessor as the previous actions left it, the actions are carried out
 * (`interpret.ts`), and `ConnectFinished`, `ProbeFinished` and `Continue` send the run back to
 * the table, until a row names no next step. After each row's actions the accessor and its
 * connection replace the registry's entry. The outcome is the requeue an action asked for and
 * every row that decided.
 *
 * # Guarantees
 * - The registry is changed only between the actions of two rows, by one atomic swap; no I/O
 *   (Connect, the probe) runs while anything is held.
 * - A run past `config.maxTransitionsPerReconcile` Reconciler transitions fails with
 *   `TableLoopError` naming its rows (the core loops) instead of hanging; what its rows decided
 *   is applied to the registry all the same.
 *
 * # Assumptions
 * One reconcile per Cluster at a time (the work queue's promise).
 *
 * @module
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import {
  type ClusterCacheConfig,
  RECONCILER,
  type ReconcilerAction,
  type ReconcilerDesired,
  type ReconcilerStatus,
  type ReconcilerTrigger,
  reconcilerTransition,
} from "../../core/clustercache/index.ts"
import type { RowId } from "../../core/krtt/index.ts"
import type { TableLoopError } from "../../core/krtt/run.ts"
import { runTable, type Table } from "../controller/table.ts"
import { keyOf } from "../kube/resource.ts"
import type { ClusterKey } from "./cluster.ts"
import type { Interpret, ReconcileState } from "./interpret.ts"
import type { Observed } from "./observe.ts"
import type { Entry, Registry } from "./registry.ts"

/** The outcome of one reconcile. */
export interface ReconcileOutcome {
  readonly requeueAfter: number | undefined
  readonly rows: ReadonlyArray<RowId>
}

/** What a reconcile is made of: its observation, the rotation check, the interpreter, the registry. */
export interface ReconcileDeps {
  readonly config: ClusterCacheConfig
  readonly registry: Registry
  readonly observe: (cluster: ClusterKey) => Effect.Effect<Observed>
  readonly reconnectIfRotated: (
    cluster: ClusterKey,
    entry: Entry | undefined,
    rows: Array<RowId>,
  ) => Effect.Effect<Entry | undefined>
  readonly interpret: (run: ReconcileState) => Interpret
}

const RECONCILE: ReconcilerTrigger = { _tag: "Reconcile" }

/** Makes `reconcile(cluster)`. */
export const makeReconcile = (deps: ReconcileDeps) => {
  const { config, registry } = deps

  /**
   * The Reconciler table of one reconcile, deciding on the run's accessor, and `apply`: the
   * accessor and connection that the last row's actions left, put in the registry once they are
   * done (at the next decision, and at the end of the run).
   */
  const tableOf = (run: ReconcileState, desired: ReconcilerDesired) => {
    let pending = false
    const apply = Effect.suspend(() => {
      if (!pending) return Effect.void
      pending = false
      const state = run.state
      return registry.set(
        run.cluster,
        state === undefined ? undefined : { state, connection: run.connection },
      )
    })
    const table: Table<ReconcilerTrigger, ReconcilerAction, ReconcilerStatus, never, TableLoopError, never> =
      {
        table: RECONCILER,
        maxTransitions: config.maxTransitionsPerReconcile,
        decide: (trigger) =>
          Effect.gen(function* () {
            yield* apply
            const now = yield* Clock.currentTimeMillis
            const r = reconcilerTransition(
              { observed: { accessor: run.state }, desired, trigger, now },
              config,
            )
            run.rows.push(r.row)
            run.state = r.status.accessor
            pending = true
            return r
          }),
        run: deps.interpret(run),
      }
    return { table, apply }
  }

  return (cluster: ClusterKey): Effect.Effect<ReconcileOutcome, TableLoopError> =>
    Effect.gen(function* () {
      const rows: Array<RowId> = []
      const observed = yield* deps.observe(cluster)
      const entry = yield* deps.reconnectIfRotated(cluster, observed.entry, rows)
      const run: ReconcileState = {
        cluster,
        rows,
        registered: observed.registered,
        state: entry?.state,
        connection: entry?.connection,
      }
      const { table, apply } = tableOf(run, observed.desired)
      const result = yield* runTable(table, RECONCILE).pipe(
        Effect.tap(() => apply),
        Effect.tapError(() => apply),
      )
      yield* Effect.logDebug("clustercache reconciled").pipe(
        Effect.annotateLogs({
          cluster: keyOf(cluster),
          rows: rows.join(" "),
          requeueAfter: result.requeueAfter ?? "none",
        }),
      )
      return { requeueAfter: result.requeueAfter, rows }
    })
}
