/**
 * Watch Management (seed 000): `clusterAccessor.Watch(watcher)` as a pure transition.
 *
 * Expected flow: `Watch` with a new name while connected → row 4 asks the shell to start the
 * watch (under the accessor's lock: registering an informer is local and quick); its outcome
 * comes back as `WatchStarted` (row 4 again: the name joins the set) or `WatchFailed` (row 5).
 *
 * Guarantees: a name is in the set only after its watch started; a watch is never started twice
 * per connection; a disconnect clears the set (clusterAccessor Connect/Disconnect, row 6), so
 * after a reconnect every watch must be added again.
 *
 * @module
 */
import { type RowId, rowId, type TransitionInput, type TransitionResult } from "../krtt/index.ts"
import type { WatchAction } from "./actions.ts"

export const WATCH = "clustercache.watch"

export interface WatchObserved {
  readonly connected: boolean
  /** Watch names added since the last connect, sorted. */
  readonly watches: ReadonlyArray<string>
}

export interface WatchDesired {
  /** `watcher.Name()`. */
  readonly name: string
}

export type WatchTrigger =
  | { readonly _tag: "Watch" }
  | { readonly _tag: "WatchStarted" }
  | { readonly _tag: "WatchFailed"; readonly error: string }

export type WatchError =
  | { readonly _tag: "EmptyWatcherName"; readonly message: string }
  | { readonly _tag: "ClusterNotConnectedError"; readonly message: string }
  | { readonly _tag: "WatchFailed"; readonly message: string }

export interface WatchStatus {
  readonly watches: ReadonlyArray<string>
  /** `pending` while the shell starts the watch; `ok` once it exists; `error` with the error. */
  readonly outcome: "pending" | "ok" | "error"
  readonly error?: WatchError | undefined
}

export type WatchInput = TransitionInput<WatchObserved, WatchDesired, WatchTrigger>
export type WatchResult = TransitionResult<WatchAction, WatchStatus>

const r = (n: number): RowId => rowId(WATCH, n)
const ROW = { emptyName: r(1), notConnected: r(2), exists: r(3), create: r(4), failed: r(5) }
const NONE: ReadonlyArray<WatchAction> = []

const EMPTY_NAME: WatchError = { _tag: "EmptyWatcherName", message: "watcher.Name() cannot be empty" }
const NOT_CONNECTED: WatchError = {
  _tag: "ClusterNotConnectedError",
  message: "connection to the workload cluster is down",
}

/** Inserts a name into a sorted list, keeping it sorted and free of duplicates. */
export const insertSorted = (names: ReadonlyArray<string>, name: string): ReadonlyArray<string> => {
  let i = 0
  // Stryker disable next-line ConditionalExpression,EqualityOperator
  while (i < names.length && (names[i] as string) < name) i++
  if (names[i] === name) return names
  return [...names.slice(0, i), name, ...names.slice(i)]
}

/** Watch Management as a transition. */
export const watchTransition = (input: WatchInput): WatchResult => {
  const { observed, desired, trigger } = input
  const { watches } = observed
  const { name } = desired
  if (name === "")
    return { actions: NONE, status: { watches, outcome: "error", error: EMPTY_NAME }, row: ROW.emptyName }
  if (!observed.connected) {
    return {
      actions: NONE,
      status: { watches, outcome: "error", error: NOT_CONNECTED },
      row: ROW.notConnected,
    }
  }
  if (trigger._tag === "WatchFailed") {
    const error: WatchError = {
      _tag: "WatchFailed",
      message: `failed to create watch ${name}: ${trigger.error}`,
    }
    return { actions: NONE, status: { watches, outcome: "error", error }, row: ROW.failed }
  }
  if (watches.includes(name)) {
    return {
      actions: [
        { _tag: "Log", message: `Skip creation of watch ${name} for cluster, because it already exists` },
      ],
      status: { watches, outcome: "ok" },
      row: ROW.exists,
    }
  }
  return trigger._tag === "Watch"
    ? { actions: [{ _tag: "StartWatch", name }], status: { watches, outcome: "pending" }, row: ROW.create }
    : { actions: NONE, status: { watches: insertSorted(watches, name), outcome: "ok" }, row: ROW.create }
}
