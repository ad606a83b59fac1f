/**
 * The engagement of one controller with one cluster (seed 003, "Multi-Cluster Support") as a
 * pure transition: table `multicluster.engagement`.
 *
 * Expected flow: the provider adds the cluster (`ClusterAdded`); if the controller's options
 * engage it (rows 1 and 3; otherwise rows 2, 4-6 and 15 leave it `Excluded`) the pair goes
 * start cache (row 1/3) → cache synced (row 7, 8) → indexes applied (row 9) → sources started
 * (row 10), each step one action whose outcome the shell feeds back. Engaged, requests are
 * reconciled (row 12). The engage scope is cancelled when the cluster leaves (row 11), turns
 * unhealthy (row 22), fails (row 14) or is replaced by new credentials (row 16).
 *
 * Guarantees: no `Reconcile` unless `Engaged`; `StartSources` only after `CacheSynced` and
 * `ApplyIndexes` of the same generation; every state that may hold an open engage scope
 * leaves it only through a `CancelEngageScope` of that generation (or by becoming `Engaged`);
 * a request of a cluster that is not engaged is dropped (never requeued) unless an engagement
 * is under way, and only the first drop since the last engagement is logged.
 *
 * Assumptions: the shell feeds one trigger at a time per pair and reports each step's outcome
 * with the generation it ran for; results of an older generation are ignored (row 24).
 *
 * Layout: one function per trigger below, each citing the rows it decides; the rows of a
 * request are in `requests.ts`, what the controller's options say about a cluster in
 * `verdict.ts`, the rows by name in `rows.ts`.
 *
 * @module
 */
import type { RowId } from "../krtt/index.ts"
import { type EngagementConfig, EngagementDefaults, engageRetryDelay } from "./config.ts"
import { requestArrived } from "./requests.ts"
import { ENGAGEMENT_ROWS } from "./rows.ts"
import {
  type Engagement,
  type EngagementAction,
  type EngagementInput,
  type EngagementOptions,
  type EngagementResult,
  type EngagementState,
  type EngagementTrigger,
  type ExcludedWhy,
  HUB,
  SCOPE_OPEN_TAGS,
} from "./types.ts"
import { excludedText, sourcesFor, verdict } from "./verdict.ts"

export { ENGAGEMENT_ROWS } from "./rows.ts"

const EXCLUDED_ROW: Readonly<Record<ExcludedWhy, RowId>> = {
  "local-disabled": ENGAGEMENT_ROWS.hubExcluded,
  "no-provider": ENGAGEMENT_ROWS.noProvider,
  "provider-disabled": ENGAGEMENT_ROWS.providerDisabled,
  filtered: ENGAGEMENT_ROWS.filtered,
  "hub-only-watches": ENGAGEMENT_ROWS.hubOnlyWatches,
}

const NONE: ReadonlyArray<EngagementAction> = []

const isScopeOpen = (s: EngagementState): boolean => SCOPE_OPEN_TAGS.includes(s._tag)
const generationOf = (s: EngagementState): string | undefined =>
  // Stryker disable next-line ConditionalExpression,StringLiteral
  s._tag === "Absent" ? undefined : s.generation
/** The failures so far of an engagement under way (`fail` is reached from those and from Engaged). */
const failuresOf = (s: EngagementState): number =>
  s._tag === "StartingCache" ||
  s._tag === "WaitingForSync" ||
  s._tag === "ApplyingIndexes" ||
  s._tag === "Engaging"
    ? s.failures
    : 0

/** Close the engage scope of the state's generation, if one may be open. */
const cancel = (cluster: string, s: EngagementState): ReadonlyArray<EngagementAction> => {
  const generation = generationOf(s)
  // Stryker disable next-line ConditionalExpression
  return isScopeOpen(s) && generation !== undefined
    ? [{ _tag: "CancelEngageScope", cluster, generation }]
    : NONE
}

/** Rows 1-6 and 15: the cluster is there with `generation`; engage it or leave it excluded. */
const arrive = (
  o: EngagementOptions,
  generation: string,
  dropped: number,
  failures: number,
  before: ReadonlyArray<EngagementAction>,
  row: RowId | undefined,
): EngagementResult => {
  const v = verdict(o)
  if (v.engage) {
    return {
      actions: [...before, { _tag: "StartCache", cluster: o.cluster, generation }],
      status: { state: { _tag: "StartingCache", generation, failures }, dropped },
      row: row ?? (o.cluster === HUB ? ENGAGEMENT_ROWS.hubEngage : ENGAGEMENT_ROWS.providerEngage),
    }
  }
  return {
    actions: [
      ...before,
      { _tag: "Log", level: "info", message: `not engaging cluster "${o.cluster}": ${excludedText(v.why)}` },
    ],
    status: { state: { _tag: "Excluded", generation, why: v.why }, dropped },
    row: row ?? EXCLUDED_ROW[v.why],
  }
}

