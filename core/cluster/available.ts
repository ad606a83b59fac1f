/**
 * The Cluster's `Available` condition, as Cluster API v1.14.2's setAvailableCondition: the
 * summary of Deleting (negative polarity), RemoteConnectionProbe, InfrastructureReady,
 * ControlPlaneAvailable, WorkersAvailable, TopologyReconciled (left out while missing on a
 * Cluster without a topology) and the availability gates (the Cluster's, else its
 * ClusterClass's), each as the Cluster's conditions hold it after this reconcile; a type not
 * there counts as Unknown (`Condition not yet reported`).
 *
 * Priorities: while deleting, a missing infrastructure or control plane (reasons ObjectDeleted and
 * ObjectDoesNotExist) is info; a False TopologyReconciled is info unless its reason is
 * ReconcileFailed or ClusterClassNotReconciled. The message lists `* Type: message` (the reason
 * when there is no message) for each issue and unknown, and, when Available is True, for each
 * info condition that has a message.
 *
 * @module
 */
import type { Decided } from "./conditions.ts"
import { findCondition } from "./conditions.ts"
import {
  defaultPriority,
  indentIfMultiline,
  mergedReason,
  mergedStatus,
  type Owned,
  Priority,
  sortOwned,
} from "./merge.ts"
import type { AvailabilityGate, Condition } from "./types.ts"

const DEFAULT_TYPES = [
  "Deleting",
  "RemoteConnectionProbe",
  "InfrastructureReady",
  "ControlPlaneAvailable",
  "WorkersAvailable",
  "TopologyReconciled",
] as const

/** What the summary reads besides the Cluster's conditions. */
export interface AvailableInput {
  /** The Cluster's conditions after this reconcile (all but Available). */
  readonly conditions: ReadonlyArray<Condition>
  readonly deleting: boolean
  readonly topology: boolean
  /** The Cluster's availability gates, else its ClusterClass's. */
  readonly gates: ReadonlyArray<AvailabilityGate>
}

const missingIsInfo = (c: Owned, deleting: boolean): boolean =>
  deleting &&
  (c.type === "InfrastructureReady" || c.type === "ControlPlaneAvailable") &&
  (c.reason === "ObjectDeleted" || c.reason === "ObjectDoesNotExist")

const topologyIsInfo = (c: Owned): boolean =>
  c.type === "TopologyReconciled" &&
  c.status === "False" &&
  c.reason !== "ReconcileFailed" &&
  c.reason !== "ClusterClassNotReconciled"

/** The `Available` condition of a Cluster. */
export const availableCondition = (input: AvailableInput): Decided => {
  const order: Array<string> = [...DEFAULT_TYPES]
  const negative = ["Deleting"]
  for (const g of input.gates) {
    order.push(g.conditionType)
    if (g.polarity === "Negative") negative.push(g.conditionType)
  }
  const scope: Array<Owned> = []
  for (const type of new Set(order)) {
    const c = findCondition(input.conditions, type)
    if (c === undefined) {
      if (type === "TopologyReconciled" && !input.topology) continue
      scope.push({
        kind: "Cluster",
        name: "",
        type,
        status: "Unknown",
        reason: "NotYetReported",
        message: "Condition not yet reported",
      })
    } else
      scope.push({
        kind: "Cluster",
        name: "",
        type,
        status: c.status,
        reason: c.reason ?? "",
        message: c.message ?? "",
        lastTransitionTime: c.lastTransitionTime,
      })
  }
  const byDefault = defaultPriority(negative)
  const priorityOf = (c: Owned): Priority =>
    missingIsInfo(c, input.deleting) || topologyIsInfo(c) ? Priority.Info : byDefault(c)
  const sorted = sortOwned(scope, order)
  const { status, top } = mergedStatus(sorted.map(priorityOf), true)
  const lines: Array<string> = []
  for (const c of sorted) {
    if (priorityOf(c) === Priority.Info && (status !== "True" || c.message === "")) continue
    lines.push(`* ${c.type}:${c.message === "" ? ` ${c.reason}` : indentIfMultiline(c.message)}`)
  }
  return {
    status,
    reason: mergedReason(top, { issue: "NotAvailable", unknown: "AvailableUnknown", info: "Available" }),
    message: lines.join("\n"),
  }
}
