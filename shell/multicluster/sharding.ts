/**
 * Sharding provider clusters across replicas of one manager: each replica holds its own
 * `coordination.k8s.io/v1` Lease (`<prefix>-<identity>`, labelled `krtt.io/shard-group: <prefix>`)
 * and engages only the clusters that rendezvous hashing gives it among the live replicas
 * (`rendezvous.ts`). The gate sits between the provider and the manager: the provider engages
 * every cluster with the gate, the gate engages the manager with its share.
 *
 * # Expected flow
 * Every retry period (2 s): list the group's Leases and judge who is live (a Lease that changed
 * within its duration, 15 s, by this replica's clock); disengage the clusters no longer ours;
 * renew our Lease with the member list we now act on (our view); list again and engage the
 * clusters that are ours and that no live peer claims under its published view. On a graceful
 * stop the replica deletes its Lease, so its clusters move at the peers' next round.
 *
 * # Guarantees
 * - No cluster is engaged by two replicas at once (the handoff in `rendezvous.ts`), provided the
 *   renew deadline (10 s) is shorter than the lease duration (15 s): a replica that cannot renew
 *   for the renew deadline disengages everything before its peers consider it dead.
 * - When a replica dies, its clusters are engaged elsewhere within one lease duration of its last
 *   renewal plus two retry periods; when one joins, only its share moves.
 * - Every number is in `ShardDefaults` (controller-runtime's leader election numbers).
 *
 * @module
 */
import { randomUUID } from "node:crypto"
import { hostname } from "node:os"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import type { KubeClientShape } from "../kube/client.ts"
import { acquirable, liveMembers, type Observations, observe, plan } from "./rendezvous.ts"
import { deleteLease, dnsSafe, type LeaseSpec, publishLease, readPeerLeases } from "./shardLease.ts"
import type { Aware, Cluster, ClusterName, EngageFailedError } from "./types.ts"

/** The sharding numbers (controller-runtime's leader election defaults). */
export const ShardDefaults = {
  leasePrefix: "krtt-shard",
  /** A replica whose Lease did not change for this long is dead. Default 15 s. */
  leaseDuration: 15_000,
  /** A replica that could not renew for this long disengages everything. Default 10 s. */
  renewDeadline: 10_000,
  /** Time between rounds. Default 2 s. */
  retryPeriod: 2_000,
} as const

/** Options of a shard gate. */
export interface ShardOptions {
  /** Namespace of the Leases on the hub. */
  readonly namespace: string
  /** Names the group: Leases `<prefix>-<identity>`. Default `krtt-shard`. */
  readonly leasePrefix?: string | undefined
  /** This replica's identity. Default: hostname plus a random suffix. */
  readonly identity?: string | undefined
  readonly leaseDuration?: number | undefined
  readonly renewDeadline?: number | undefined
  readonly retryPeriod?: number | undefined
}

/** A gate's view of itself, for logs, `krtt clusters` and tests. */
export interface ShardStatus {
  readonly identity: string
  readonly members: ReadonlyArray<string>
  /** Clusters the provider has. */
  readonly available: ReadonlyArray<string>
  /** Clusters this replica has engaged the manager with. */
  readonly engaged: ReadonlyArray<string>
}

/** The Aware the provider calls, with its status. */
export interface ShardGate extends Aware {
  readonly status: Effect.Effect<ShardStatus>
}

interface Available {
  readonly cluster: Cluster
  readonly scope: Scope.Scope
}

/** What one gate's rounds and calls share. */
interface GateState {
  readonly lease: LeaseSpec
  readonly aware: Aware
  readonly renewDeadline: number
  /** Clusters the provider has engaged the gate with. */
  readonly available: Map<ClusterName, Available>
  /** Clusters this replica has engaged the manager with, each in a child of its provider scope. */
  readonly engaged: Map<ClusterName, { readonly cluster: Cluster; readonly scope: Scope.Closeable }>
  observations: Observations
  members: ReadonlyArray<string>
  lastRenew: number | undefined
  /** The view last published (what we act on). */
  view: ReadonlyArray<string>
}

