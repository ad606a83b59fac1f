/**
 * A scenario of the differential suite and what the suite reads of a Cluster to know that a
 * controller has acted on it.
 *
 * @module
 */
import type { KubeObject } from "../fixtures/index.ts"
import { CLUSTER_FINALIZER } from "../fixtures/index.ts"
import type { World } from "./objects.ts"

/** A scenario: the objects it makes, and what the Cluster shows once a controller reconciled them. */
export interface Scenario {
  readonly name: string
  readonly setup: (w: World) => Promise<void>
  readonly settled: (c: KubeObject | undefined) => boolean
  /** A step once the first state is reached (deleting the Cluster), and the state after it. */
  readonly next?: {
    readonly run: (w: World) => Promise<void>
    readonly settled: (c: KubeObject | undefined) => boolean
  }
}

type Condition = { readonly type: string; readonly status: string; readonly reason?: string }

/** The status of a condition of the Cluster, or undefined. */
export const conditionStatus = (c: KubeObject | undefined, type: string): string | undefined =>
  (c?.status?.conditions as ReadonlyArray<Condition> | undefined)?.find((x) => x.type === type)?.status

export const hasFinalizer = (c: KubeObject | undefined): boolean =>
  c?.metadata.finalizers?.includes(CLUSTER_FINALIZER) === true

/** Reconciled at least once: the finalizer is there and the Available summary is written. */
export const reconciled = (c: KubeObject | undefined): boolean =>
  hasFinalizer(c) && conditionStatus(c, "Available") !== undefined

/** Reconciled, in `phase`, with the given conditions at the given statuses. */
export const inState =
  (phase: string, conditions: Readonly<Record<string, string>> = {}) =>
  (c: KubeObject | undefined): boolean =>
    reconciled(c) &&
    c?.status?.phase === phase &&
    Object.entries(conditions).every(([type, status]) => conditionStatus(c, type) === status)

/** Being deleted, and the Deleting condition says so. */
export const deleting = (c: KubeObject | undefined): boolean =>
  c?.metadata.deletionTimestamp !== undefined &&
  c.status?.phase === "Deleting" &&
  conditionStatus(c, "Deleting") === "True"
