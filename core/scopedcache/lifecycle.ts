/**
 * Starting the cache and asking about it (seed 002, `Start`, `IsStarted`, `WaitForCacheSync`) as a
 * pure transition over the registry's informers.
 *
 * # Expected flow
 * Informers added before `Start` wait as `Pending`; `Start` starts every one of them and marks the
 * cache started; afterwards `AddInformer` starts new informers at once (`scopedcache.informers`).
 *
 * # Guarantees
 * `Start` is idempotent; `IsStarted` and `WaitForCacheSync` change nothing.
 *
 * @module
 */
import { type RowId, rowId, type TransitionInput, type TransitionResult } from "../krtt/index.ts"
import type { ScopedCacheAction } from "./actions.ts"
import type { ScopedCacheOptions } from "./options.ts"
import type { InformerRef, InformerState } from "./types.ts"

export const LIFECYCLE = "scopedcache.lifecycle"

/** An informer as the lifecycle table sees it. */
export interface InformerSummary {
  readonly ref: InformerRef
  readonly state: InformerState
}

export interface LifecycleObserved {
  readonly started: boolean
  /** Every registered informer. */
  readonly informers: ReadonlyArray<InformerSummary>
}

export type LifecycleTrigger =
  | { readonly _tag: "Start" }
  | { readonly _tag: "IsStarted" }
  | { readonly _tag: "WaitForCacheSync" }

export interface LifecycleStatus {
  readonly started: boolean
  /** The informers after the operation (same order as observed). */
  readonly informers: ReadonlyArray<InformerSummary>
  /** `IsStarted`: the answer. */
  readonly isStarted?: boolean | undefined
  /** `WaitForCacheSync`: whether every informer that should run has synced (false before `Start`). */
  readonly synced?: boolean | undefined
}

export type LifecycleInput = TransitionInput<LifecycleObserved, Record<string, never>, LifecycleTrigger>
export type LifecycleResult = TransitionResult<ScopedCacheAction, LifecycleStatus>

const r = (n: number): RowId => rowId(LIFECYCLE, n)
/** Row ids of `scopedcache.lifecycle`. */
export const LIFECYCLE_ROW = { start: r(1), isStarted: r(2), waitForSync: r(3), startAgain: r(4) } as const

const NONE: ReadonlyArray<ScopedCacheAction> = []

/** `scopedcache.lifecycle` as a transition. */
export const lifecycleTransition = (input: LifecycleInput, _options: ScopedCacheOptions): LifecycleResult => {
  const { observed, trigger } = input
  switch (trigger._tag) {
    case "Start": {
      if (observed.started)
        return {
          actions: NONE,
          status: { started: true, informers: observed.informers },
          row: LIFECYCLE_ROW.startAgain,
        }
      const actions: Array<ScopedCacheAction> = []
      const informers = observed.informers.map((i): InformerSummary => {
        if (i.state !== "Pending") return i
        actions.push({ _tag: "StartInformer", ref: i.ref })
        return { ref: i.ref, state: "Starting" }
      })
      return { actions, status: { started: true, informers }, row: LIFECYCLE_ROW.start }
    }
    case "IsStarted":
      return {
        actions: NONE,
        status: { started: observed.started, informers: observed.informers, isStarted: observed.started },
        row: LIFECYCLE_ROW.isStarted,
      }
    case "WaitForCacheSync":
      return {
        actions: NONE,
        status: {
          started: observed.started,
          informers: observed.informers,
          synced:
            observed.started &&
            observed.informers.every((i) => i.state === "Synced" || i.state === "Covered"),
        },
        row: LIFECYCLE_ROW.waitForSync,
      }
    // Stryker disable next-line ConditionalExpression,BlockStatement
    default: {
      const never: never = trigger
      // Stryker disable next-line StringLiteral
      throw new Error(`unknown trigger ${JSON.stringify(never)}`)
    }
  }
}
