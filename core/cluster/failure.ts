/**
 * Why an action of the Cluster controller was refused: the typed failure an `ActionFailed`
 * trigger carries back to the tables. The shell makes it from the API server's answer in one
 * place (shell/cluster/failure.ts); the core reads its reason (a missing cluster CA Secret is a
 * `NotFound` answer to `CreateKubeconfigSecret`, Error Handling derived row 11) and quotes its
 * message in the reconcile's error.
 *
 * @module
 */

/** The reasons the tables tell apart; every other answer of the server is `Other`. */
export type ActionFailureReason = "NotFound" | "Conflict" | "Forbidden" | "Invalid" | "Unavailable" | "Other"

/** A refused action: the reason, and the server's answer as text. */
export type ActionFailure =
  | { readonly _tag: "NotFound"; readonly message: string }
  | { readonly _tag: "Conflict"; readonly message: string }
  | { readonly _tag: "Forbidden"; readonly message: string }
  | { readonly _tag: "Invalid"; readonly message: string }
  | { readonly _tag: "Unavailable"; readonly message: string }
  | { readonly _tag: "Other"; readonly message: string }

/** The failure of `reason` with `message`. */
export const actionFailure = (reason: ActionFailureReason, message: string): ActionFailure => ({
  _tag: reason,
  message,
})
