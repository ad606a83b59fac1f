/**
 * `krtt inventory` (seed 003, Goals 2: an AGGREGATING multi-cluster
 * controller) as a pure decision: what one cluster's entry in the hub ConfigMap `krtt-inventory`
 * must be. Rows are `inventory.entry#n`; `spec/inventory/entry.ts` transcribes the issue's
 * sentences as rows, independently of this file.
 *
 * The entry is a small JSON document under a key per cluster ({@link entryKey}):
 * `{cluster, kubernetesVersion, nodes, readyNodes, engagedSince, lastChange, reachable, reason?}`.
 *
 * Expected flow: a cluster engaged for the first time gets its entry at once; Node events change
 * the counts, and a change is written once it has been pending for the debounce (2 s), a burst
 * making one write; a cluster disengaged by health is marked unreachable at once (its last known
 * counts kept), and marked reachable at once when it is engaged again; a cluster that leaves the
 * provider loses its key.
 *
 * Guarantees: only the cluster's own key is ever named in an action; nothing is written while a
 * cluster's engagement is under way or another replica's; the same input always gives the same
 * document (dates are `now` as ISO 8601).
 *
 * @module
 */
import { type RowId, rowId, type TransitionInput, type TransitionResult } from "../krtt/index.ts"
import type { InventoryConfig } from "./config.ts"

export const ENTRY = "inventory.entry"

/** What the engaged cluster says now. */
export interface ClusterFacts {
  /** `gitVersion` of the cluster's `/version`. */
  readonly kubernetesVersion: string
  /** Nodes in the cluster. */
  readonly nodes: number
  /** Nodes whose `Ready` condition is `True`. */
  readonly readyNodes: number
}

/** The cluster as the provider and the manager see it. */
export type ClusterView =
  /** The provider does not have it (any more): it left. */
  | { readonly _tag: "Absent" }
  /** Engaged, with what its cache and `/version` say. */
  | { readonly _tag: "Engaged"; readonly facts: ClusterFacts }
  /** Disengaged by health: its probes failed (the provider's reason). */
  | { readonly _tag: "Unhealthy"; readonly reason: string }
  /** Known and healthy, not engaged: engagement under way, or another replica's cluster. */
  | { readonly _tag: "Waiting" }

/** One cluster's inventory document. */
export interface InventoryEntry extends ClusterFacts {
  readonly cluster: string
  /** ISO 8601: when the current engagement began. */
  readonly engagedSince: string
  /** ISO 8601: when the entry's content last changed. */
  readonly lastChange: string
  readonly reachable: boolean
  /** Why it is unreachable (the provider's health verdict); only when `reachable` is false. */
  readonly reason?: string | undefined
}

export interface EntryObserved {
  readonly cluster: string
  readonly view: ClusterView
  /** The raw value under the cluster's key in the ConfigMap, if there is one. */
  readonly stored: string | undefined
  /** Since when a difference between the facts and the stored entry is waiting to be written. */
  readonly pendingSince: number | undefined
}

/** The inventory asks for nothing per cluster beyond the configuration (the debounce). */
export type EntryDesired = Readonly<Record<string, never>>

/** The controller's one request: recompute the inventory. */
export interface EntryTrigger {
  readonly _tag: "Reconcile"
}

export type EntryInput = TransitionInput<EntryObserved, EntryDesired, EntryTrigger>

export type EntryAction =
  /** Set the key to `value` (a JSON document). */
  | { readonly _tag: "PutEntry"; readonly key: string; readonly value: string }
  /** Remove the key. */
  | { readonly _tag: "RemoveEntry"; readonly key: string }
  /** Reconcile again after `delay` ms (the debounce's remainder). */
  | { readonly _tag: "RequeueAfter"; readonly delay: number }

export interface EntryStatus {
  /** What the key holds after the actions. */
  readonly entry: "none" | "current" | "pending" | "written" | "unreachable" | "removed"
  /** The pending difference's start, kept by the shell for the next reconcile. */
  readonly pendingSince: number | undefined
}

export type EntryResult = TransitionResult<EntryAction, EntryStatus>

const r = (n: number): RowId => rowId(ENTRY, n)
export const EntryRow = {
  firstEngaged: r(1),
  engagedAgain: r(2),
  unchanged: r(3),
  changeStartsWaiting: r(4),
  changeStillWaiting: r(5),
  changeWritten: r(6),
  markedUnreachable: r(7),
  stillUnreachable: r(8),
  unhealthyNeverEngaged: r(9),
  leftRemoved: r(10),
  leftNothingStored: r(11),
  waiting: r(12),
} as const

const KEY = /^[-._a-zA-Z0-9]+$/

/** FNV-1a, 32 bits, as 8 hex digits: a short stable suffix that keeps sanitized keys distinct. */
const fnv1a = (s: string): string => {
  let h = 0x811c9dc5
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i)
    h = Math.imul(h, 0x01000193) >>> 0
  }
  return h.toString(16).padStart(8, "0")
}

/**
 * The ConfigMap key of a cluster: its name when that is a valid key (`[-._a-zA-Z0-9]+`, at most
 * 253 characters), else the name with every other character replaced by `-`, cut to 200
 * characters, and `.` plus a hash of the whole name (`capi/east` → `capi-east.<8 hex>`;
 * Cluster API names are `namespace/name`, composed providers' `provider#cluster`).
 */
