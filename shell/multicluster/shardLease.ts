/**
 * The Leases of a shard group on the hub: each replica's `coordination.k8s.io/v1` Lease
 * `<prefix>-<identity>`, labelled `krtt.io/shard-group: <prefix>` and annotated with the member
 * list the replica acts on (its view). `sharding.ts` reads the group's Leases and publishes its
 * own every round.
 *
 * # Guarantees
 * - A Lease without a holder is no peer; a view that is not a JSON array of strings is read as
 *   no view (the peer has not published one).
 * - `publishLease` creates the Lease (with `acquireTime`) or renews it, keeping the fields it
 *   does not own.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import type { KubeClientShape } from "../kube/client.ts"
import type { KubeError } from "../kube/errors.ts"
import { type KubeObject, Resources } from "../kube/resource.ts"
import type { PeerLease } from "./rendezvous.ts"

/** The label every Lease of a shard group carries (its value: the prefix). */
export const SHARD_GROUP_LABEL = "krtt.io/shard-group"
/** The annotation holding a replica's published view (a JSON array of identities). */
export const SHARD_VIEW_ANNOTATION = "krtt.io/shard-view"

/** A DNS-label-safe form of an identity. */
export const dnsSafe = (s: string): string =>
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

/** One replica's Lease: where it lives, whose it is, and its duration. */
export interface LeaseSpec {
  readonly hub: KubeClientShape
  readonly namespace: string
  /** The group's label value (the DNS-safe prefix). */
  readonly group: string
  readonly identity: string
  readonly name: string
  readonly leaseDuration: number
}

/** The published view of a Lease, when it is a JSON array of strings. */
const viewOf = (l: Lease): ReadonlyArray<string> | undefined => {
  const raw = l.metadata.annotations?.[SHARD_VIEW_ANNOTATION]
  if (raw === undefined) return undefined
  try {
    const parsed: unknown = JSON.parse(raw)
    return Array.isArray(parsed) && parsed.every((x) => typeof x === "string") ? parsed : undefined
  } catch {
    return undefined
  }
}

/** The group's Leases as peers (those with a holder). */
export const readPeerLeases = (spec: LeaseSpec): Effect.Effect<ReadonlyArray<PeerLease>, KubeError> =>
  Effect.map(
    spec.hub.list<Lease>(Resources.leases, {
      namespace: spec.namespace,
      labelSelector: `${SHARD_GROUP_LABEL}=${spec.group}`,
    }),
    (list) =>
      list.items.flatMap((l): Array<PeerLease> => {
        const who = l.spec?.holderIdentity
        if (who === undefined || who === "") return []
        return [
          {
            identity: who,
            record: JSON.stringify(l.spec ?? {}),
            leaseDurationMillis: (l.spec?.leaseDurationSeconds ?? spec.leaseDuration / 1000) * 1000,
            view: viewOf(l),
          },
        ]
      }),
  )

/** Creates or renews the replica's Lease with `view`, renewed at `now`. */
export const publishLease = (
  spec: LeaseSpec,
  view: ReadonlyArray<string>,
  now: number,
): Effect.Effect<void, KubeError> =>
  Effect.gen(function* () {
    const labels = { [SHARD_GROUP_LABEL]: spec.group }
    const annotations = { [SHARD_VIEW_ANNOTATION]: JSON.stringify(view) }
    const renewed = {
      holderIdentity: spec.identity,
      leaseDurationSeconds: Math.ceil(spec.leaseDuration / 1000),
      renewTime: micro(now),
    }
    const current = yield* spec.hub
      .get<Lease>(Resources.leases, { namespace: spec.namespace, name: spec.name })
      .pipe(Effect.catchTag("NotFound", () => Effect.succeed(undefined)))
    if (current === undefined)
      yield* spec.hub.create(Resources.leases, {
        apiVersion: "coordination.k8s.io/v1",
        kind: "Lease",
        metadata: { namespace: spec.namespace, name: spec.name, labels, annotations },
        spec: { ...renewed, acquireTime: micro(now) },
      })
    else
      yield* spec.hub.update(Resources.leases, {
        ...current,
        metadata: { ...current.metadata, labels, annotations },
        spec: { ...current.spec, ...renewed },
      })
  })

/** Deletes the replica's Lease (a graceful leave); failures are ignored. */
export const deleteLease = (spec: LeaseSpec): Effect.Effect<void> =>
  spec.hub.delete(Resources.leases, { namespace: spec.namespace, name: spec.name }).pipe(Effect.ignore)
