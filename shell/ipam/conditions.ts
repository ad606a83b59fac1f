/**
 * The conditions the IPAM controller writes: `Valid` on the IPAMConfig (with the generation it
 * observed) and `CIDRsAllocated` on each reconciled Cluster.
 *
 * # Guarantees
 * - A condition's transition time moves only when its status changes; a write that would change
 *   nothing is not made.
 * - A Cluster's condition is written on the version the reconcile last wrote or read, so that a
 *   condition another writer set meanwhile is never dropped (a Conflict fails the reconcile).
 *
 * @module
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import type * as Schedule from "effect/Schedule"
import { CIDRS_ALLOCATED_CONDITION, type IpamCondition } from "../../core/ipam/index.ts"
import type { KubeClientShape } from "../kube/client.ts"
import type { KubeError } from "../kube/errors.ts"
import { mergePatch } from "../kube/patch.ts"
import type { KubeObject } from "../kube/resource.ts"
import { IpamConfigResource, OpenmcpClusterResource } from "./resources.ts"

interface Condition {
  readonly type: string
  readonly status: string
  readonly reason: string
  readonly message: string
  readonly lastTransitionTime?: string | undefined
  readonly observedGeneration?: number | undefined
}

/** The conditions with `c` set; the transition time moves only when the status changes. */
const withCondition = (
  existing: ReadonlyArray<Condition>,
  c: IpamCondition,
  now: string,
  generation: number | undefined,
): ReadonlyArray<Condition> => {
  const before = existing.find((x) => x.type === c.type)
  const next: Condition = {
    ...c,
    lastTransitionTime: before !== undefined && before.status === c.status ? before.lastTransitionTime : now,
    ...(generation === undefined ? {} : { observedGeneration: generation }),
  }
  return [...existing.filter((x) => x.type !== c.type), next]
}

const conditionsOf = (o: KubeObject): ReadonlyArray<Condition> =>
  ((o.status as { conditions?: ReadonlyArray<Condition> } | undefined)?.conditions ??
    []) as ReadonlyArray<Condition>

/**
 * Writes the condition `c` of the IPAMConfig `object` and the generation it observed, unless
 * both are there already; a refusal is tried again (`retry`), then logged and left.
 */
export const writeConfigStatus = (
  client: KubeClientShape,
  object: KubeObject,
  c: IpamCondition,
  now: string,
  retry: Schedule.Schedule<unknown, KubeError>,
): Effect.Effect<void> => {
  const before = conditionsOf(object).find((x) => x.type === c.type)
  const generation = object.metadata.generation
  const observed = (object.status as { observedGeneration?: number } | undefined)?.observedGeneration
  if (before?.status === c.status && before.message === c.message && observed === generation)
    return Effect.void
  return client
    .patchStatus(
      IpamConfigResource,
      { name: object.metadata.name ?? "" },
      mergePatch({
        status: {
          observedGeneration: generation,
          conditions: withCondition(conditionsOf(object), c, now, generation),
        },
      }),
    )
    .pipe(
      Effect.retry(retry),
      Effect.asVoid,
      Effect.catch((e: KubeError) =>
        Effect.logWarning("could not write the IPAMConfig's status").pipe(
          Effect.annotateLogs({ error: `${e._tag}: ${e.message}` }),
        ),
      ),
    )
}

/**
 * Sets the CIDRsAllocated condition on a Cluster's status, on the version it was read at (the
 * provider and others own the other conditions: a write computed from an older version would drop
 * theirs). A failure (a Conflict, a transient error) fails the reconcile, which is retried with a
 * fresh read (`krtt chaos`, scenario ipam-concurrent, holds it to that). A status the Cluster's
 * schema refuses (openmcp's CRD requires `phase`, `lastReconcileTime` and `observedGeneration`
 * until the provider has written them) is logged and left: retrying cannot make it valid, and the
 * Event says the same.
 */
export const setClusterConditions = (
  client: KubeClientShape,
  cluster: KubeObject,
  conditions: ReadonlyArray<IpamCondition>,
): Effect.Effect<void, KubeError> =>
  Effect.gen(function* () {
    const now = new Date(yield* Clock.currentTimeMillis).toISOString()
    const existing = conditionsOf(cluster)
    const c = conditions.find((x) => x.type === CIDRS_ALLOCATED_CONDITION)
    if (c === undefined) return
    const before = existing.find((x) => x.type === c.type)
    if (before?.status === c.status && before.message === c.message) return
    yield* client
      .patchStatus(
        OpenmcpClusterResource,
        { namespace: cluster.metadata.namespace ?? "", name: cluster.metadata.name ?? "" },
        mergePatch({
          metadata: { resourceVersion: cluster.metadata.resourceVersion },
          status: { conditions: withCondition(existing, c, now, undefined) },
        }),
      )
      .pipe(
        Effect.catchTag("Invalid", (e) =>
          Effect.logWarning("the Cluster's status refused the CIDRsAllocated condition").pipe(
            Effect.annotateLogs({
              cluster: `${cluster.metadata.namespace}/${cluster.metadata.name}`,
              error: e.message,
            }),
          ),
        ),
      )
  })
