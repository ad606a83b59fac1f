/**
 * Adding and removing informers (seed 002, `DynamicScopedCache.AddInformer` / `RemoveInformer`,
 * the `ScopeInformer`'s cancel "when asked or when it loses permissions", and informer sync) as
 * one pure transition over the slice of the registry an operation touches.
 *
 * # Expected flow
 * `AddInformer` registers a new informer with its first dependent (started at once when the cache
 * runs, by `Start` otherwise) or adds one more dependent to an existing one; `RemoveInformer` takes
 * one dependent away and, with automatic termination on, stops and forgets the informer when none
 * is left; a forced removal stops it whatever its dependents; a 403 on its list or watch stops it
 * and tells its dependents; `InformerSynced` marks it ready for reads.
 *
 * # Guarantees
 * - A dependent is counted once per informer (by UID); removing an unknown one changes nothing.
 * - An informer leaves the registry only with its dependents either removed one by one or told
 *   (`NotifyDependents`): none is lost silently.
 * - A namespace-level informer never runs while a cluster-level informer of the same GVK and key
 *   exists: it is `Covered` (kept with its dependents, not running) and starts again when the
 *   cluster-level informer goes.
 *
 * # Assumptions
 * The slice is read from the registry (`registry.ts`): `peers` lists the namespace-level informers
 * of the same GVK and key when the ref is cluster-level, and is empty otherwise.
 *
 * @module
 */
import { type RowId, rowId, type TransitionInput, type TransitionResult } from "../krtt/index.ts"
import type { ScopedCacheAction } from "./actions.ts"
import { DependentSet } from "./dependents.ts"
import type { ScopedCacheOptions } from "./options.ts"
import {
  type Dependent,
  type InformerRef,
  type InformerState,
  isClusterLevel,
  isRunning,
  type Peer,
  refString,
} from "./types.ts"

export const INFORMERS = "scopedcache.informers"

/** One informer as the table sees it. */
export interface InformerView {
  readonly state: InformerState
  readonly dependents: DependentSet
}

export interface InformersObserved {
  /** Whether the cache has been started (seed: `started bool`). */
  readonly started: boolean
  /** The informer the operation names; absent when the registry does not have it. */
  readonly informer?: InformerView | undefined
  /** For a namespace-level ref: whether a cluster-level informer of the same GVK and key exists. */
  readonly coveredByCluster: boolean
  /** For a cluster-level ref: the namespace-level informers of the same GVK and key. */
  readonly peers: ReadonlyArray<Peer>
}

export interface InformersDesired {
  /** The informer the operation names (seed: `InformerOptions` namespace, GVK and key). */
  readonly ref: InformerRef
  /**
   * The option `automaticTermination` in force (see `options.ts`): part of the input, so that
   * `krtt explain` can show both answers to the seed's "Should this be configurable?".
   */
  readonly automaticTermination: boolean
}

export type PermissionVerb = "list" | "watch"

export type InformersTrigger =
  /** `AddInformer(infOpts)` with `infOpts.Dependent`. */
  | { readonly _tag: "AddInformer"; readonly dependent: Dependent }
  /** `RemoveInformer(infOpts)` with `infOpts.Dependent`. */
  | { readonly _tag: "RemoveInformer"; readonly dependent: Dependent }
  /** Remove the informer whatever its dependents. */
  | { readonly _tag: "ForceRemove" }
  /** The informer's list or watch was answered 403 Forbidden. */
  | { readonly _tag: "PermissionLost"; readonly verb: PermissionVerb; readonly message: string }
  /** The informer's first list is stored. */
  | { readonly _tag: "InformerSynced" }

export interface InformersStatus {
  /** The informer after the operation; `undefined` when it is not (or no longer) registered. */
  readonly informer: InformerView | undefined
  /** The peers after the operation (same order as observed). */
  readonly peers: ReadonlyArray<Peer>
}

export type InformersInput = TransitionInput<InformersObserved, InformersDesired, InformersTrigger>
export type InformersResult = TransitionResult<ScopedCacheAction, InformersStatus>

const r = (n: number): RowId => rowId(INFORMERS, n)
/** Row ids of `scopedcache.informers`, by what they decide (the seed's rules first, derived rows after). */
export const INFORMERS_ROW = {
  addNewBeforeStart: r(1),
  addNewStarted: r(2),
  addDependent: r(3),
  removeDependent: r(4),
  removeLastDependent: r(5),
  forceRemove: r(6),
  permissionLost: r(7),
  addKnownDependent: r(8),
  addClusterCoveringPeers: r(9),
  addNamespaceCovered: r(10),
  removeUnknownInformer: r(11),
  removeUnknownDependent: r(12),
  removeLastDependentKept: r(13),
  permissionLostStale: r(14),
  synced: r(15),
  syncedStale: r(16),
} as const

