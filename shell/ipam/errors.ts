/**
 * The IPAM controller's errors: a write of a reconcile's answer the API server refused
 * (`IpamWriteError`, what the table hears of as `WriteRefused`), and the reconcile that failed
 * with it (`IpamReconcileError`, naming the row that decided the refused write).
 *
 * @module
 */
import * as Data from "effect/Data"
import type { ReconcileAction } from "../../core/ipam/index.ts"
import type { KubeError } from "../kube/errors.ts"

/** What an action writes, in words: `create ClusterConfig ns/name`, `SetAppliedRules on Cluster ns/name`. */
export const describeAction = (action: ReconcileAction): string => {
  switch (action._tag) {
    case "CreateClusterConfig":
      return `create ClusterConfig ${action.object.metadata.namespace}/${action.object.metadata.name}`
    case "RemoveOperationAnnotation":
    case "SetAppliedRules":
      return `${action._tag} on Cluster ${action.cluster.namespace}/${action.cluster.name}`
    case "Event":
      return `Event ${action.reason} on ${action.object.namespace}/${action.object.name}`
    default:
      return `${action._tag} on ClusterConfig ${action.clusterConfig.namespace}/${action.clusterConfig.name}`
  }
}

/** The API server refused the write of `action`. */
export class IpamWriteError extends Data.TaggedError("IpamWriteError")<{
  readonly action: ReconcileAction
  readonly cause: KubeError
}> {
  override get message(): string {
    return `could not ${describeAction(this.action)}: ${this.cause._tag}: ${this.cause.message}`
  }
}

/** A reconcile that ended in a refused write; retried with fresh reads (the rate limiter's backoff). */
export class IpamReconcileError extends Data.TaggedError("IpamReconcileError")<{
  /** The row that decided the refused write. */
  readonly row: string
  readonly refused: IpamWriteError
}> {
  override get message(): string {
    return `${this.row}: ${this.refused.cause._tag}: ${this.refused.cause.message}`
  }
}
