/**
 * `krtt inventory` (seed 003's AGGREGATING multi-cluster controller; docs/fleet.md),
 * transcribed sentence by sentence as the rows of one cluster's inventory entry:
 *
 * > one ConfigMap `krtt-inventory` in NS holds a key per engaged cluster with a small JSON
 * > document: Kubernetes version, node count, Ready node count, engaged since, last change;
 * > updated on Node events in any cluster (debounced), a cluster's key removed when it leaves the
 * > provider, marked unreachable while it is disengaged by health.
 *
 * Rows 1, 3-8 and 10 are those sentences; rows 2, 9, 11 and 12 are derived where the issue is
 * silent, each with its reason (upstream multicluster-runtime only knows engaged clusters; its
 * providers' engage/disengage is the only lifecycle signal). The predicates read the JSON
 * documents on their own, never through core.
 *
 * @module
 */
import type { EntryInput, EntryResult, InventoryConfig } from "../../core/inventory/index.ts"
import type { TableSpec } from "../../core/krtt/index.ts"
import { rowsFor } from "../builder.ts"

export const ENTRY_COLUMNS = ["Cluster", "Stored entry", "Condition", "Action", "Resulting entry"] as const
const { doc, derived } = rowsFor<EntryInput, EntryResult, InventoryConfig>(ENTRY_COLUMNS)

type Doc = Record<string, unknown>

/** The stored document when it is one for this cluster with every field of the list. */
const storedDoc = (i: EntryInput): Doc | undefined => {
  const raw = i.observed.stored
  if (raw === undefined) return undefined
  let v: unknown
  try {
    v = JSON.parse(raw)
  } catch {
    return undefined
  }
  if (v === null || typeof v !== "object" || Array.isArray(v)) return undefined
  const d = v as Doc
  const count = (x: unknown) => typeof x === "number" && Number.isInteger(x) && x >= 0
  const date = (x: unknown) => typeof x === "string" && Number.isFinite(new Date(x).getTime())
  const ok =
    d.cluster === i.observed.cluster &&
    typeof d.kubernetesVersion === "string" &&
    count(d.nodes) &&
    count(d.readyNodes) &&
    date(d.engagedSince) &&
    date(d.lastChange) &&
    typeof d.reachable === "boolean" &&
    (d.reason === undefined || typeof d.reason === "string")
  return ok ? d : undefined
}

const view = (i: EntryInput) => i.observed.view
const engaged = (i: EntryInput) => view(i)._tag === "Engaged"
const facts = (i: EntryInput) => (view(i) as Extract<ReturnType<typeof view>, { _tag: "Engaged" }>).facts
const reachable = (i: EntryInput) => storedDoc(i)?.reachable === true
const unreachable = (i: EntryInput) => storedDoc(i)?.reachable === false
const differs = (i: EntryInput) => {
  const d = storedDoc(i)
  const f = facts(i)
  return (
    d !== undefined &&
    (d.kubernetesVersion !== f.kubernetesVersion || d.nodes !== f.nodes || d.readyNodes !== f.readyNodes)
  )
}
/** How long the difference has waited, a start in the future counting as now. */
const waited = (i: EntryInput) =>
  i.observed.pendingSince === undefined ? 0 : Math.max(0, i.now - i.observed.pendingSince)

/** The cluster's key: its name if valid, else sanitized with a suffix (see docs/fleet.md). */
const keyOk = (i: EntryInput, key: string) =>
  /^[-._a-zA-Z0-9]+$/.test(key) &&
  key.length <= 253 &&
  (/^[-._a-zA-Z0-9]+$/.test(i.observed.cluster) && i.observed.cluster.length <= 253
    ? key === i.observed.cluster
    : key.startsWith(`${i.observed.cluster.replace(/[^-._a-zA-Z0-9]/g, "-").slice(0, 200)}.`))

const nothing = (i: EntryInput, r: EntryResult) => r.actions.length === 0 && i !== undefined
const iso = (ms: number) => new Date(ms).toISOString()

