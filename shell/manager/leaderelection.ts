/**
 * Leader election on a `coordination.k8s.io/v1` Lease, with controller-runtime's defaults
 * (LeaseDuration 15 s, RenewDeadline 10 s, RetryPeriod 2 s).
 *
 * Expected flow: every RetryPeriod a candidate reads the Lease and, by `decideLease`, creates
 * it, takes it over once it has expired, renews it while holding it, or waits. The holder that
 * cannot renew within RenewDeadline stops leading (the manager then exits, as controller-runtime
 * does, so no two leaders act at once). On shutdown the holder releases the Lease so that a
 * successor need not wait for it to expire.
 *
 * Guarantees: expiry is judged by the candidate's own clock from when it last saw the Lease
 * change (as client-go does), never by comparing clocks across machines; writes carry the
 * resourceVersion read, so two candidates cannot both take the Lease.
 *
 * @module
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import * as Ref from "effect/Ref"
import type { KubeClientShape } from "../kube/client.ts"
import { type KubeObject, Resources } from "../kube/resource.ts"

export interface LeaderElectionConfig {
  readonly namespace: string
  readonly name: string
  /** This candidate's identity (hostname plus a random suffix, by default). */
  readonly identity: string
  /** Default 15 s. */
  readonly leaseDuration: number
  /** Default 10 s. */
  readonly renewDeadline: number
  /** Default 2 s. */
  readonly retryPeriod: number
}

export const LeaderElectionDefaults = {
  leaseDuration: 15_000,
  renewDeadline: 10_000,
  retryPeriod: 2_000,
} as const

export interface LeaseSpec {
  readonly holderIdentity?: string | undefined
  readonly leaseDurationSeconds?: number | undefined
  readonly acquireTime?: string | undefined
  readonly renewTime?: string | undefined
  readonly leaseTransitions?: number | undefined
}

export type Lease = KubeObject & { readonly spec?: LeaseSpec }

/** What a candidate remembers between rounds: the last Lease it saw and when it changed. */
export interface Observation {
  readonly record: string
  readonly observedAt: number
}

export type LeaseDecision =
  | { readonly _tag: "Create"; readonly spec: LeaseSpec }
  | { readonly _tag: "Update"; readonly spec: LeaseSpec; readonly acquired: boolean }
  | { readonly _tag: "Wait"; readonly holder: string; readonly expiresAt: number }

const micro = (ms: number) => new Date(ms).toISOString().replace("Z", "000Z")

/** The pure step: what to do with the Lease as read (`undefined`: it does not exist). */
export const decideLease = (
  lease: Lease | undefined,
  observation: Observation | undefined,
  config: Pick<LeaderElectionConfig, "identity" | "leaseDuration">,
  now: number,
): LeaseDecision => {
  const seconds = Math.ceil(config.leaseDuration / 1000)
  if (lease === undefined) {
    return {
      _tag: "Create",
      spec: {
        holderIdentity: config.identity,
        leaseDurationSeconds: seconds,
        acquireTime: micro(now),
        renewTime: micro(now),
        leaseTransitions: 0,
      },
    }
  }
  const spec = lease.spec ?? {}
  const holder = spec.holderIdentity ?? ""
  const duration = (spec.leaseDurationSeconds ?? seconds) * 1000
  const record = JSON.stringify(spec)
  const observedAt = observation?.record === record ? observation.observedAt : now
  const expiresAt = observedAt + duration
  if (holder !== "" && holder !== config.identity && expiresAt > now)
    return { _tag: "Wait", holder, expiresAt }
  const acquired = holder !== config.identity
  return {
    _tag: "Update",
    acquired,
    spec: {
      holderIdentity: config.identity,
      leaseDurationSeconds: seconds,
      acquireTime: acquired ? micro(now) : spec.acquireTime,
      renewTime: micro(now),
      leaseTransitions: (spec.leaseTransitions ?? 0) + (acquired && holder !== "" ? 1 : 0),
    },
  }
}

export const leaderStatus = Metric.gauge("leader_election_master_status", {
  description: "Whether this candidate is the leader (1) or not (0).",
})

/**
 * Runs the election: returns once this candidate leads. `whileLeading` then keeps renewing and
 * fails with "leadership lost" when a renewal did not succeed within the renew deadline.
 */
export const makeLeaderElector = (client: KubeClientShape, config: LeaderElectionConfig) =>
  Effect.gen(function* () {
    const observation = yield* Ref.make<Observation | undefined>(undefined)
    const key = { namespace: config.namespace, name: config.name }
    const labels = { name: config.name }

    /** One round: true when we hold the Lease afterwards. */
    const tryAcquireOrRenew = Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      const current = yield* client.get<Lease>(Resources.leases, key).pipe(
        Effect.map((l): Lease | undefined => l),
        Effect.catchTag("NotFound", () => Effect.succeed(undefined)),
      )
      const seen = yield* Ref.get(observation)
      const decision = decideLease(current, seen, config, now)
      if (current !== undefined) {
        const record = JSON.stringify(current.spec ?? {})
        if (seen?.record !== record) yield* Ref.set(observation, { record, observedAt: now })
      }
      switch (decision._tag) {
        case "Wait":
          return false
        case "Create":
          yield* client.create(Resources.leases, {
            apiVersion: "coordination.k8s.io/v1",
            kind: "Lease",
            metadata: { namespace: config.namespace, name: config.name },
            spec: decision.spec,
          })
          break
        case "Update":
          yield* client.update(Resources.leases, { ...(current as Lease), spec: decision.spec })
          if (decision.acquired) {
            yield* Effect.logInfo("acquired the leader election lease").pipe(
              Effect.annotateLogs({ lease: `${config.namespace}/${config.name}`, identity: config.identity }),
            )
          }
          break
      }
      yield* Ref.set(observation, { record: JSON.stringify(decision.spec), observedAt: now })
      return true
    }).pipe(Effect.catch(() => Effect.succeed(false)))

    const acquire = Effect.gen(function* () {
      for (;;) {
        if (yield* tryAcquireOrRenew) {
          yield* Metric.update(leaderStatus.pipe(Metric.withAttributes(labels)), 1)
          return
        }
        yield* Effect.sleep(config.retryPeriod)
      }
    })

    const renewLoop = Effect.gen(function* () {
      let lastRenew = yield* Clock.currentTimeMillis
      for (;;) {
        yield* Effect.sleep(config.retryPeriod)
        const ok = yield* tryAcquireOrRenew.pipe(Effect.timeoutOption(config.renewDeadline))
        const now = yield* Clock.currentTimeMillis
        if (ok._tag === "Some" && ok.value) lastRenew = now
        else if (now - lastRenew >= config.renewDeadline) {
          yield* Metric.update(leaderStatus.pipe(Metric.withAttributes(labels)), 0)
          return yield* Effect.fail(
            new Error(`leadership lost: the lease was not renewed within ${config.renewDeadline} ms`),
          )
        }
      }
    })

    /** Gives the Lease up (on shutdown), so a successor can take it at once. */
    const release = Effect.gen(function* () {
      const current = yield* client.get<Lease>(Resources.leases, key)
      if (current.spec?.holderIdentity !== config.identity) return
      const now = yield* Clock.currentTimeMillis
      yield* client.update(Resources.leases, {
        ...current,
        spec: { ...current.spec, holderIdentity: "", leaseDurationSeconds: 1, renewTime: micro(now) },
      })
      yield* Metric.update(leaderStatus.pipe(Metric.withAttributes(labels)), 0)
    }).pipe(Effect.ignore)

    return { acquire, renewLoop, release, tryAcquireOrRenew }
  })
