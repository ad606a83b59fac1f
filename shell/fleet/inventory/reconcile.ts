/**
 * The hub reconcile of `krtt inventory`: table `inventory.entry` for every cluster, run by the
 * table runner (`runTable`), then one write of the ConfigMap.
 *
 * # Expected flow
 * Read the provider's clusters and the ConfigMap → for each cluster the provider knows, and each
 * cluster only a stored document names (`Absent`), the table observes the cluster
 * (`observe.ts`), decides, and its actions change the data as read (`interpret.ts`) → the data
 * is written once if it changed → the debounce's pending starts are kept for the next reconcile.
 *
 * # Guarantees
 * - A write that lost a race (Conflict) reconciles again at once, the pending starts kept.
 * - The reconcile result names the rows that decided; its requeue is the shortest of the
 *   debounces asked and of the retry of a cluster that could not be read.
 *
 * @module
 */
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import * as Ref from "effect/Ref"
import {
  ENTRY,
  type EntryAction,
  type EntryStatus,
  type EntryTrigger,
  entryKey,
  entryTransition,
} from "../../../core/inventory/index.ts"
import type { TableLoopError } from "../../../core/krtt/run.ts"
import type { RowId } from "../../../core/krtt/types.ts"
import { done, type ReconcileResult, requeueAfter } from "../../controller/result.ts"
import { runTable, type Table } from "../../controller/table.ts"
import type { KubeError } from "../../kube/errors.ts"
import type { ClusterState } from "../../multicluster/index.ts"
import { interpret, type Ledger, writeInventory } from "./interpret.ts"
import { countClusters, inventoryDecisions, inventoryWrites } from "./metrics.ts"
import { forgetVersions, readInventory, storedCluster, type ViewDeps, viewOf } from "./observe.ts"

/** What the hub reconcile works with. */
export interface ReconcileDeps extends ViewDeps {
  readonly target: { readonly namespace: string; readonly name: string }
  /** Since when each cluster's change has been waiting (the debounce), by cluster. */
  readonly pending: Ref.Ref<ReadonlyMap<string, number>>
}

/** Every cluster the provider knows, then every cluster only a stored document names. */
const clustersToDecide = (states: ReadonlyArray<ClusterState>, data: Readonly<Record<string, string>>) => {
  const clusters = new Map<string, ClusterState | undefined>(states.map((s) => [s.name, s]))
  for (const [key, value] of Object.entries(data)) {
    const named = storedCluster(value)
    if (named !== undefined && entryKey(named) === key && !clusters.has(named)) clusters.set(named, undefined)
  }
  return clusters
}

/** One cluster's table: observe it (`Absent` when the provider lost it), decide, change the ledger. */
const entryTable = (
  deps: ReconcileDeps,
  ledger: Ledger,
  cluster: {
    readonly name: string
    readonly state: ClusterState | undefined
    readonly pendingSince: number | undefined
  },
  now: number,
  retry: { value: boolean },
): Table<EntryTrigger, EntryAction, EntryStatus, never, never, never> => ({
  table: ENTRY,
  maxTransitions: 2,
  decide: (trigger) =>
    Effect.gen(function* () {
      const seen =
        cluster.state === undefined
          ? { view: { _tag: "Absent" } as const, retry: false }
          : yield* viewOf(deps, cluster.state, now)
      retry.value ||= seen.retry
      const observed = {
        cluster: cluster.name,
        view: seen.view,
        stored: ledger.data[entryKey(cluster.name)],
        pendingSince: cluster.pendingSince,
      }
      return entryTransition({ observed, desired: {}, trigger, now }, deps.config)
    }),
  run: interpret(ledger),
})

/** The controller's one request: recompute the inventory. */
const reconcileTrigger: EntryTrigger = { _tag: "Reconcile" }

/** The inventory's one reconcile: every cluster's entry, one write. */
export const reconcileInventory = (
  deps: ReconcileDeps,
): Effect.Effect<ReconcileResult, KubeError | TableLoopError> =>
  Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    const states = deps.manager.provider === undefined ? [] : yield* deps.manager.provider.clusters
    yield* forgetVersions(deps, states) // the version of a cluster that left is never needed again
    const stored = yield* readInventory(deps.manager.hub.client, deps.target)
    const ledger: Ledger = { data: { ...stored.data }, changed: false }
    const before = yield* Ref.get(deps.pending)
    const pending = new Map<string, number>()
    const rows = new Set<RowId>()
    const retry = { value: false }
    let delay: number | undefined
    for (const [name, state] of clustersToDecide(states, stored.data)) {
      const table = entryTable(deps, ledger, { name, state, pendingSince: before.get(name) }, now, retry)
      const run = yield* runTable(table, reconcileTrigger)
      const r = run.last
      rows.add(r.row)
      if (r.status.pendingSince !== undefined) pending.set(name, r.status.pendingSince)
      if (run.requeueAfter !== undefined) delay = Math.min(delay ?? run.requeueAfter, run.requeueAfter)
      if (r.actions.length > 0)
        yield* Metric.update(inventoryDecisions.pipe(Metric.withAttributes({ row: r.row })), 1)
      if (r.actions.some((a) => a._tag !== "RequeueAfter"))
        yield* Effect.logDebug("inventory entry").pipe(Effect.annotateLogs({ cluster: name, row: r.row }))
    }
    const row = rows.size === 0 ? undefined : [...rows].join(" ")
    if (retry.value) delay = Math.min(delay ?? deps.config.retry, deps.config.retry)
    if (ledger.changed) {
      const result = yield* writeInventory(deps.manager.hub.client, deps.target, stored, ledger.data)
      yield* Metric.update(inventoryWrites.pipe(Metric.withAttributes({ result })), 1)
      // Lost a race: read again and decide again at once; the pending starts are kept.
      if (result === "conflict") {
        yield* Ref.set(deps.pending, pending)
        return requeueAfter(Duration.zero, row)
      }
    }
    yield* Ref.set(deps.pending, pending)
    yield* countClusters(ledger.data)
    return delay === undefined ? done(row) : requeueAfter(Duration.millis(delay), row)
  })