/** Exactly one action, a PutEntry on the cluster's key, whose document satisfies `check`. */
const putsOne = (r: EntryResult, i: EntryInput, check: (d: Doc) => boolean): boolean => {
  if (r.actions.length !== 1) return false
  const a = r.actions[0]
  if (a?._tag !== "PutEntry" || !keyOk(i, a.key)) return false
  const d = JSON.parse(a.value) as Doc
  return d.cluster === i.observed.cluster && check(d)
}
const hasFacts = (i: EntryInput, d: Doc) => {
  const f = facts(i)
  return d.kubernetesVersion === f.kubernetesVersion && d.nodes === f.nodes && d.readyNodes === f.readyNodes
}
const reachableNow = (i: EntryInput, d: Doc) =>
  d.reachable === true && d.reason === undefined && d.lastChange === iso(i.now) && hasFacts(i, d)
const requeues = (r: EntryResult, delay: number) =>
  r.actions.length === 1 && r.actions[0]?._tag === "RequeueAfter" && r.actions[0].delay === delay

/**
 * What the key holds after each row (the table's last column, in the status's words): every row's
 * `holds` checks it too, so that a row reporting the wrong outcome is caught.
 */
const ENTRY_AFTER: Readonly<Record<number, (i: EntryInput) => EntryResult["status"]["entry"]>> = {
  1: () => "written",
  2: () => "written",
  3: () => "current",
  4: () => "pending",
  5: () => "pending",
  6: () => "written",
  7: () => "unreachable",
  8: () => "unreachable",
  9: () => "none",
  10: () => "removed",
  11: () => "none",
  // "unchanged": a stored entry stays current, no key stays none
  12: (i) => (storedDoc(i) === undefined ? "none" : "current"),
}

type EntryRowSpec = TableSpec<EntryInput, EntryResult, InventoryConfig>["rows"][number]
const withOutcome = (rows: ReadonlyArray<EntryRowSpec>): ReadonlyArray<EntryRowSpec> =>
  rows.map((row) => ({
    ...row,
    holds: (i, r, c) => row.holds(i, r, c) && r.status.entry === ENTRY_AFTER[row.n]?.(i),
  }))