/** Nothing changes: row 24 (an outcome of another state or generation), or `row` (row 13). */
const stay = (e: Engagement, row: RowId = ENGAGEMENT_ROWS.ignored): EngagementResult => ({
  actions: NONE,
  status: e,
  row,
})

/** Row 14: the engagement failed; cancel its scope and retry after the backoff. */
const fail = (
  o: EngagementOptions,
  e: Engagement,
  generation: string,
  error: string,
  now: number,
  config: EngagementConfig,
): EngagementResult => {
  const failures = failuresOf(e.state) + 1
  const after = engageRetryDelay(failures, config)
  return {
    actions: [
      ...cancel(o.cluster, e.state),
      { _tag: "Log", level: "warn", message: `engaging cluster "${o.cluster}" failed: ${error}` },
      { _tag: "RetryAfter", cluster: o.cluster, after },
    ],
    status: {
      state: { _tag: "Failed", generation, failures, retryAt: now + after, error },
      dropped: e.dropped,
    },
    row: ENGAGEMENT_ROWS.engageFailed,
  }
}

/** The trigger of one tag. */
type TriggerOf<T extends EngagementTrigger["_tag"]> = Extract<EngagementTrigger, { readonly _tag: T }>

/** The engagement table as a transition: one function per trigger, each citing its rows. */
export const engagementTransition = (
  input: EngagementInput,
  config: EngagementConfig = EngagementDefaults,
): EngagementResult => {
  const t = input.trigger
  switch (t._tag) {
    case "ClusterAdded":
    case "CredentialsChanged":
      return clusterArrived(input, t)
    case "ClusterRemoved":
      return clusterRemoved(input)
    case "CacheStarted":
      return cacheStarted(input, t, config)
    case "CacheSynced":
      return cacheSynced(input, t)
    case "IndexesApplied":
      return indexesApplied(input, t)
    case "SourcesStarted":
      return sourcesStarted(input, t)
    case "CacheSyncFailed":
      return cacheSyncFailed(input, t, config)
    case "EngageFailed":
      return engageFailed(input, t, config)
    case "ClusterUnhealthy":
      return clusterUnhealthy(input, t)
    case "ClusterHealthy":
      return clusterHealthy(input)
    case "RetryDue":
      return retryDue(input)
    case "RequestArrived":
      return requestArrived(input, t, config)
    // Stryker disable next-line ConditionalExpression,BlockStatement
    default: {
      const never: never = t
      // Stryker disable next-line StringLiteral,CallExpression
      throw new Error(`unknown trigger ${JSON.stringify(never)}`)
    }
  }
}

/**
 * The provider has the cluster (`ClusterAdded`, `CredentialsChanged`): engage or exclude a
 * cluster the pair has not seen (rows 1-6 and 15), ignore the generation it knows (row 13),
 * start over with another one (row 16).
 */
const clusterArrived = (
  { observed: e, desired: o }: EngagementInput,
  t: TriggerOf<"ClusterAdded" | "CredentialsChanged">,
): EngagementResult => {
  const current = generationOf(e.state)
  if (current === undefined) return arrive(o, t.generation, e.dropped, 0, NONE, undefined)
  if (current === t.generation) return stay(e, ENGAGEMENT_ROWS.reentrant)
  return arrive(o, t.generation, e.dropped, 0, cancel(o.cluster, e.state), ENGAGEMENT_ROWS.newGeneration)
}

/** The cluster left: cancel the engage scope, forget the generation (row 11; row 24 when Absent). */
const clusterRemoved = ({ observed: e, desired: o }: EngagementInput): EngagementResult => {
  const s = e.state
  if (s._tag === "Absent") return stay(e)
  return {
    actions: cancel(o.cluster, s),
    status: { state: { _tag: "Absent" }, dropped: e.dropped },
    row: ENGAGEMENT_ROWS.removed,
  }
}

/** The cache runs: wait for its sync (row 7; row 24 for another state or generation). */
const cacheStarted = (
  { observed: e, desired: o }: EngagementInput,
  t: TriggerOf<"CacheStarted">,
  config: EngagementConfig,
): EngagementResult => {
  const s = e.state
  if (s._tag !== "StartingCache" || s.generation !== t.generation) return stay(e)
  return {
    actions: [
      {
        _tag: "WaitForCacheSync",
        cluster: o.cluster,
        generation: s.generation,
        timeout: config.cacheSyncTimeout,
      },
    ],
    status: { state: { ...s, _tag: "WaitingForSync" }, dropped: e.dropped },
    row: ENGAGEMENT_ROWS.cacheStarted,
  }
}

/** The cache synced: apply the indexes (row 8; row 24 for another state or generation). */
const cacheSynced = (
  { observed: e, desired: o }: EngagementInput,
  t: TriggerOf<"CacheSynced">,
): EngagementResult => {
  const s = e.state
  if (s._tag !== "WaitingForSync" || s.generation !== t.generation) return stay(e)
  return {
    actions: [{ _tag: "ApplyIndexes", cluster: o.cluster, generation: s.generation }],
    status: { state: { ...s, _tag: "ApplyingIndexes" }, dropped: e.dropped },
    row: ENGAGEMENT_ROWS.cacheSynced,
  }
}

