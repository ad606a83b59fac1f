/**
 * The actions of the scoped cache's tables: data for the shell to interpret. Each names the
 * informer it is about; none is a callback.
 *
 * @module
 */
import type { Dependent, InformerRef } from "./types.ts"

/** Why an informer is stopped. */
export type StopReason =
  /** Its last dependent was removed (automatic termination). */
  | "NoDependents"
  /** Removed with force. */
  | "Forced"
  /** Its list or watch was answered 403. */
  | "PermissionLost"
  /** A cluster-level informer of the same GVK and key now serves its namespace. */
  | "CoveredByCluster"

/** Why dependents are told that their informer is gone. */
export type NotifyReason = "PermissionLost" | "InformerRemoved"

export type ScopedCacheAction =
  /** Start the informer's list and watch (with the shell's options for its scope and GVK). */
  | { readonly _tag: "StartInformer"; readonly ref: InformerRef }
  /** Cancel the informer's context (seed: `Cancel context.CancelFunc`); its store is dropped. */
  | { readonly _tag: "StopInformer"; readonly ref: InformerRef; readonly reason: StopReason }
  /** Tell every listed dependent that the informer is gone, and why (an event each). */
  | {
      readonly _tag: "NotifyDependents"
      readonly ref: InformerRef
      readonly reason: NotifyReason
      readonly dependents: ReadonlyArray<Dependent>
      readonly message: string
    }
  /** One log line about the informer. */
  | { readonly _tag: "Log"; readonly ref: InformerRef; readonly message: string }
