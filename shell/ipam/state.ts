/**
 * `IpamStore`: the one in-memory allocator state of the IPAM controller, changed only by short,
 * synchronous steps (a `Ref.modify`, no I/O inside), so that concurrent reconciles never hand out
 * one CIDR twice while the API calls run outside any lock.
 *
 * # Expected flow
 * A reconcile `decide`s: core's pure decision runs against the current state and its
 * acquisitions are committed at once, with a ticket naming them. The reconcile then performs its
 * actions and `settle`s the ticket: `recorded` when the Cluster's applied-rules annotation holds
 * the CIDRs (from then on the cluster state has them), else the CIDRs are released again.
 * `release` frees the CIDRs of a ClusterConfig whose finalizer was removed.
 *
 * A state refresh (start, `internalStateRefreshCycleDuration`) `beginRestore`s (a sequence
 * number), lists the cluster state from the API server, rebuilds the allocator with core's
 * `restoreIpam`, and `completeRestore`s: allocations of reconciles still in flight, or settled
 * after the refresh began (the list may have missed their writes), are added back before the
 * rebuilt state replaces the old one.
 *
 * # Guarantees
 * - Every decision sees every acquisition committed before it: one CIDR is never allocated
 *   twice, whatever the number of workers.
 * - A refresh never drops an allocation whose writes it may not have seen.
 * - Leaks are possible only towards safety: a CIDR released while a refresh lists may stay held
 *   until the next refresh.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import {
  acquireSpecific,
  type Cidr,
  emptyIpam,
  type IpamConfigSpec,
  type IpamState,
  isCidrError,
  parentCidrsOf,
  parseCidr,
  reconfigure,
  releaseAll,
  usage,
} from "../../core/ipam/index.ts"

interface Pending {
  readonly cidrs: ReadonlyArray<string>
  /** The sequence number at which it settled; undefined while in flight. */
  readonly settled: number | undefined
}

interface Held {
  readonly ipam: IpamState
  readonly seq: number
  readonly nextTicket: number
  readonly pending: ReadonlyMap<number, Pending>
  /** Refreshes under way; while there are none, settled allocations need no tracking. */
  readonly restoring: number
}

/** Names the acquisitions of one decision until they are settled. */
export interface Ticket {
  readonly id: number
  readonly acquired: ReadonlyArray<string>
}

export interface IpamStore {
  /** Runs a pure decision on the current state and commits the state it returns, atomically. */
  readonly decide: <A extends { readonly ipam: IpamState }>(
    f: (ipam: IpamState) => A,
    acquiredOf: (a: A) => ReadonlyArray<string>,
  ) => Effect.Effect<{ readonly result: A; readonly ticket: Ticket }>
  /** The reconcile's writes are done: keep the CIDRs when the annotation recorded them, else free them. */
  readonly settle: (ticket: Ticket, recorded: boolean) => Effect.Effect<void>
  /** Frees CIDRs (after their ClusterConfig's finalizer was removed). */
  readonly release: (cidrs: ReadonlyArray<string>) => Effect.Effect<void>
  /** Takes a config's parents (new ones registered, removed ones' allocations kept, parentless). */
  readonly reconfigure: (config: IpamConfigSpec) => Effect.Effect<void>
  /** Marks the start of a refresh; pass the result to `completeRestore`. */
  readonly beginRestore: Effect.Effect<number>
  /** Replaces the state with a rebuilt one, keeping what reconciles acquired since `since`. */
  readonly completeRestore: (since: number, restored: IpamState) => Effect.Effect<ReadonlyArray<string>>
  /** A refresh that failed before `completeRestore`: the state stays as it is. */
  readonly abortRestore: Effect.Effect<void>
  readonly current: Effect.Effect<IpamState>
  /** Decisions whose allocations are tracked for a refresh (in flight, or settled during one). */
  readonly tracked: Effect.Effect<number>
  /** Allocated and free addresses per parent, for the metrics. */
  readonly usage: Effect.Effect<ReturnType<typeof usage>>
}

const parsed = (cidr: string): Cidr | undefined => {
  const c = parseCidr(cidr)
  return isCidrError(c) ? undefined : c
}