const NONE: ReadonlyArray<ScopedCacheAction> = []

/** The state a (re)started informer gets: running when the cache runs, pending otherwise. */
const startState = (started: boolean): InformerState => (started ? "Starting" : "Pending")

/**
 * When a cluster-level informer leaves: its covered peers start again (or wait for `Start`).
 * Returns the peers after, and the actions to start them.
 */
const releasePeers = (
  ref: InformerRef,
  observed: InformersObserved,
): { readonly peers: ReadonlyArray<Peer>; readonly actions: ReadonlyArray<ScopedCacheAction> } => {
  // A namespace-level informer has no peers (the registry gives only cluster-level ones theirs).
  const actions: Array<ScopedCacheAction> = []
  const peers = observed.peers.map((p) => {
    if (p.state !== "Covered") return p
    if (observed.started) actions.push({ _tag: "StartInformer", ref: { ...ref, namespace: p.namespace } })
    return { namespace: p.namespace, state: startState(observed.started) }
  })
  return { peers, actions }
}

/** The informer leaves the registry: stop it if it runs, tell its dependents, release peers. */
const leave = (
  input: InformersInput,
  informer: InformerView,
  reason: "NoDependents" | "Forced" | "PermissionLost",
  notify: ReadonlyArray<ScopedCacheAction>,
  row: RowId,
): InformersResult => {
  const { ref } = input.desired
  const stop: ReadonlyArray<ScopedCacheAction> = isRunning(informer.state)
    ? [{ _tag: "StopInformer", ref, reason }]
    : NONE
  const released = releasePeers(ref, input.observed)
  return {
    actions: [...stop, ...notify, ...released.actions],
    status: { informer: undefined, peers: released.peers },
    row,
  }
}

/**
 * A new informer for `AddInformer`: rows 1 and 2 (before or after `Start`), 9 (a cluster-level
 * informer covers its running peers) and 10 (a namespace-level informer under a cluster-level one).
 */
const addNew = (input: InformersInput, dependent: Dependent): InformersResult => {
  const { observed } = input
  const { ref } = input.desired
  const dependents = DependentSet.empty.add(dependent)
  if (!isClusterLevel(ref) && observed.coveredByCluster) {
    return {
      actions: NONE,
      status: { informer: { state: "Covered", dependents }, peers: observed.peers },
      row: INFORMERS_ROW.addNamespaceCovered,
    }
  }
  const informer: InformerView = { state: startState(observed.started), dependents }
  const start: ReadonlyArray<ScopedCacheAction> = observed.started ? [{ _tag: "StartInformer", ref }] : NONE
  if (isClusterLevel(ref) && observed.peers.some((p) => p.state !== "Covered")) {
    const stops: Array<ScopedCacheAction> = []
    const peers = observed.peers.map((p): Peer => {
      if (isRunning(p.state))
        stops.push({
          _tag: "StopInformer",
          ref: { ...ref, namespace: p.namespace },
          reason: "CoveredByCluster",
        })
      return { namespace: p.namespace, state: "Covered" }
    })
    return {
      actions: [...start, ...stops],
      status: { informer, peers },
      row: INFORMERS_ROW.addClusterCoveringPeers,
    }
  }
  return {
    actions: start,
    status: { informer, peers: observed.peers },
    row: observed.started ? INFORMERS_ROW.addNewStarted : INFORMERS_ROW.addNewBeforeStart,
  }
}

const unchanged = (input: InformersInput, row: RowId): InformersResult => ({
  actions: NONE,
  status: { informer: input.observed.informer, peers: input.observed.peers },
  row,
})

/**
 * `AddInformer`: rows 1 and 2 (a new informer, before or after `Start`), 3 (one more dependent),
 * 8 (a dependent already counted), 9 (a cluster-level informer covers its peers) and 10 (a
 * namespace-level informer is covered).
 */
const addInformer = (input: InformersInput, dependent: Dependent): InformersResult => {
  const { observed } = input
  const informer = observed.informer
  if (informer === undefined) return addNew(input, dependent)
  if (informer.dependents.has(dependent.uid)) return unchanged(input, INFORMERS_ROW.addKnownDependent)
  return {
    actions: NONE,
    status: {
      informer: { state: informer.state, dependents: informer.dependents.add(dependent) },
      peers: observed.peers,
    },
    row: INFORMERS_ROW.addDependent,
  }
}