const log = (state: GateState, message: string, extra: object = {}) =>
  Effect.logInfo(message).pipe(Effect.annotateLogs({ shard: state.lease.identity, ...extra }))

/** Disengages the manager from a cluster we hold. */
const release = (state: GateState, name: ClusterName): Effect.Effect<void> =>
  Effect.suspend(() => {
    const e = state.engaged.get(name)
    if (e === undefined) return Effect.void
    state.engaged.delete(name)
    return Effect.andThen(Scope.close(e.scope, Exit.void), log(state, "released cluster", { cluster: name }))
  })

/** Engages the manager with an available cluster; a failure is logged and releases it. */
const take = (state: GateState, a: Available): Effect.Effect<void> =>
  Effect.gen(function* () {
    const scope = yield* Scope.fork(a.scope)
    state.engaged.set(a.cluster.name, { cluster: a.cluster, scope })
    yield* log(state, "took cluster", { cluster: a.cluster.name })
    yield* state.aware
      .engage(a.cluster, scope)
      .pipe(
        Effect.catch((e) =>
          Effect.andThen(
            Effect.logWarning("engaging failed").pipe(
              Effect.annotateLogs({ cluster: a.cluster.name, error: e.message }),
            ),
            release(state, a.cluster.name),
          ),
        ),
      )
  })

/** Reads the group's Leases, updates the observations, and judges who is live. */
const readLeases = (state: GateState) =>
  Effect.gen(function* () {
    const leases = yield* readPeerLeases(state.lease)
    const now = yield* Clock.currentTimeMillis
    state.observations = observe(state.observations, leases, now)
    const selfLive = state.lastRenew !== undefined && now - state.lastRenew < state.renewDeadline
    return { leases, live: liveMembers(state.lease.identity, selfLive, leases, state.observations, now) }
  })

/** Creates or renews our Lease with `view`. */
const publish = (state: GateState, view: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    yield* publishLease(state.lease, view, now)
    state.lastRenew = now
  })

/** Past the renew deadline: hold nothing (peers take over once our Lease expires). */
const checkDeadline = (state: GateState) =>
  Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    if (
      state.engaged.size === 0 ||
      (state.lastRenew !== undefined && now - state.lastRenew < state.renewDeadline)
    )
      return
    yield* Effect.logWarning(
      "cannot renew the shard lease within the renew deadline; releasing every cluster",
    ).pipe(Effect.annotateLogs({ shard: state.lease.identity, renewDeadlineMs: state.renewDeadline }))
    yield* Effect.forEach([...state.engaged.keys()], (name) => release(state, name), { discard: true })
  })

/** One round: release what is no longer ours, renew with our view, take what is ours and unclaimed. */
const round = (state: GateState) =>
  Effect.gen(function* () {
    const identity = state.lease.identity
    const first = yield* Effect.result(readLeases(state))
    if (first._tag === "Failure") {
      // Keep our Lease (and our current view) alive if we can; never widen the view blind.
      if (state.lastRenew !== undefined) yield* Effect.ignore(publish(state, state.view))
      return yield* checkDeadline(state)
    }
    const p = plan(identity, [...new Set([...first.success.live, identity])].sort(), [
      ...state.engaged.keys(),
    ])
    yield* Effect.forEach(p.release as ReadonlyArray<ClusterName>, (name) => release(state, name), {
      discard: true,
    })
    const published = yield* Effect.result(publish(state, p.view))
    if (published._tag === "Failure") {
      yield* Effect.logWarning("renewing the shard lease failed").pipe(
        Effect.annotateLogs({ shard: identity, error: published.failure.message }),
      )
      return yield* checkDeadline(state)
    }
    state.view = p.view
    const second = yield* Effect.result(readLeases(state))
    if (second._tag === "Failure") return
    state.members = second.success.live
    const { available, engaged } = state
    const gain = acquirable(
      identity,
      p.view,
      [...available.keys()],
      [...engaged.keys()],
      second.success.live,
      second.success.leases,
    )
    yield* Effect.forEach(
      gain,
      (name) => {
        const a = available.get(name as ClusterName)
        return a === undefined ? Effect.void : take(state, a)
      },
      { discard: true },
    )
  })