/** Adds back allocations the restored state lacks, largest first, under the parent they had. */
const mergeInto = (
  restored: IpamState,
  before: IpamState,
  cidrs: ReadonlyArray<string>,
): { readonly ipam: IpamState; readonly conflicts: ReadonlyArray<string> } => {
  let ipam = restored
  const conflicts: Array<string> = []
  const sorted = cidrs
    .map((text) => ({ text, c: parsed(text) }))
    .filter((x): x is { text: string; c: Cidr } => x.c !== undefined)
    .sort((a, b) => a.c.prefix - b.c.prefix)
  for (const { text, c } of sorted) {
    if (ipam.allocated.has(text)) continue
    const parent = before.allocated.get(text)?.parent
    const known = parent !== undefined && (ipam.parents.has(parent) || ipam.allocated.has(parent))
    const res = acquireSpecific(ipam, known ? parent : undefined, c)
    if (res._tag === "Acquired") ipam = res.state
    else conflicts.push(`${text} overlaps ${res.with}`)
  }
  return { ipam, conflicts }
}

export const makeIpamStore = (initial: IpamState = emptyIpam): Effect.Effect<IpamStore> =>
  Effect.map(
    Ref.make<Held>({ ipam: initial, seq: 0, nextTicket: 1, pending: new Map(), restoring: 0 }),
    (ref): IpamStore => ({
      decide: (f, acquiredOf) =>
        Ref.modify(ref, (held) => {
          const result = f(held.ipam)
          const acquired = acquiredOf(result)
          const ticket: Ticket = { id: held.nextTicket, acquired }
          const pending = new Map(held.pending)
          if (acquired.length > 0) pending.set(ticket.id, { cidrs: acquired, settled: undefined })
          return [
            { result, ticket },
            { ...held, ipam: result.ipam, nextTicket: held.nextTicket + 1, pending },
          ] as const
        }),
      settle: (ticket, recorded) =>
        Ref.update(ref, (held) => {
          if (!held.pending.has(ticket.id)) return held
          const pending = new Map(held.pending)
          const seq = held.seq + 1
          // A refresh under way may have listed before these writes: it must still see them.
          if (recorded && held.restoring > 0) pending.set(ticket.id, { cidrs: ticket.acquired, settled: seq })
          else pending.delete(ticket.id)
          return {
            ...held,
            seq,
            pending,
            ipam: recorded ? held.ipam : releaseAll(held.ipam, ticket.acquired),
          }
        }),
      release: (cidrs) => Ref.update(ref, (held) => ({ ...held, ipam: releaseAll(held.ipam, cidrs) })),
      reconfigure: (config) =>
        Ref.update(ref, (held) => ({ ...held, ipam: reconfigure(held.ipam, parentCidrsOf(config)) })),
      beginRestore: Ref.modify(
        ref,
        (held) => [held.seq, { ...held, seq: held.seq + 1, restoring: held.restoring + 1 }] as const,
      ),
      completeRestore: (since, restored) =>
        Ref.modify(ref, (held) => {
          const keep = [...held.pending.values()].filter((p) => p.settled === undefined || p.settled > since)
          const merged = mergeInto(
            restored,
            held.ipam,
            keep.flatMap((p) => p.cidrs),
          )
          const restoring = Math.max(0, held.restoring - 1)
          // Settled allocations are in the merged state now; with no other refresh under way
          // only those still in flight need tracking.
          const pending = new Map(
            [...held.pending].filter(
              ([, p]) => p.settled === undefined || (restoring > 0 && p.settled > since),
            ),
          )
          return [merged.conflicts, { ...held, ipam: merged.ipam, pending, restoring }] as const
        }),
      abortRestore: Ref.update(ref, (held) => ({ ...held, restoring: Math.max(0, held.restoring - 1) })),
      current: Effect.map(Ref.get(ref), (h) => h.ipam),
      tracked: Effect.map(Ref.get(ref), (h) => h.pending.size),
      usage: Effect.map(Ref.get(ref), (h) => usage(h.ipam)),
    }),
  )
