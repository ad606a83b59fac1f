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
import * as Data from "effect/Data"
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

/** The holder could not renew the Lease within the renew deadline; the manager must stop. */
export class LeadershipLostError extends Data.TaggedError("LeadershipLostError")<{
  readonly message: string
}> {}

/** One candidate: its client, its configuration and what it saw of the Lease last. */
interface Candidate {
  readonly client: KubeClientShape
  readonly config: LeaderElectionConfig
  readonly observation: Ref.Ref<Observation | undefined>
  readonly key: { readonly namespace: string; readonly name: string }
}

const setLeaderStatus = (c: Candidate, value: 0 | 1) =>
  Metric.update(leaderStatus.pipe(Metric.withAttributes({ name: c.config.name })), value)

/** Writes the Lease as `decideLease` decided to take or renew it. */
const write = (
  c: Candidate,
  current: Lease | undefined,
  decision: Exclude<LeaseDecision, { readonly _tag: "Wait" }>,
) =>
  Effect.gen(function* () {
    const { client, config } = c
    switch (decision._tag) {
      case "Create":
        yield* client.create(Resources.leases, {
          apiVersion: "coordination.k8s.io/v1",
          kind: "Lease",
          metadata: { namespace: config.namespace, name: config.name },
          spec: decision.spec,
        })
        return
      case "Update":
        yield* client.update(Resources.leases, { ...(current as Lease), spec: decision.spec })
        if (decision.acquired) {
          yield* Effect.logInfo("acquired the leader election lease").pipe(
            Effect.annotateLogs({ lease: `${config.namespace}/${config.name}`, identity: config.identity }),
          )
        }
        return
    }
  })

/** One round: true when we hold the Lease afterwards (any failure answers false). */
const tryAcquireOrRenew = (c: Candidate): Effect.Effect<boolean> =>
  Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    const current = yield* c.client.get<Lease>(Resources.leases, c.key).pipe(
      Effect.map((l): Lease | undefined => l),
      Effect.catchTag("NotFound", () => Effect.succeed(undefined)),
    )
    const seen = yield* Ref.get(c.observation)
    const decision = decideLease(current, seen, c.config, now)
    if (current !== undefined) {
      const record = JSON.stringify(current.spec ?? {})
      if (seen?.record !== record) yield* Ref.set(c.observation, { record, observedAt: now })
    }
    if (decision._tag === "Wait") return false
    yield* write(c, current, decision)
    yield* Ref.set(c.observation, { record: JSON.stringify(decision.spec), observedAt: now })
    return true
  }).pipe(Effect.catch(() => Effect.succeed(false)))

/** Tries every RetryPeriod until the candidate holds the Lease. */
const acquire = (c: Candidate, round: Effect.Effect<boolean>): Effect.Effect<void> =>
  Effect.gen(function* () {
    for (;;) {
      if (yield* round) {
        yield* setLeaderStatus(c, 1)
        return
      }
      yield* Effect.sleep(c.config.retryPeriod)
    }
  })

/** Renews every RetryPeriod; fails once no renewal succeeded within the renew deadline. */
const renewLoop = (c: Candidate, round: Effect.Effect<boolean>): Effect.Effect<never, LeadershipLostError> =>
  Effect.gen(function* () {
    const { config } = c
    let lastRenew = yield* Clock.currentTimeMillis
    for (;;) {
      yield* Effect.sleep(config.retryPeriod)
      const ok = yield* round.pipe(Effect.timeoutOption(config.renewDeadline))
      const now = yield* Clock.currentTimeMillis
      if (ok._tag === "Some" && ok.value) lastRenew = now
      else if (now - lastRenew >= config.renewDeadline) {
        yield* setLeaderStatus(c, 0)
        return yield* new LeadershipLostError({
          message: `leadership lost: the lease was not renewed within ${config.renewDeadline} ms`,
        })
      }
    }
  })

/** Gives the Lease up (on shutdown), so a successor can take it at once. */
const release = (c: Candidate): Effect.Effect<void> =>
  Effect.gen(function* () {
    const current = yield* c.client.get<Lease>(Resources.leases, c.key)
    if (current.spec?.holderIdentity !== c.config.identity) return
    const now = yield* Clock.currentTimeMillis
    yield* c.client.update(Resources.leases, {
      ...current,
      spec: { ...current.spec, holderIdentity: "", leaseDurationSeconds: 1, renewTime: micro(now) },
    })
    yield* setLeaderStatus(c, 0)
  }).pipe(Effect.ignore)

/**
 * A candidate of the election: `acquire` returns once it leads; `renewLoop` then keeps renewing
 * and fails with `LeadershipLostError` ("leadership lost") when no renewal succeeded within the
 * renew deadline; `release` gives the Lease up.
 */
export const makeLeaderElector = (client: KubeClientShape, config: LeaderElectionConfig) =>
  Effect.gen(function* () {
    const c: Candidate = {
      client,
      config,
      observation: yield* Ref.make<Observation | undefined>(undefined),
      key: { namespace: config.namespace, name: config.name },
    }
    const round = tryAcquireOrRenew(c)
    return {
      acquire: acquire(c, round),
      renewLoop: renewLoop(c, round),
      release: release(c),
      tryAcquireOrRenew: round,
    }
  })