/**
 * `RemoveInformer`: rows 4 (one dependent less), 5 (the last dependent: the informer leaves),
 * 11 (an unknown informer), 12 (an unknown dependent) and 13 (the last dependent with automatic
 * termination off: the informer stays).
 */
const removeInformer = (input: InformersInput, dependent: Dependent): InformersResult => {
  const { observed } = input
  const informer = observed.informer
  if (informer === undefined) return unchanged(input, INFORMERS_ROW.removeUnknownInformer)
  if (!informer.dependents.has(dependent.uid)) return unchanged(input, INFORMERS_ROW.removeUnknownDependent)
  const dependents = informer.dependents.remove(dependent.uid)
  if (dependents.size > 0) {
    return {
      actions: NONE,
      status: { informer: { state: informer.state, dependents }, peers: observed.peers },
      row: INFORMERS_ROW.removeDependent,
    }
  }
  if (!input.desired.automaticTermination) {
    return {
      actions: NONE,
      status: { informer: { state: informer.state, dependents }, peers: observed.peers },
      row: INFORMERS_ROW.removeLastDependentKept,
    }
  }
  return leave(input, informer, "NoDependents", NONE, INFORMERS_ROW.removeLastDependent)
}

/** `ForceRemove`: rows 6 (the informer leaves, its dependents told) and 11 (an unknown informer). */
const forceRemove = (input: InformersInput): InformersResult => {
  const { ref } = input.desired
  const informer = input.observed.informer
  if (informer === undefined) return unchanged(input, INFORMERS_ROW.removeUnknownInformer)
  const notify: ReadonlyArray<ScopedCacheAction> =
    informer.dependents.size === 0
      ? NONE
      : [
          {
            _tag: "NotifyDependents",
            ref,
            reason: "InformerRemoved",
            dependents: informer.dependents.toArray(),
            message: `informer ${refString(ref)} was removed`,
          },
        ]
  return leave(input, informer, "Forced", notify, INFORMERS_ROW.forceRemove)
}

/**
 * `PermissionLost` (a 403 on list or watch): rows 7 (the running informer leaves, logged and its
 * dependents told) and 14 (an informer that is gone or not running).
 */
const permissionLost = (input: InformersInput, verb: PermissionVerb, reason: string): InformersResult => {
  const { ref } = input.desired
  const informer = input.observed.informer
  if (informer === undefined || !isRunning(informer.state))
    return unchanged(input, INFORMERS_ROW.permissionLostStale)
  const message = `informer ${refString(ref)} stopped: ${verb} forbidden: ${reason}`
  const notify: Array<ScopedCacheAction> = [{ _tag: "Log", ref, message }]
  if (informer.dependents.size > 0) {
    notify.push({
      _tag: "NotifyDependents",
      ref,
      reason: "PermissionLost",
      dependents: informer.dependents.toArray(),
      message,
    })
  }
  return leave(input, informer, "PermissionLost", notify, INFORMERS_ROW.permissionLost)
}

/** `InformerSynced`: rows 15 (a starting informer is ready) and 16 (one that is gone or not starting). */
const informerSynced = (input: InformersInput): InformersResult => {
  const { observed } = input
  const informer = observed.informer
  if (informer === undefined || informer.state !== "Starting")
    return unchanged(input, INFORMERS_ROW.syncedStale)
  return {
    actions: NONE,
    status: { informer: { state: "Synced", dependents: informer.dependents }, peers: observed.peers },
    row: INFORMERS_ROW.synced,
  }
}

/** `scopedcache.informers` as a transition: each trigger is decided by its own function above. */
export const informersTransition = (input: InformersInput, _options: ScopedCacheOptions): InformersResult => {
  const { trigger } = input
  switch (trigger._tag) {
    case "AddInformer":
      return addInformer(input, trigger.dependent)
    case "RemoveInformer":
      return removeInformer(input, trigger.dependent)
    case "ForceRemove":
      return forceRemove(input)
    case "PermissionLost":
      return permissionLost(input, trigger.verb, trigger.message)
    case "InformerSynced":
      return informerSynced(input)
    // Stryker disable next-line ConditionalExpression,BlockStatement
    default: {
      const never: never = trigger
      // Stryker disable next-line StringLiteral
      throw new Error(`unknown trigger ${JSON.stringify(never)}`)
    }
  }
}
