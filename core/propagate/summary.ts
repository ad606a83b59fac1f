/**
 * What a source's per-cluster results mean for the source itself (docs/fleet.md): its
 * finalizer and its `krtt.io/propagated-to: "<n>/<m>"` annotation.
 *
 * - A wanted source (labelled, not being deleted) carries the finalizer.
 * - `n` counts the targeted engaged clusters whose copy is in sync, `m` the targeted engaged
 *   clusters; disengaged clusters are in neither (skipped, never waited for).
 * - The finalizer of a source that is no longer wanted is released once every engaged cluster is
 *   `Clean`; clusters that are not engaged then are cleaned when they come back (the shell keeps
 *   their names, see `pendingAfterRelease`).
 *
 * @module
 */
import type { CopyStatus } from "./types.ts"

/** One engaged cluster's outcome: the table's status, or `Failed` when its actions failed. */
export interface ClusterOutcome {
  readonly cluster: string
  readonly targeted: boolean
  readonly status: CopyStatus | "Failed"
}

export interface SourceView {
  readonly labelled: boolean
  readonly deleting: boolean
  readonly hasFinalizer: boolean
  /** The current `krtt.io/propagated-to` annotation. */
  readonly propagatedTo: string | undefined
}

export interface SourceDecision {
  readonly addFinalizer: boolean
  readonly removeFinalizer: boolean
  /** The annotation's new value; `undefined` removes it. */
  readonly propagatedTo: string | undefined
  /** Whether the annotation must be written (it differs). */
  readonly writeAnnotation: boolean
  /** Whether every engaged cluster is settled (in sync, or clean when not wanted). */
  readonly settled: boolean
}

/** The source-level decision from every engaged cluster's outcome. */
export const summarize = (source: SourceView, outcomes: ReadonlyArray<ClusterOutcome>): SourceDecision => {
  const wanted = source.labelled && !source.deleting
  if (wanted) {
    const targeted = outcomes.filter((o) => o.targeted)
    const synced = targeted.filter((o) => o.status === "Synced").length
    const value = `${synced}/${targeted.length}`
    const othersClean = outcomes.filter((o) => !o.targeted).every((o) => o.status === "Clean")
    return {
      addFinalizer: !source.hasFinalizer,
      removeFinalizer: false,
      propagatedTo: value,
      writeAnnotation: source.propagatedTo !== value,
      settled: synced === targeted.length && othersClean,
    }
  }
  const clean = outcomes.every((o) => o.status === "Clean")
  return {
    addFinalizer: false,
    removeFinalizer: source.hasFinalizer && clean,
    propagatedTo: undefined,
    // A deleted source keeps its annotation (it goes with the object); an unlabelled one loses it.
    writeAnnotation: !source.deleting && source.propagatedTo !== undefined,
    settled: clean,
  }
}

/**
 * The clusters that may still hold a copy when a source's finalizer is released: those the
 * provider knows but that are not engaged now. They are cleaned when they are engaged again.
 */
export const pendingAfterRelease = (
  known: ReadonlyArray<string>,
  engaged: ReadonlyArray<string>,
): ReadonlyArray<string> => known.filter((c) => !engaged.includes(c)).sort()
