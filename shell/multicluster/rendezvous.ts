/**
 * Rendezvous (highest random weight) hashing of provider clusters onto replicas, and the pure
 * decisions of the shard protocol (`sharding.ts` performs them over Leases).
 *
 * A cluster belongs to the live replica with the highest `weight(replica, cluster)`. Every replica
 * computes the same owner from the same member list, with no coordinator: when a replica leaves,
 * only its clusters move (each to its second choice); when one joins, only the clusters it now
 * wins move to it (in expectation 1/(n+1) of them), and nothing moves between the others.
 *
 * # The handoff (no cluster engaged by two replicas at once)
 * Each replica publishes, in its own Lease, the member list (its "view") it acts on: it
 * disengages the clusters it loses under a new view BEFORE publishing it, and engages a cluster
 * it gains only AFTER publishing, and only if a read made after publishing shows no live peer
 * whose published view gives that peer the cluster. Over a linearizable store (the API server)
 * two replicas cannot both pass that check for one cluster: each would have had to read the
 * other's Lease before the other published its claim, and after publishing its own. A replica
 * that cannot renew its Lease within the renew deadline (10 s) disengages everything, before
 * its peers consider it dead (lease duration 15 s), as with leader election.
 *
 * @module
 */
import { createHash } from "node:crypto"

/** The weight of `replica` for `cluster`: the first 48 bits of sha256(replica NUL cluster). */
export const weight = (replica: string, cluster: string): number =>
  Number.parseInt(
    createHash("sha256").update(replica).update("\u0000").update(cluster).digest("hex").slice(0, 12),
    16,
  )

/** The owner of `cluster` among `members` (highest weight; ties: the smaller id); undefined when none. */
export const ownerOf = (cluster: string, members: ReadonlyArray<string>): string | undefined => {
  let best: string | undefined
  let bestWeight = -1
  for (const m of members) {
    const w = weight(m, cluster)
    if (w > bestWeight || (w === bestWeight && best !== undefined && m < best)) {
      best = m
      bestWeight = w
    }
  }
  return best
}

/** Every cluster's owner (no entry when there is no member). */
export const assignment = (
  clusters: ReadonlyArray<string>,
  members: ReadonlyArray<string>,
): ReadonlyMap<string, string> => {
  const out = new Map<string, string>()
  for (const c of clusters) {
    const o = ownerOf(c, members)
    if (o !== undefined) out.set(c, o)
  }
  return out
}

/** A peer's Lease as the protocol reads it. */
export interface PeerLease {
  readonly identity: string
  /** Changes on every renewal (renewTime); the observer's clock judges expiry from it. */
  readonly record: string
  readonly leaseDurationMillis: number
  /** The member list the peer acts on; `undefined` when it has not published one. */
  readonly view: ReadonlyArray<string> | undefined
}

/** When this replica last saw each peer's record change. */
export type Observations = ReadonlyMap<string, { readonly record: string; readonly observedAt: number }>

/** Updates the observations with a fresh read (peers gone from the read are forgotten). */
export const observe = (
  before: Observations,
  leases: ReadonlyArray<PeerLease>,
  now: number,
): Observations => {
  const next = new Map<string, { readonly record: string; readonly observedAt: number }>()
  for (const l of leases) {
    const seen = before.get(l.identity)
    next.set(
      l.identity,
      seen !== undefined && seen.record === l.record ? seen : { record: l.record, observedAt: now },
    )
  }
  return next
}

/**
 * The live members: `self` (while it holds its own Lease) and every peer whose Lease changed within
 * its lease duration, as seen by this replica's clock (never comparing clocks across machines).
 */
export const liveMembers = (
  self: string,
  selfLive: boolean,
  leases: ReadonlyArray<PeerLease>,
  observations: Observations,
  now: number,
): ReadonlyArray<string> => {
  const live = new Set<string>(selfLive ? [self] : [])
  for (const l of leases) {
    if (l.identity === self) continue
    const seen = observations.get(l.identity)
    if (seen !== undefined && now - seen.observedAt < l.leaseDurationMillis) live.add(l.identity)
  }
  return [...live].sort()
}

/** Whether a live peer (not `self`) claims `cluster` under the view it published. */
export const claimedByPeer = (
  cluster: string,
  self: string,
  live: ReadonlyArray<string>,
  leases: ReadonlyArray<PeerLease>,
): boolean =>
  leases.some(
    (l) =>
      l.identity !== self &&
      live.includes(l.identity) &&
      l.view !== undefined &&
      ownerOf(cluster, l.view) === l.identity,
  )

/** What a replica does in one round, before publishing its view. */
export interface Plan {
  /** The view to publish: the live members. */
  readonly view: ReadonlyArray<string>
  /** Engaged clusters this replica does not own under the view: disengage them first. */
  readonly release: ReadonlyArray<string>
}

/** Step one of a round: the new view and what to release before publishing it. */
export const plan = (self: string, live: ReadonlyArray<string>, engaged: ReadonlyArray<string>): Plan => ({
  view: live,
  release: engaged.filter((c) => ownerOf(c, live) !== self),
})

/**
 * Step two, after publishing `view` and reading the Leases again: the available clusters this
 * replica owns under `view`, is not engaged with, and no live peer claims.
 */
export const acquirable = (
  self: string,
  view: ReadonlyArray<string>,
  available: ReadonlyArray<string>,
  engaged: ReadonlyArray<string>,
  live: ReadonlyArray<string>,
  leases: ReadonlyArray<PeerLease>,
): ReadonlyArray<string> =>
  available.filter(
    (c) => !engaged.includes(c) && ownerOf(c, view) === self && !claimedByPeer(c, self, live, leases),
  )
