/**
 * The reflector's decisions as a pure step: what to do after a list or a watch ended, and how
 * long to wait first. The reflector performs the I/O; this table decides.
 *
 * | phase | outcome                          | next                     | wait              |
 * |-------|----------------------------------|--------------------------|-------------------|
 * | List  | Listed(rv)                       | Watch(rv), same attempt  | none              |
 * | List  | ListFailed                       | List, attempt + 1        | backoff(attempt)  |
 * | Watch | Ended (server closed), progress  | Watch(last rv), attempt 0| none              |
 * | Watch | Ended, no event at all           | Watch(last rv), attempt+1| backoff(attempt)  |
 * | Watch | Expired (410 Gone)               | List (relist)            | none, or backoff when it keeps happening without progress |
 * | Watch | Silent (inactivity timeout)      | Watch(last rv), attempt 0| none              |
 * | Watch | Failed (network, 5xx, 401, …)    | Watch(last rv)           | backoff(attempt, or 0 after progress) |
 *
 * "progress" means the watch delivered at least one event (bookmarks count): the connection
 * worked, so the backoff starts over. A list alone does not reset it, so a server that answers
 * every watch with 410 right after each list is relisted with growing delays, not in a hot loop.
 *
 * @module
 */
import type { KubeError } from "../kube/errors.ts"

/** Where the reflector is. */
export type Phase =
  | { readonly _tag: "List"; readonly attempt: number }
  | { readonly _tag: "Watch"; readonly resourceVersion: string; readonly attempt: number }

/** How a list or a watch ended. */
export type Outcome =
  | { readonly _tag: "Listed"; readonly resourceVersion: string }
  | { readonly _tag: "ListFailed"; readonly error: KubeError }
  | { readonly _tag: "Ended"; readonly resourceVersion: string; readonly progressed: boolean }
  | { readonly _tag: "Expired"; readonly progressed: boolean }
  | { readonly _tag: "Silent"; readonly resourceVersion: string }
  | {
      readonly _tag: "Failed"
      readonly error: KubeError
      readonly resourceVersion: string
      readonly progressed: boolean
    }

/** What to do next: `backoffAttempt` set means "wait backoff(backoffAttempt) first". */
export interface Step {
  readonly next: Phase
  readonly backoffAttempt: number | undefined
}

/** The decision table above. */
export const step = (phase: Phase, outcome: Outcome): Step => {
  const attempt = phase.attempt
  switch (outcome._tag) {
    case "Listed":
      return {
        next: { _tag: "Watch", resourceVersion: outcome.resourceVersion, attempt },
        backoffAttempt: undefined,
      }
    case "ListFailed":
      return { next: { _tag: "List", attempt: attempt + 1 }, backoffAttempt: attempt }
    case "Ended":
      return outcome.progressed
        ? {
            next: { _tag: "Watch", resourceVersion: outcome.resourceVersion, attempt: 0 },
            backoffAttempt: undefined,
          }
        : {
            next: { _tag: "Watch", resourceVersion: outcome.resourceVersion, attempt: attempt + 1 },
            backoffAttempt: attempt,
          }
    case "Expired":
      return outcome.progressed || attempt === 0
        ? { next: { _tag: "List", attempt: outcome.progressed ? 0 : attempt + 1 }, backoffAttempt: undefined }
        : { next: { _tag: "List", attempt: attempt + 1 }, backoffAttempt: attempt }
    case "Silent":
      return {
        next: { _tag: "Watch", resourceVersion: outcome.resourceVersion, attempt: 0 },
        backoffAttempt: undefined,
      }
    case "Failed": {
      const from = outcome.progressed ? 0 : attempt
      return {
        next: { _tag: "Watch", resourceVersion: outcome.resourceVersion, attempt: from + 1 },
        backoffAttempt: from,
      }
    }
  }
}
