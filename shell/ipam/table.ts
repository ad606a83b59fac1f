/**
 * The reconcile table of one Cluster (`ipam.reconcile`) with its I/O, for the table runner
 * (shell/controller/table.ts): how it decides and how it carries out an action.
 *
 * # Expected flow
 * `makeReconcileTable` for the Cluster and ClusterConfigs a reconcile read: `decide` asks
 * `reconcileCluster` against the allocator under its lock (`IpamStore.decide`, which commits the
 * acquisitions before any action runs) and counts the row; a `WriteRefused` trigger is answered
 * by `reconcileRefused`, without a new decision. `run` is the interpreter's (interpret.ts).
 * Once the run is over, `settle` keeps the acquired CIDRs if the applied-rules annotation was
 * written (frees them otherwise) and, when no write was refused, sets the Cluster's
 * `CIDRsAllocated` condition on the version the last write returned.
 *
 * # Guarantees
 * - One decision per run; the CIDRs it acquired are settled exactly once.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import {
  type ControllerIdentity,
  type IpamConfigSpec,
  type ObjectKey,
  type ReconcileAction,
  type ReconcileResult,
  ReconcileRunBound,
  type ReconcileRunTrigger,
  type ReconcileStatus,
  reconcileCluster,
  reconcileRefused,
} from "../../core/ipam/index.ts"
import type { TableRun } from "../../core/krtt/run.ts"
import type { Table } from "../controller/table.ts"
import type { KubeClientShape } from "../kube/client.ts"
import type { KubeError } from "../kube/errors.ts"
import type { KubeObject } from "../kube/resource.ts"
import { setClusterConditions } from "./conditions.ts"
import type { IpamWriteError } from "./errors.ts"
import { makeInterpreter } from "./interpret.ts"
import { recordDecision, recordUsage } from "./metrics.ts"
import { clusterConfigView, clusterView } from "./resources.ts"
import type { IpamStore, Ticket } from "./state.ts"

/** What every reconcile table shares. */
export interface ReconcileDeps {
  readonly client: KubeClientShape
  readonly store: IpamStore
  readonly identity: ControllerIdentity
  /** The component name on Events. */
  readonly component: string
}

/** A run of the reconcile table. */
export type ReconcileRun = TableRun<ReconcileAction, ReconcileStatus, IpamWriteError>

/** The reconcile table for one Cluster, and how its run is settled. */
export interface ReconcileTable {
  readonly table: Table<ReconcileRunTrigger, ReconcileAction, ReconcileStatus, IpamWriteError, never, never>
  /** Settles the run's acquisitions and, when no write was refused, sets the Cluster's condition. */
  readonly settle: (run: ReconcileRun) => Effect.Effect<void, KubeError>
}

/** The table for `request`, deciding on `cluster` (undefined: gone) and its ClusterConfigs `objects`. */
export const makeReconcileTable = (
  deps: ReconcileDeps,
  config: IpamConfigSpec | undefined,
  request: ObjectKey,
  cluster: KubeObject | undefined,
  objects: ReadonlyArray<KubeObject>,
): ReconcileTable => {
  const { client, store } = deps
  const interpreter = makeInterpreter({
    client,
    request,
    cluster,
    clusterConfigs: new Map(objects.map((o) => [o.metadata.name ?? "", o])),
    release: store.release,
    component: deps.component,
  })
  let ticket: Ticket | undefined
  const decide = (ipamTrigger: ReconcileRunTrigger) =>
    ipamTrigger._tag === "WriteRefused"
      ? Effect.succeed(reconcileRefused(ipamTrigger))
      : store
          .decide(
            (ipam): ReconcileResult =>
              reconcileCluster({
                observed: {
                  cluster: cluster === undefined ? undefined : clusterView(cluster),
                  clusterConfigs: objects.map(clusterConfigView),
                },
                desired: { config, identity: deps.identity },
                trigger: ipamTrigger,
                ipam,
              }),
            (r) => r.status.acquired,
          )
          .pipe(
            Effect.tap((d) => {
              ticket = d.ticket
              return recordDecision(d.result.row)
            }),
            Effect.map((d) => d.result),
          )
  const settle = (run: ReconcileRun): Effect.Effect<void, KubeError> =>
    Effect.gen(function* () {
      if (ticket !== undefined)
        yield* store.settle(ticket, ticket.acquired.length === 0 || interpreter.recorded())
      yield* Effect.flatMap(store.usage, recordUsage)
      // On the version the last write returned: the one read is stale once annotated.
      const written = interpreter.cluster()
      if (run.failure === undefined && written !== undefined && run.last.status.conditions.length > 0)
        yield* setClusterConditions(client, written, run.last.status.conditions)
    })
  return { table: { ...ReconcileRunBound, decide, run: interpreter.run }, settle }
}
