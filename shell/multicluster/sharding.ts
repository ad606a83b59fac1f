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
import { type KubeObject, Resources } from "../kube/resource.ts"
import { acquirable, liveMembers, type Observations, observe, type PeerLease, plan } from "./rendezvous.ts"
import type { Aware, Cluster, ClusterName, EngageFailed } from "./types.ts"

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

/** The label every Lease of a shard group carries (its value: the prefix). */
export const SHARD_GROUP_LABEL = "krtt.io/shard-group"
/** The annotation holding a replica's published view (a JSON array of identities). */
export const SHARD_VIEW_ANNOTATION = "krtt.io/shard-view"

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

/** A DNS-label-safe form of an identity. */
const dnsSafe = (s: string): string =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 200) || "replica"

type Lease = KubeObject & {
  readonly spec?: {
    readonly holderIdentity?: string | undefined
    readonly leaseDurationSeconds?: number | undefined
    readonly renewTime?: string | undefined
  }
}

const micro = (ms: number) => new Date(ms).toISOString().replace("Z", "000Z")

interface Available {
  readonly cluster: Cluster
  readonly scope: Scope.Scope
}

/** Makes the gate in front of `aware`; its rounds run until the scope closes. */
export const makeShardGate = (
  hub: KubeClientShape,
  options: ShardOptions,
): ((aware: Aware) => Effect.Effect<ShardGate, never, Scope.Scope>) => {
  const prefix = options.leasePrefix ?? ShardDefaults.leasePrefix
  const leaseDuration = options.leaseDuration ?? ShardDefaults.leaseDuration
  const renewDeadline = options.renewDeadline ?? ShardDefaults.renewDeadline
  const retryPeriod = options.retryPeriod ?? ShardDefaults.retryPeriod
  const identity = dnsSafe(options.identity ?? `${hostname()}-${randomUUID().slice(0, 8)}`)
  const leaseName = `${dnsSafe(prefix)}-${identity}`
  const key = { namespace: options.namespace, name: leaseName }
  return (aware) =>
    Effect.gen(function* () {
      const available = new Map<ClusterName, Available>()
      const engaged = new Map<ClusterName, { readonly cluster: Cluster; readonly scope: Scope.Closeable }>()
      let observations: Observations = new Map()
      let members: ReadonlyArray<string> = []
      let lastRenew: number | undefined
      /** The view last published (what we act on). */
      let view: ReadonlyArray<string> = [identity]
      const log = (message: string, extra: object = {}) =>
        Effect.logInfo(message).pipe(Effect.annotateLogs({ shard: identity, ...extra }))

      const release = (name: ClusterName) =>
        Effect.suspend(() => {
          const e = engaged.get(name)
          if (e === undefined) return Effect.void
          engaged.delete(name)
          return Effect.andThen(Scope.close(e.scope, Exit.void), log("released cluster", { cluster: name }))
        })

      const take = (a: Available) =>
        Effect.gen(function* () {
          const scope = yield* Scope.fork(a.scope)
          engaged.set(a.cluster.name, { cluster: a.cluster, scope })
          yield* log("took cluster", { cluster: a.cluster.name })
          yield* aware
            .engage(a.cluster, scope)
            .pipe(
              Effect.catch((e) =>
                Effect.andThen(
                  Effect.logWarning("engaging failed").pipe(
                    Effect.annotateLogs({ cluster: a.cluster.name, error: e.message }),
                  ),
                  release(a.cluster.name),
                ),
              ),
            )
        })

      const readLeases = Effect.gen(function* () {
        const list = yield* hub.list<Lease>(Resources.leases, {
          namespace: options.namespace,
          labelSelector: `${SHARD_GROUP_LABEL}=${dnsSafe(prefix)}`,
        })
        const now = yield* Clock.currentTimeMillis
        const leases: Array<PeerLease> = list.items.flatMap((l): Array<PeerLease> => {
          const who = l.spec?.holderIdentity
          if (who === undefined || who === "") return []
          let view: ReadonlyArray<string> | undefined
          try {
            const raw = l.metadata.annotations?.[SHARD_VIEW_ANNOTATION]
            const parsed: unknown = raw === undefined ? undefined : JSON.parse(raw)
            view = Array.isArray(parsed) && parsed.every((x) => typeof x === "string") ? parsed : undefined
          } catch {
            view = undefined
          }
          return [
            {
              identity: who,
              record: JSON.stringify(l.spec ?? {}),
              leaseDurationMillis: (l.spec?.leaseDurationSeconds ?? leaseDuration / 1000) * 1000,
              view,
            },
          ]
        })
        observations = observe(observations, leases, now)
        const selfLive = lastRenew !== undefined && now - lastRenew < renewDeadline
        return { leases, live: liveMembers(identity, selfLive, leases, observations, now) }
      })

      /** Creates or renews our Lease with `view`. */
      const publish = (next: ReadonlyArray<string>) =>
        Effect.gen(function* () {
          const now = yield* Clock.currentTimeMillis
          const body = {
            metadata: {
              namespace: options.namespace,
              name: leaseName,
              labels: { [SHARD_GROUP_LABEL]: dnsSafe(prefix) },
              annotations: { [SHARD_VIEW_ANNOTATION]: JSON.stringify(next) },
            },
            spec: {
              holderIdentity: identity,
              leaseDurationSeconds: Math.ceil(leaseDuration / 1000),
              renewTime: micro(now),
            },
          }
          const current = yield* hub
            .get<Lease>(Resources.leases, key)
            .pipe(Effect.catchTag("NotFound", () => Effect.succeed(undefined)))
          if (current === undefined)
            yield* hub.create(Resources.leases, {
              apiVersion: "coordination.k8s.io/v1",
              kind: "Lease",
              ...body,
              spec: { ...body.spec, acquireTime: micro(now) },
            })
          else
            yield* hub.update(Resources.leases, {
              ...current,
              metadata: {
                ...current.metadata,
                labels: body.metadata.labels,
                annotations: body.metadata.annotations,
              },
              spec: { ...current.spec, ...body.spec },
            })
          lastRenew = now
        })

      /** Past the renew deadline: hold nothing (peers take over once our Lease expires). */
      const checkDeadline = Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        if (engaged.size === 0 || (lastRenew !== undefined && now - lastRenew < renewDeadline)) return
        yield* Effect.logWarning(
          "cannot renew the shard lease within the renew deadline; releasing every cluster",
        ).pipe(Effect.annotateLogs({ shard: identity, renewDeadlineMs: renewDeadline }))
        yield* Effect.forEach([...engaged.keys()], release, { discard: true })
      })

      const round = Effect.gen(function* () {
        const first = yield* Effect.result(readLeases)
        if (first._tag === "Failure") {
          // Keep our Lease (and our current view) alive if we can; never widen the view blind.
          if (lastRenew !== undefined) yield* Effect.ignore(publish(view))
          return yield* checkDeadline
        }
        const p = plan(identity, [...new Set([...first.success.live, identity])].sort(), [...engaged.keys()])
        yield* Effect.forEach(p.release as ReadonlyArray<ClusterName>, release, { discard: true })
        const published = yield* Effect.result(publish(p.view))
        if (published._tag === "Failure") {
          yield* Effect.logWarning("renewing the shard lease failed").pipe(
            Effect.annotateLogs({ shard: identity, error: published.failure.message }),
          )
          return yield* checkDeadline
        }
        view = p.view
        const second = yield* Effect.result(readLeases)
        if (second._tag === "Failure") return
        members = second.success.live
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
            return a === undefined ? Effect.void : take(a)
          },
          { discard: true },
        )
      })

      yield* Effect.forkScoped(
        Effect.forever(Effect.andThen(round, Effect.sleep(retryPeriod))).pipe(
          Effect.annotateLogs({ shard: identity }),
        ),
      )
      yield* Effect.addFinalizer(() =>
        Effect.gen(function* () {
          yield* Effect.forEach([...engaged.keys()], release, { discard: true })
          // Leave at once, so that peers need not wait for the Lease to expire.
          yield* hub.delete(Resources.leases, key).pipe(Effect.ignore)
        }),
      )
      yield* log("shard gate started", { lease: `${options.namespace}/${leaseName}` })

      const gate: ShardGate = {
        engage: (cluster: Cluster, scope: Scope.Scope): Effect.Effect<void, EngageFailed> =>
          Effect.gen(function* () {
            const record: Available = { cluster, scope }
            available.set(cluster.name, record)
            yield* Scope.addFinalizer(
              scope,
              Effect.suspend(() => {
                if (available.get(cluster.name) !== record) return Effect.void
                available.delete(cluster.name)
                const e = engaged.get(cluster.name)
                if (e !== undefined && e.cluster === cluster) engaged.delete(cluster.name)
                return Effect.void
              }),
            )
            // A replaced cluster (new credentials) that we hold moves to the new one at once.
            const held = engaged.get(cluster.name)
            if (held !== undefined && held.cluster !== cluster) {
              yield* release(cluster.name)
              yield* take(record)
            }
          }),
        disengage: (cluster) =>
          Effect.gen(function* () {
            const e = engaged.get(cluster.name)
            if (e !== undefined && e.cluster === cluster) {
              yield* release(cluster.name)
              yield* aware.disengage(cluster)
            }
          }),
        status: Effect.sync(() => ({
          identity,
          members,
          available: [...available.keys()].sort(),
          engaged: [...engaged.keys()].sort(),
        })),
      }
      return gate
    })
}
