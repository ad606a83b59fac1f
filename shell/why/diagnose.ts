/**
 * `krtt why`'s diagnosis of one observed Cluster: the pure Cluster controller reconcile
 * (core/cluster) on what was read, each table view's deciding row with its documented text and
 * what it waits on, the status krtt's tables would write, and how the Cluster's status differs.
 *
 * @module
 */
import {
  ClusterControllerDefaults,
  CONTROL_PLANE,
  controlPlaneRow,
  DELETE_FLOW,
  DELETION,
  deleteFlowRow,
  deletionRow,
  ERRORS,
  errorsRow,
  INFRASTRUCTURE,
  infrastructureRow,
  NORMAL,
  normalRow,
  reconcile,
} from "../../core/cluster/index.ts"
import type { Trace } from "../../core/cluster/scope.ts"
import type { ClusterStatus } from "../../core/cluster/types.ts"
import { findRow, rowId } from "../../core/krtt/index.ts"
import { bindingOf } from "../krtt/registry.ts"
import { type Difference, statusDifferences } from "./differences.ts"
import type { WhyObservation } from "./observe.ts"
import { deletionWait, externalWait, gateWait } from "./waitingOn.ts"

/** One table view's deciding row. */
export interface DecidingRow {
  readonly table: string
  readonly row: string
  /** The documented row's cells, `column: text` joined by ` | `. */
  readonly text: string
  /** What it waits on (object, field, value), when it waits. */
  readonly waitingOn?: string | undefined
}

/** The diagnosis of one Cluster. */
export interface ClusterDiagnosis {
  readonly name: string
  readonly rows: ReadonlyArray<DecidingRow>
  readonly expectedStatus: ClusterStatus | undefined
  readonly differences: ReadonlyArray<Difference>
}

const documented = (table: string, row: number, waitingOn?: string): DecidingRow => {
  const id = rowId(table, row)
  const spec = bindingOf(table)?.spec
  const r = spec === undefined ? undefined : findRow(spec, id)
  const text = Object.entries(r?.cells ?? {})
    .map(([c, t]) => `${c}: ${t}`)
    .join(" | ")
  return {
    table,
    row: id,
    text: `${r?.derived === true ? "(derived) " : ""}${text}`,
    ...(waitingOn === undefined ? {} : { waitingOn }),
  }
}

/** The table views that decided something in this reconcile, in the order of the docs. */
const decidingRows = (t: Trace, o: WhyObservation, namespace: string): ReadonlyArray<DecidingRow> => {
  const infraWait = externalWait("infrastructure", t, o.desired, o.observed, namespace)
  const cpWait = externalWait("controlPlane", t, o.desired, o.observed, namespace)
  const deleteWait = deletionWait(t, o.desired, o.observed, namespace)
  const rows: Array<DecidingRow> = [
    t.deleting
      ? documented(DELETION, deletionRow(t), deleteWait ?? gateWait(t))
      : documented(NORMAL, normalRow(t), gateWait(t) ?? infraWait ?? cpWait),
  ]
  if (t.infrastructure !== undefined) rows.push(documented(INFRASTRUCTURE, infrastructureRow(t), infraWait))
  if (t.controlPlane !== undefined) rows.push(documented(CONTROL_PLANE, controlPlaneRow(t), cpWait))
  if (t.deletePath !== undefined) rows.push(documented(DELETE_FLOW, deleteFlowRow(t), deleteWait))
  if (t.error || t.exit === "GetFailed" || t.exit === "ClusterClassFailed")
    rows.push(documented(ERRORS, errorsRow(t)))
  return rows
}

/** Diagnoses one observed Cluster at `now`. */
export const diagnose = (o: WhyObservation, now: number): ClusterDiagnosis => {
  const namespace = o.object.metadata.namespace ?? ""
  const decided = reconcile(
    { observed: o.observed, desired: o.desired, trigger: { _tag: "Reconcile" }, now },
    ClusterControllerDefaults,
  )
  const actual = (o.object as { readonly status?: ClusterStatus }).status
  return {
    name: `${namespace}/${o.object.metadata.name ?? ""}`,
    rows: decidingRows(decided.trace, o, namespace),
    expectedStatus: decided.status,
    differences: statusDifferences(actual, decided.status),
  }
}