/** The provider engages the gate: the cluster is available; a held cluster replaced moves at once. */
const engage =
  (state: GateState) =>
  (cluster: Cluster, scope: Scope.Scope): Effect.Effect<void, EngageFailedError> =>
    Effect.gen(function* () {
      const record: Available = { cluster, scope }
      state.available.set(cluster.name, record)
      yield* Scope.addFinalizer(
        scope,
        Effect.sync(() => {
          if (state.available.get(cluster.name) !== record) return
          state.available.delete(cluster.name)
          const e = state.engaged.get(cluster.name)
          if (e !== undefined && e.cluster === cluster) state.engaged.delete(cluster.name)
        }),
      )
      // A replaced cluster (new credentials) that we hold moves to the new one at once.
      const held = state.engaged.get(cluster.name)
      if (held !== undefined && held.cluster !== cluster) {
        yield* release(state, cluster.name)
        yield* take(state, record)
      }
    })

/** The provider disengages a cluster: released and disengaged from the manager if we hold it. */
const disengage =
  (state: GateState) =>
  (cluster: Cluster): Effect.Effect<void> =>
    Effect.gen(function* () {
      const e = state.engaged.get(cluster.name)
      if (e !== undefined && e.cluster === cluster) {
        yield* release(state, cluster.name)
        yield* state.aware.disengage(cluster)
      }
    })

/** Makes the gate in front of `aware`; its rounds run until the scope closes. */
export const makeShardGate = (
  hub: KubeClientShape,
  options: ShardOptions,
): ((aware: Aware) => Effect.Effect<ShardGate, never, Scope.Scope>) => {
  const prefix = options.leasePrefix ?? ShardDefaults.leasePrefix
  const retryPeriod = options.retryPeriod ?? ShardDefaults.retryPeriod
  const identity = dnsSafe(options.identity ?? `${hostname()}-${randomUUID().slice(0, 8)}`)
  const lease: LeaseSpec = {
    hub,
    namespace: options.namespace,
    group: dnsSafe(prefix),
    identity,
    name: `${dnsSafe(prefix)}-${identity}`,
    leaseDuration: options.leaseDuration ?? ShardDefaults.leaseDuration,
  }
  return (aware) =>
    Effect.gen(function* () {
      const state: GateState = {
        lease,
        aware,
        renewDeadline: options.renewDeadline ?? ShardDefaults.renewDeadline,
        available: new Map(),
        engaged: new Map(),
        observations: new Map(),
        members: [],
        lastRenew: undefined,
        view: [identity],
      }
      yield* Effect.forkScoped(
        Effect.forever(Effect.andThen(round(state), Effect.sleep(retryPeriod))).pipe(
          Effect.annotateLogs({ shard: identity }),
        ),
      )
      yield* Effect.addFinalizer(() =>
        Effect.gen(function* () {
          yield* Effect.forEach([...state.engaged.keys()], (name) => release(state, name), { discard: true })
          // Leave at once, so that peers need not wait for the Lease to expire.
          yield* deleteLease(lease)
        }),
      )
      yield* log(state, "shard gate started", { lease: `${options.namespace}/${lease.name}` })
      return {
        engage: engage(state),
        disengage: disengage(state),
        status: Effect.sync(() => ({
          identity,
          members: state.members,
          available: [...state.available.keys()].sort(),
          engaged: [...state.engaged.keys()].sort(),
        })),
      }
    })
}
