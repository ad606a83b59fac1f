/**
 * The accessor registry: one entry per Cluster, its accessor state (core/clustercache) and its
 * connection, if any.
 *
 * # Expected flow
 * A reconcile reads an entry, decides and does its I/O holding nothing, and then `set`s the new
 * entry; `watch()` records a started watch with `setWatches`; callers of `getClient()` and the
 * like read the entry (`connected`).
 *
 * # Guarantees
 * - Every change is one atomic swap of the map (`Ref.update`), never held across I/O (seed 000,
 *   "Thread Safety": the lock is only taken to update the state, after the connection attempt),
 *   so that a reader never waits on a slow cluster.
 * - `setWatches` changes the entry only while it still holds the connection the watch was
 *   started on: a watch of a connection since dropped is not recorded on the next one.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import type { AccessorState } from "../../core/clustercache/index.ts"
import { keyOf } from "../kube/resource.ts"
import type { ClusterKey } from "./cluster.ts"
import type { Connection } from "./connection.ts"
import { ClusterNotConnectedError } from "./errors.ts"

/** A Cluster's accessor: the core's state and the connection it describes. */
export interface Entry {
  readonly state: AccessorState
  readonly connection: Connection | undefined
}

/** The registry of accessors. */
export interface Registry {
  /** The Cluster's entry, if it has an accessor. */
  readonly get: (cluster: ClusterKey) => Effect.Effect<Entry | undefined>
  /** Replaces the Cluster's entry; `undefined` removes the accessor. */
  readonly set: (cluster: ClusterKey, entry: Entry | undefined) => Effect.Effect<void>
  /** Replaces the watch names of the accessor, if it still has connection `c`. */
  readonly setWatches: (
    cluster: ClusterKey,
    c: Connection,
    f: (watches: ReadonlyArray<string>) => ReadonlyArray<string>,
  ) => Effect.Effect<void>
  /** The Cluster's connection, or `ClusterNotConnectedError` (no accessor, or disconnected). */
  readonly connected: (cluster: ClusterKey) => Effect.Effect<Connection, ClusterNotConnectedError>
  /** The clusters that have an accessor, and whether each is connected. */
  readonly accessors: () => Effect.Effect<
    ReadonlyArray<{ readonly cluster: ClusterKey; readonly connected: boolean }>
  >
}

/** Makes an empty registry. */
export const makeRegistry: Effect.Effect<Registry> = Effect.map(
  Ref.make(new Map<string, Entry>()),
  (entries): Registry => {
    const get = (cluster: ClusterKey) => Effect.map(Ref.get(entries), (m) => m.get(keyOf(cluster)))
    return {
      get,
      set: (cluster, entry) =>
        Ref.update(entries, (m) => {
          const next = new Map(m)
          if (entry === undefined) next.delete(keyOf(cluster))
          else next.set(keyOf(cluster), entry)
          return next
        }),
      setWatches: (cluster, c, f) =>
        Ref.update(entries, (m) => {
          const cur = m.get(keyOf(cluster))
          if (cur === undefined || cur.connection !== c) return m
          const next = new Map(m)
          next.set(keyOf(cluster), { ...cur, state: { ...cur.state, watches: f(cur.state.watches) } })
          return next
        }),
      connected: (cluster) =>
        Effect.flatMap(get(cluster), (e) =>
          e?.connection === undefined || !e.state.connected
            ? Effect.fail(
                new ClusterNotConnectedError({
                  cluster: keyOf(cluster),
                  message: "connection to the workload cluster is down",
                }),
              )
            : Effect.succeed(e.connection),
        ),
      accessors: () =>
        Effect.map(Ref.get(entries), (m) =>
          [...m.entries()].map(([k, e]) => {
            const [namespace, name] = k.split("/") as [string, string]
            return { cluster: { namespace, name }, connected: e.state.connected }
          }),
        ),
    }
  },
)
