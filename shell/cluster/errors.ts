/**
 * The errors of the Cluster controller on the shell, and the one place where an error of an
 * action becomes the typed failure the core hears (`actionFailureOf`).
 *
 * A refused action's error is a `RunError`: the API server's answer (`KubeError`), or a refusal
 * the shell finds before asking it (a reference that does not resolve, a kind whose store cannot
 * be read, a provider object missing from its store, a cluster CA that cannot sign). The core's
 * `ActionFailure` keeps its reason and its text.
 *
 * @module
 */
import * as Data from "effect/Data"
import { type ActionFailure, actionFailure } from "../../core/cluster/failure.ts"
import { isRetryable, type KubeError } from "../kube/errors.ts"
import type { ContractError } from "./contract.ts"

/** A watched kind that cannot be read: its store did not sync in time, or its list failed. */
export class KindUnreadableError extends Data.TaggedError("KindUnreadableError")<{
  readonly message: string
}> {}

/** A provider object that its kind's store does not hold. */
export class NotCachedError extends Data.TaggedError("NotCachedError")<{
  readonly kind: string
  readonly namespace: string
  readonly name: string
}> {
  override get message(): string {
    return `NotFound: ${this.kind} ${this.namespace}/${this.name} is not in the cache`
  }
}

/** The `<cluster>-ca` Secret cannot sign a client certificate (keys missing or unusable). */
export class ClusterCaError extends Data.TaggedError("ClusterCaError")<{ readonly message: string }> {}

/** Every error an action of the Cluster controller can be refused with. */
export type RunError = KubeError | ContractError | KindUnreadableError | NotCachedError | ClusterCaError

/** The API server's answer as the core's failure: its reason, and `<tag>: <message>` as text. */
const fromKubeError = (e: KubeError): ActionFailure => {
  const text = `${e._tag}: ${e.message}`
  switch (e._tag) {
    case "NotFound":
    case "Conflict":
    case "Forbidden":
    case "Invalid":
      return actionFailure(e._tag, text)
    case "Unauthorized":
      return actionFailure("Forbidden", text)
    case "Timeout":
    case "Unreachable":
      return actionFailure("Unavailable", text)
    case "ApiError":
      return actionFailure(isRetryable(e) ? "Unavailable" : "Other", text)
    case "AlreadyExists":
    case "Gone":
      return actionFailure("Other", text)
  }
}

/** The failure the core hears of a refused action. */
export const actionFailureOf = (e: RunError): ActionFailure => {
  switch (e._tag) {
    case "ContractError":
      return actionFailure("Invalid", e.message)
    case "KindUnreadableError":
      return actionFailure("Unavailable", e.message)
    case "NotCachedError":
      return actionFailure("NotFound", e.message)
    case "ClusterCaError":
      return actionFailure("Invalid", e.message)
    default:
      return fromKubeError(e)
  }
}
