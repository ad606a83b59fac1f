/**
 * What becomes of a request that names the pair's cluster (table `multicluster.engagement`,
 * rows 12 and 17-19): reconciled when the controller is engaged with the cluster, requeued
 * while an engagement is under way, dropped otherwise.
 *
 * Guarantees: no `Reconcile` unless `Engaged`; a dropped request is never requeued, and only
 * the first drop since the last engagement is logged (`SourcesStarted` resets the count).
 *
 * @module
 */
import type { EngagementConfig } from "./config.ts"
import { ENGAGEMENT_ROWS } from "./rows.ts"
import {
  type EngagementInput,
  type EngagementResult,
  type EngagementState,
  type EngagementTrigger,
  IN_PROGRESS_TAGS,
} from "./types.ts"
import { excludedText } from "./verdict.ts"

const isInProgress = (s: EngagementState): boolean => IN_PROGRESS_TAGS.includes(s._tag)

/**
 * A request names the cluster: reconcile it when engaged (row 12), requeue it while an
 * engagement is under way (row 19), else drop it (rows 17 and 18).
 */
export const requestArrived = (
  { observed: e, desired: o }: EngagementInput,
  t: Extract<EngagementTrigger, { readonly _tag: "RequestArrived" }>,
  config: EngagementConfig,
): EngagementResult => {
  const s = e.state
  const cluster = o.cluster
  const { namespace, name } = t
  if (s._tag === "Engaged") {
    return {
      actions: [{ _tag: "Reconcile", cluster, namespace, name }],
      status: e,
      row: ENGAGEMENT_ROWS.reconcile,
    }
  }
  if (isInProgress(s)) {
    return {
      actions: [{ _tag: "RequeueRequest", cluster, namespace, name, after: config.requeueWhileEngaging }],
      status: e,
      row: ENGAGEMENT_ROWS.requeueWhileEngaging,
    }
  }
  const notFound = s._tag === "Absent"
  return {
    actions: [
      {
        _tag: "DropRequest",
        cluster,
        namespace,
        name,
        reason: notFound ? "ClusterNotFound" : "ClusterNotEngaged",
        detail: dropDetail(cluster, s),
        log: e.dropped === 0,
      },
    ],
    status: { state: s, dropped: e.dropped + 1 },
    row: notFound ? ENGAGEMENT_ROWS.dropNotFound : ENGAGEMENT_ROWS.dropNotEngaged,
  }
}

/** Why a request of a cluster neither engaged nor being engaged is dropped (rows 17 and 18). */
const dropDetail = (cluster: string, s: EngagementState): string =>
  s._tag === "Absent"
    ? `cluster "${cluster}" not found`
    : s._tag === "Excluded"
      ? `controller not engaged with cluster "${cluster}": ${excludedText(s.why)}`
      : s._tag === "Failed"
        ? `controller not engaged with cluster "${cluster}": engaging failed: ${s.error}`
        : `controller not engaged with cluster "${cluster}": unhealthy`