export const entryKey = (cluster: string): string =>
  KEY.test(cluster) && cluster.length <= 253
    ? cluster
    : `${cluster.replace(/[^-._a-zA-Z0-9]/g, "-").slice(0, 200)}.${fnv1a(cluster)}`

const isCount = (n: unknown): n is number => Number.isInteger(n) && (n as number) >= 0
const isDate = (s: unknown): s is string => typeof s === "string" && !Number.isNaN(Date.parse(s))

/**
 * The entry stored under a key, when the value is a document of this shape for `cluster`;
 * `undefined` for anything else (not JSON, a field missing or of the wrong type, another cluster).
 */
export const parseEntry = (cluster: string, raw: string | undefined): InventoryEntry | undefined => {
  let v: unknown
  // Stryker disable StringLiteral,BlockStatement
  try {
    v = JSON.parse(raw ?? "")
  } catch {
    return undefined
  }
  // Stryker restore StringLiteral,BlockStatement
  // a value that is not an object (null, a number, a list) has no `cluster` of this name below
  const o = Object(v) as Record<string, unknown>
  if (
    o.cluster !== cluster ||
    typeof o.kubernetesVersion !== "string" ||
    !isCount(o.nodes) ||
    !isCount(o.readyNodes) ||
    !isDate(o.engagedSince) ||
    !isDate(o.lastChange) ||
    typeof o.reachable !== "boolean" ||
    (o.reason !== undefined && typeof o.reason !== "string")
  )
    return undefined
  return {
    cluster,
    kubernetesVersion: o.kubernetesVersion,
    nodes: o.nodes,
    readyNodes: o.readyNodes,
    engagedSince: o.engagedSince,
    lastChange: o.lastChange,
    reachable: o.reachable,
    ...(typeof o.reason === "string" ? { reason: o.reason } : {}),
  }
}

/** The document of an entry, fields in a fixed order. */
export const renderEntry = (e: InventoryEntry): string =>
  JSON.stringify({
    cluster: e.cluster,
    kubernetesVersion: e.kubernetesVersion,
    nodes: e.nodes,
    readyNodes: e.readyNodes,
    engagedSince: e.engagedSince,
    lastChange: e.lastChange,
    reachable: e.reachable,
    ...(e.reachable ? {} : { reason: e.reason }), // JSON leaves an undefined reason out
  })

const iso = (ms: number): string => new Date(ms).toISOString()

const sameFacts = (a: ClusterFacts, b: ClusterFacts): boolean =>
  a.kubernetesVersion === b.kubernetesVersion && a.nodes === b.nodes && a.readyNodes === b.readyNodes

const result = (
  row: RowId,
  entry: EntryStatus["entry"],
  actions: ReadonlyArray<EntryAction> = [],
  pendingSince?: number,
): EntryResult => ({ actions, status: { entry, pendingSince }, row })

const put = (e: InventoryEntry): EntryAction => ({
  _tag: "PutEntry",
  key: entryKey(e.cluster),
  value: renderEntry(e),
})

/** What one cluster's inventory entry must be (see the module doc). */
export const entryTransition = (input: EntryInput, config: InventoryConfig): EntryResult => {
  const { observed, now } = input
  const { cluster, view } = observed
  const stored = parseEntry(cluster, observed.stored)
  switch (view._tag) {
    case "Absent":
      return observed.stored === undefined
        ? result(EntryRow.leftNothingStored, "none")
        : result(EntryRow.leftRemoved, "removed", [{ _tag: "RemoveEntry", key: entryKey(cluster) }])
    case "Waiting":
      return result(EntryRow.waiting, stored === undefined ? "none" : "current", [], observed.pendingSince)
    case "Unhealthy": {
      if (stored === undefined) return result(EntryRow.unhealthyNeverEngaged, "none")
      if (!stored.reachable) return result(EntryRow.stillUnreachable, "unreachable")
      return result(EntryRow.markedUnreachable, "unreachable", [
        put({ ...stored, reachable: false, reason: view.reason, lastChange: iso(now) }),
      ])
    }
    case "Engaged": {
      const f = view.facts
      const fresh = (engagedSince: string): InventoryEntry => ({
        cluster,
        ...f,
        engagedSince,
        lastChange: iso(now),
        reachable: true,
      })
      if (stored === undefined) return result(EntryRow.firstEngaged, "written", [put(fresh(iso(now)))])
      if (!stored.reachable) return result(EntryRow.engagedAgain, "written", [put(fresh(iso(now)))])
      if (sameFacts(stored, f)) return result(EntryRow.unchanged, "current")
      const since = observed.pendingSince ?? now
      const elapsed = Math.max(0, now - since) // a pending start in the future counts as now
      if (elapsed >= config.debounce)
        return result(EntryRow.changeWritten, "written", [put(fresh(stored.engagedSince))])
      const wait: EntryAction = { _tag: "RequeueAfter", delay: config.debounce - elapsed }
      return observed.pendingSince === undefined
        ? result(EntryRow.changeStartsWaiting, "pending", [wait], now)
        : result(EntryRow.changeStillWaiting, "pending", [wait], since)
    }
    default: {
      const never: never = view
      return never
    }
  }
}
