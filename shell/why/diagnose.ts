/**
 * `krtt why`'s diagnosis of one observed Cluster: the pure Cluster controller reconcile
 * (core/cluster's `whyReconcile`) on what was read, each table view's deciding row with its
 * documented text and what it waits on, the status krtt's tables would write, and how the
 * Cluster's status differs.
 *
 * @module
 */
import { ClusterControllerDefaults } from "../../core/cluster/config.ts"
import type { ClusterStatus } from "../../core/cluster/types.ts"
import { whyReconcile } from "../../core/cluster/why.ts"
import { findRow, type RowId } from "../../core/krtt/index.ts"
import { bindingOf } from "../krtt/registry.ts"
import { type Difference, statusDifferences } from "./differences.ts"
import type { WhyObservation } from "./observe.ts"

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

const documented = (table: string, id: RowId, waitingOn?: string): DecidingRow => {
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

/** Diagnoses one observed Cluster at `now`. */
export const diagnose = (o: WhyObservation, now: number): ClusterDiagnosis => {
  const namespace = o.object.metadata.namespace ?? ""
  const decided = whyReconcile(
    { observed: o.observed, desired: o.desired, trigger: { _tag: "Reconcile" }, now },
    ClusterControllerDefaults,
    namespace,
  )
  const actual = (o.object as { readonly status?: ClusterStatus }).status
  return {
    name: `${namespace}/${o.object.metadata.name ?? ""}`,
    rows: decided.rows.map((r) => documented(r.table, r.row, r.waitingOn)),
    expectedStatus: decided.status,
    differences: statusDifferences(actual, decided.status),
  }
}