export const entryTable: TableSpec<EntryInput, EntryResult, InventoryConfig> = {
  id: "inventory.entry",
  source: "003_424e4e9fdc1cae8c.txt",
  title: "Inventory entry of one cluster (seed 003, Goals 2, aggregating controller)",
  columns: ENTRY_COLUMNS,
  rows: withOutcome([
    doc(
      1,
      [
        "engaged",
        "none (or not a document of this cluster)",
        "—",
        "put the entry at once",
        "reachable; version, nodes, Ready nodes as the cluster says; engaged since = last change = now",
      ],
      {
        applies: (i) => engaged(i) && storedDoc(i) === undefined,
        holds: (i, r) =>
          putsOne(r, i, (d) => reachableNow(i, d) && d.engagedSince === iso(i.now)) &&
          r.status.pendingSince === undefined,
      },
    ),
    derived(
      2,
      [
        "engaged",
        "unreachable",
        "—",
        "put the entry at once",
        "reachable again; facts as the cluster says; engaged since = last change = now",
      ],
      {
        reason:
          "the issue marks a cluster unreachable only WHILE it is disengaged by health; once engaged again the mark ends at once (no debounce: it is one lifecycle step, not a burst) and a new engagement begins",
        applies: (i) => engaged(i) && unreachable(i),
        holds: (i, r) =>
          putsOne(r, i, (d) => reachableNow(i, d) && d.engagedSince === iso(i.now)) &&
          r.status.pendingSince === undefined,
      },
    ),
    doc(
      3,
      ["engaged", "reachable", "the stored version and counts equal the cluster's", "nothing", "unchanged"],
      {
        applies: (i) => engaged(i) && reachable(i) && !differs(i),
        holds: (i, r) => nothing(i, r) && r.status.pendingSince === undefined,
      },
    ),
    doc(
      4,
      [
        "engaged",
        "reachable",
        "version or counts differ; no change pending; debounce > 0",
        "wait: reconcile again after the debounce",
        "pending since now (debounced)",
      ],
      {
        applies: (i, c) =>
          engaged(i) && reachable(i) && differs(i) && i.observed.pendingSince === undefined && c.debounce > 0,
        holds: (i, r, c) => requeues(r, c.debounce) && r.status.pendingSince === i.now,
      },
    ),
    doc(
      5,
      [
        "engaged",
        "reachable",
        "version or counts differ; pending for less than the debounce",
        "wait: reconcile again when the debounce has passed",
        "still pending since the first change",
      ],
      {
        applies: (i, c) =>
          engaged(i) &&
          reachable(i) &&
          differs(i) &&
          i.observed.pendingSince !== undefined &&
          waited(i) < c.debounce,
        holds: (i, r, c) =>
          requeues(r, c.debounce - waited(i)) && r.status.pendingSince === i.observed.pendingSince,
      },
    ),
    doc(
      6,
      [
        "engaged",
        "reachable",
        "version or counts differ; pending for the debounce (or debounce 0)",
        "put the entry",
        "facts as the cluster says; last change = now; engaged since kept",
      ],
      {
        applies: (i, c) => engaged(i) && reachable(i) && differs(i) && waited(i) >= c.debounce,
        holds: (i, r) =>
          putsOne(r, i, (d) => reachableNow(i, d) && d.engagedSince === storedDoc(i)?.engagedSince) &&
          r.status.pendingSince === undefined,
      },
    ),
    doc(
      7,
      [
        "disengaged by health",
        "reachable",
        "—",
        "put the entry at once",
        "unreachable with the provider's reason; last known version and counts kept; last change = now",
      ],
      {
        applies: (i) => view(i)._tag === "Unhealthy" && reachable(i),
        holds: (i, r) => {
          const before = storedDoc(i) as Doc
          const v = view(i) as { reason: string }
          return putsOne(
            r,
            i,
            (d) =>
              d.reachable === false &&
              d.reason === v.reason &&
              d.lastChange === iso(i.now) &&
              d.engagedSince === before.engagedSince &&
              d.kubernetesVersion === before.kubernetesVersion &&
              d.nodes === before.nodes &&
              d.readyNodes === before.readyNodes,
          )
        },
      },
    ),
    doc(
      8,
      ["disengaged by health", "unreachable", "—", "nothing", "stays unreachable (the first reason kept)"],
      { applies: (i) => view(i)._tag === "Unhealthy" && unreachable(i), holds: nothing },
    ),
    derived(9, ["disengaged by health", "none", "—", "nothing", "no key"], {
      reason:
        "the ConfigMap holds a key per ENGAGED cluster; one that failed its probes before it was ever engaged has no version or counts to report (`krtt clusters` lists it with its reason)",
      applies: (i) => view(i)._tag === "Unhealthy" && storedDoc(i) === undefined,
      holds: nothing,
    }),
    doc(10, ["left the provider", "any value under its key", "—", "remove the key", "no key"], {
      applies: (i) => view(i)._tag === "Absent" && i.observed.stored !== undefined,
      holds: (i, r) =>
        r.actions.length === 1 && r.actions[0]?._tag === "RemoveEntry" && keyOk(i, r.actions[0].key),
    }),
    derived(11, ["left the provider", "no key", "—", "nothing", "no key"], {
      reason: "removal is idempotent: a cluster that left and has no key needs nothing",
      applies: (i) => view(i)._tag === "Absent" && i.observed.stored === undefined,
      holds: nothing,
    }),
    derived(
      12,
      [
        "known and healthy, not engaged",
        "any",
        "engagement under way, or another replica's cluster (sharding)",
        "nothing",
        "unchanged",
      ],
      {
        reason:
          "a cluster being engaged (first sync, new credentials) or owned by another shard is neither unreachable nor gone: the issue names only those two; writing it would flap the entry of a healthy cluster",
        applies: (i) => view(i)._tag === "Waiting",
        holds: nothing,
      },
    ),
  ]),
  priority: [],
  resolutions: [
    "Debounce (issue: `updated on Node events ... (debounced)`): a difference between a reachable entry and the cluster's facts is written once it has been pending for `debounce` (default 2 s), counted from the first reconcile that saw it; events meanwhile change nothing but the facts written. Lifecycle steps (first engagement, unreachable, reachable again, left) are written at once.",
    "`engaged since` survives a restart of the controller and a rotation of the cluster's credentials: it is taken from the stored reachable entry; it is reset when the cluster is engaged for the first time or after being unreachable.",
    "A value under a cluster's key that is not a document of that cluster (not JSON, a field missing, another cluster's name) counts as no entry: rows 1 and 9 decide, and row 1 overwrites it. Keys that name no cluster the controller knows and hold no such document are never touched.",
  ],
}
