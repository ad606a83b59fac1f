/**
 * Watch Management (seed 000), transcribed row by row.
 *
 * @module
 */
import { isDeepStrictEqual } from "node:util"
import type { WatchInput, WatchResult } from "../../core/clustercache/index.ts"
import type { TableSpec } from "../../core/krtt/index.ts"
import { has, KRTT_COLUMNS, rowsFor } from "../builder.ts"
import { logsDocumented } from "./equal.ts"

const { doc } = rowsFor<WatchInput, WatchResult, unknown>(KRTT_COLUMNS)

const named = (i: WatchInput) => i.desired.name !== ""
const known = (i: WatchInput) => i.observed.watches.includes(i.desired.name)
const kept = (i: WatchInput, r: WatchResult) => isDeepStrictEqual(r.status.watches, i.observed.watches)
const errorTag = (r: WatchResult) => r.status.error?._tag

export const watch: TableSpec<WatchInput, WatchResult, unknown> = {
  id: "clustercache.watch",
  source: "000_4ff6953847f6de6f.txt",
  title: "Watch Management",
  columns: KRTT_COLUMNS,
  rows: [
    doc(
      1,
      [
        "`watcher.Name()` empty",
        "Watch requested",
        "`Watch()` called with empty name",
        'Return error "watcher.Name() cannot be empty"',
        "Error returned",
      ],
      {
        applies: (i) => !named(i),
        holds: (i, r) =>
          r.status.outcome === "error" &&
          r.status.error?.message === "watcher.Name() cannot be empty" &&
          kept(i, r) &&
          !has(r.actions, "StartWatch"),
        reason: "First: the sequence diagram checks the name before the connection.",
      },
    ),
    doc(
      2,
      [
        "Not connected",
        "Watch requested",
        "`Watch()` called when `connection=nil`",
        "Return `ClusterNotConnectedError`",
        "Error returned",
      ],
      {
        applies: (i) => named(i) && !i.observed.connected,
        holds: (i, r) =>
          r.status.outcome === "error" &&
          errorTag(r) === "ClusterNotConnectedError" &&
          kept(i, r) &&
          !has(r.actions, "StartWatch"),
        reason:
          "Checked before the watch set, and also for a watch result that arrives after a disconnect: the set was cleared with the cache, so the name is not added.",
      },
    ),
    doc(
      3,
      [
        "Watch already exists",
        "Watch requested",
        "`watches.Has(watcher.Name())` returns true",
        'Log "Skip creation of watch...", return nil',
        "No change",
      ],
      {
        applies: (i) => named(i) && i.observed.connected && i.trigger._tag !== "WatchFailed" && known(i),
        holds: (i, r) =>
          r.status.outcome === "ok" &&
          kept(i, r) &&
          !has(r.actions, "StartWatch") &&
          logsDocumented(r.actions, "Skip creation of watch..."),
      },
    ),
    doc(
      4,
      [
        "New watch",
        "Watch requested",
        "`watches.Has()` returns false",
        "Call `watcher.Watch(cache)`, add to `watches` set",
        "Watch created, informer started, `watches.Insert(name)`",
      ],
      {
        applies: (i) => named(i) && i.observed.connected && i.trigger._tag !== "WatchFailed" && !known(i),
        holds: (i, r) =>
          i.trigger._tag === "Watch"
            ? has(r.actions, "StartWatch", (a) => a._tag === "StartWatch" && a.name === i.desired.name) &&
              kept(i, r) &&
              r.status.outcome === "pending"
            : r.status.outcome === "ok" &&
              r.status.watches.includes(i.desired.name) &&
              r.status.watches.length === i.observed.watches.length + 1,
        reason:
          "Covers the call (start the watch) and its success (insert the name): the name joins the set only once the watch exists.",
      },
    ),
    doc(
      5,
      [
        "Watch creation failed",
        "Watch requested",
        "`watcher.Watch()` returns error",
        "Return wrapped error",
        "Error returned, watch not added",
      ],
      {
        applies: (i) => named(i) && i.observed.connected && i.trigger._tag === "WatchFailed",
        holds: (i, r) =>
          r.status.outcome === "error" &&
          errorTag(r) === "WatchFailed" &&
          (r.status.error?.message.includes(i.desired.name) ?? false) &&
          kept(i, r),
      },
    ),
  ],
  priority: [],
  resolutions: [
    "Rows are disjoint by construction: name, then connection, then the watch result, then the set.",
  ],
}
