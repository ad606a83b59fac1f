/**
 * The vocabulary of `krtt propagate` (seed 003, Goals 1: a UNIFORM controller
 * "sourcing information from one central hub cluster"): a source ConfigMap or Secret in the hub,
 * its copy in one workload cluster, and what table `propagate.copy` decides for that pair.
 *
 * @module
 */
import type { TransitionResult } from "../krtt/types.ts"

/** The table id. */
export const PROPAGATE_COPY = "propagate.copy"

/** A hub object with this label set to `"true"` is a source. */
export const PropagateLabel = "krtt.io/propagate"
/** Every copy carries this label: `<hub namespace>.<name>` of its source. */
export const PropagatedFromLabel = "krtt.io/propagated-from"
/** On a source: a label selector on the cluster's labels (and its name) restricting its targets. */
export const PropagationAnnotation = "krtt.io/propagation"
/** On a source: `"<n>/<m>"`, copies in sync over targeted engaged clusters. */
export const PropagatedToAnnotation = "krtt.io/propagated-to"
/** The finalizer a source carries while it has (or may have) copies. */
export const PropagateFinalizer = "krtt.io/propagate"
/** The pseudo-label a selector names a cluster by. */
export const ClusterNameLabel = "krtt.io/cluster-name"

/**
 * The hub's own bookkeeping, never copied: the source label (a copy is not a source), the
 * selector and the result annotation, and kubectl's record of the last applied manifest.
 */
export const BookkeepingLabels: ReadonlyArray<string> = [PropagateLabel]
export const BookkeepingAnnotations: ReadonlyArray<string> = [
  PropagationAnnotation,
  PropagatedToAnnotation,
  "kubectl.kubernetes.io/last-applied-configuration",
]

export type SourceKind = "ConfigMap" | "Secret"

/** What a copy holds (and what the source says it must hold). */
export interface Content {
  readonly data: Readonly<Record<string, string>>
  readonly binaryData: Readonly<Record<string, string>>
  readonly labels: Readonly<Record<string, string>>
  readonly annotations: Readonly<Record<string, string>>
  /** A Secret's `type` (immutable once created); `undefined` for a ConfigMap. */
  readonly type: string | undefined
}

/** The hub object, as the table needs it. */
export interface Source {
  readonly kind: SourceKind
  readonly namespace: string
  readonly name: string
  /** `krtt.io/propagate: "true"`. */
  readonly labelled: boolean
  /** `metadata.deletionTimestamp` is set. */
  readonly deleting: boolean
  /** data, labels, annotations and type as in the hub (bookkeeping included). */
  readonly content: Content
}

/** The object of the source's name in the workload cluster, if any. */
export interface Copy {
  /** Its `krtt.io/propagated-from` label; `undefined` when it has none. */
  readonly propagatedFrom: string | undefined
  readonly content: Content
}

/** What the shell saw in one workload cluster for one source. */
export interface CopyObserved {
  /** `null`: the source is gone from the hub (its finalizer released, or never seen). */
  readonly source: Source | null
  /** `null`: no object of that name in the cluster's cache. */
  readonly copy: Copy | null
  /**
   * `Forbidden`: the cluster's scoped cache lost (or was refused) the informer of that namespace
   * and kind, so the copy can be neither seen nor written.
   */
  readonly access: "Allowed" | "Forbidden"
  /** `Missing`: a create was answered that the namespace does not exist. */
  readonly namespace: "Present" | "Missing" | "Unknown"
}

/**
 * The source's selector (`krtt.io/propagation`), evaluated by the shell against this cluster:
 * no annotation or a match is `Selected`; a selector that does not parse is `Invalid`.
 */
export type Target =
  | { readonly _tag: "Selected" }
  | { readonly _tag: "NotSelected" }
  | { readonly _tag: "Invalid"; readonly message: string }

export interface CopyDesired {
  /** The workload cluster's name (never the hub's `""`). */
  readonly cluster: string
  readonly target: Target
}

/** Why the pair is looked at; the decision does not depend on it (level-triggered). */
export type CopyTrigger =
  | { readonly _tag: "SourceChanged" }
  | { readonly _tag: "CopyChanged" }
  | { readonly _tag: "ClusterEngaged" }
  | { readonly _tag: "Resync" }

export interface CopyRef {
  readonly cluster: string
  readonly kind: SourceKind
  readonly namespace: string
  readonly name: string
}

export type CopyAction =
  | { readonly _tag: "CreateNamespace"; readonly cluster: string; readonly namespace: string }
  | (CopyRef & { readonly _tag: "CreateCopy"; readonly content: Content })
  | (CopyRef & { readonly _tag: "UpdateCopy"; readonly content: Content })
  /** Delete, then create: a Secret's type cannot change in place. */
  | (CopyRef & { readonly _tag: "ReplaceCopy"; readonly content: Content })
  | (CopyRef & { readonly _tag: "DeleteCopy" })
  /** An Event on the source in the hub (type Warning). */
  | {
      readonly _tag: "SourceEvent"
      readonly cluster: string
      readonly reason: "PropagationForbidden" | "PropagationConflict" | "InvalidPropagationSelector"
      readonly message: string
    }

/**
 * The pair's status once the actions are done: `Synced` (the copy is what the source says),
 * `Clean` (no copy of ours), `Blocked` (no permission), `Conflict` (an object of that name that
 * is not ours), `InvalidSelector` (nothing written until the selector parses).
 */
export type CopyStatus = "Synced" | "Clean" | "Blocked" | "Conflict" | "InvalidSelector"

export interface CopyInput {
  readonly observed: CopyObserved
  readonly desired: CopyDesired
  readonly trigger: CopyTrigger
  readonly now: number
}

/** What `copyTransition` answers: the actions, the pair's status, the deciding row. */
export type CopyResult = TransitionResult<CopyAction, CopyStatus>