/** The indexes are there: start the sources (row 9; row 24 for another state or generation). */
const indexesApplied = (
  { observed: e, desired: o }: EngagementInput,
  t: TriggerOf<"IndexesApplied">,
): EngagementResult => {
  const s = e.state
  if (s._tag !== "ApplyingIndexes" || s.generation !== t.generation) return stay(e)
  return {
    actions: [{ _tag: "StartSources", cluster: o.cluster, generation: s.generation, watches: sourcesFor(o) }],
    status: { state: { ...s, _tag: "Engaging" }, dropped: e.dropped },
    row: ENGAGEMENT_ROWS.indexesApplied,
  }
}

/** The sources run: the pair is engaged (row 10; row 24 for another state or generation). */
const sourcesStarted = (
  { observed: e, desired: o }: EngagementInput,
  t: TriggerOf<"SourcesStarted">,
): EngagementResult => {
  const s = e.state
  if (s._tag !== "Engaging" || s.generation !== t.generation) return stay(e)
  return {
    actions: [{ _tag: "Log", level: "info", message: `engaged cluster "${o.cluster}"` }],
    status: { state: { _tag: "Engaged", generation: s.generation }, dropped: 0 },
    row: ENGAGEMENT_ROWS.sourcesStarted,
  }
}

/** The cache did not sync, or not in time: the engagement failed (row 14; row 24 otherwise). */
const cacheSyncFailed = (
  input: EngagementInput,
  t: TriggerOf<"CacheSyncFailed">,
  config: EngagementConfig,
): EngagementResult => {
  const { observed: e, desired: o, now } = input
  const s = e.state
  if (s._tag !== "WaitingForSync" || s.generation !== t.generation) return stay(e)
  const error = t.timedOut
    ? `cache did not sync within ${config.cacheSyncTimeout} ms${t.error === "" ? "" : `: ${t.error}`}`
    : t.error
  return fail(o, e, s.generation, error, now, config)
}

/** A step or a source of an open engage scope failed (row 14; row 24 otherwise). */
const engageFailed = (
  input: EngagementInput,
  t: TriggerOf<"EngageFailed">,
  config: EngagementConfig,
): EngagementResult => {
  const { observed: e, desired: o, now } = input
  const s = e.state
  if (!isScopeOpen(s) || generationOf(s) !== t.generation) return stay(e)
  return fail(o, e, t.generation, `${t.step}: ${t.error}`, now, config)
}

/** The cluster turned unhealthy: cancel the engage scope and wait (row 22; row 24 otherwise). */
const clusterUnhealthy = (
  { observed: e, desired: o }: EngagementInput,
  t: TriggerOf<"ClusterUnhealthy">,
): EngagementResult => {
  const s = e.state
  const current = generationOf(s)
  // Stryker disable next-line ConditionalExpression
  if (!(isScopeOpen(s) || s._tag === "Failed") || current === undefined) return stay(e)
  return {
    actions: [
      ...cancel(o.cluster, s),
      { _tag: "Log", level: "info", message: `disengaging unhealthy cluster "${o.cluster}": ${t.reason}` },
    ],
    status: { state: { _tag: "Unhealthy", generation: current, reason: t.reason }, dropped: e.dropped },
    row: ENGAGEMENT_ROWS.unhealthy,
  }
}

/** An unhealthy cluster is healthy again: engage it afresh (row 23; row 24 otherwise). */
const clusterHealthy = ({ observed: e, desired: o }: EngagementInput): EngagementResult => {
  const s = e.state
  if (s._tag !== "Unhealthy") return stay(e)
  return {
    actions: [{ _tag: "StartCache", cluster: o.cluster, generation: s.generation }],
    status: {
      state: { _tag: "StartingCache", generation: s.generation, failures: 0 },
      dropped: e.dropped,
    },
    row: ENGAGEMENT_ROWS.healthy,
  }
}

/** The retry timer fired: engage again (row 20), or wait out the rest (row 21; row 24 otherwise). */
const retryDue = ({ observed: e, desired: o, now }: EngagementInput): EngagementResult => {
  const s = e.state
  if (s._tag !== "Failed") return stay(e)
  if (now < s.retryAt) {
    return {
      actions: [{ _tag: "RetryAfter", cluster: o.cluster, after: s.retryAt - now }],
      status: e,
      row: ENGAGEMENT_ROWS.retryEarly,
    }
  }
  return {
    actions: [{ _tag: "StartCache", cluster: o.cluster, generation: s.generation }],
    status: {
      state: { _tag: "StartingCache", generation: s.generation, failures: s.failures },
      dropped: e.dropped,
    },
    row: ENGAGEMENT_ROWS.retryDue,
  }
}
