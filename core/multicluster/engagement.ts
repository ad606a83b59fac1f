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
 * @module
 */
import { type RowId, rowId } from "../krtt/index.ts"
import { type EngagementConfig, EngagementDefaults, engageRetryDelay } from "./config.ts"
import {
  ENGAGEMENT,
  type Engagement,
  type EngagementAction,
  type EngagementInput,
  type EngagementOptions,
  type EngagementResult,
  type EngagementState,
  type ExcludedWhy,
  HUB,
  IN_PROGRESS_TAGS,
  SCOPE_OPEN_TAGS,
  type WatchSpec,
} from "./types.ts"

const r = (n: number): RowId => rowId(ENGAGEMENT, n)

/** The table's rows by name. */
export const ENGAGEMENT_ROWS = {
  hubEngage: r(1),
  hubExcluded: r(2),
  providerEngage: r(3),
  noProvider: r(4),
  providerDisabled: r(5),
  hubOnlyWatches: r(6),
  cacheStarted: r(7),
  cacheSynced: r(8),
  indexesApplied: r(9),
  sourcesStarted: r(10),
  removed: r(11),
  reconcile: r(12),
  reentrant: r(13),
  engageFailed: r(14),
  filtered: r(15),
  newGeneration: r(16),
  dropNotFound: r(17),
  dropNotEngaged: r(18),
  requeueWhileEngaging: r(19),
  retryDue: r(20),
  retryEarly: r(21),
  unhealthy: r(22),
  healthy: r(23),
  ignored: r(24),
} as const

/** What the options say about the pair's cluster. */
export type Verdict =
  | { readonly engage: true; readonly watches: ReadonlyArray<string> }
  | { readonly engage: false; readonly why: ExcludedWhy }

/** Effective `engageWithLocalCluster` of a watch: its own, else the controller's, else `true` without a provider and `false` with one. */
export const watchEngagesLocal = (o: EngagementOptions, w: WatchSpec): boolean =>
  w.engageWithLocalCluster ?? o.engageWithLocalCluster ?? !o.hasProvider

/**
 * Effective `engageWithProviderClusters` of a watch; never without a provider. Unset on the
 * watch: the controller's for `Watches` (unset: `true`), `false` for `For`/`Owns`.
 */
export const watchEngagesProviderClusters = (o: EngagementOptions, w: WatchSpec): boolean =>
  o.hasProvider &&
  (w.engageWithProviderClusters ?? (w.kind === "Watches" ? (o.engageWithProviderClusters ?? true) : false))

/** Whether a watch's filters (the controller's and its own) accept the pair's cluster. */
const accepted = (o: EngagementOptions, w: WatchSpec): boolean =>
  o.clusterFilter !== "reject" && w.clusterFilter !== "reject"

/**
 * The watches whose sources start on the pair's cluster: on the hub those engaging it, on a
 * provider cluster those engaging provider clusters whose filters accept it.
 */
export const sourcesFor = (o: EngagementOptions): ReadonlyArray<string> =>
  o.watches
    .filter((w) =>
      o.cluster === HUB ? watchEngagesLocal(o, w) : watchEngagesProviderClusters(o, w) && accepted(o, w),
    )
    .map((w) => w.name)

/**
 * Whether the controller engages the pair's cluster, and with which watches: a cluster is
 * engaged when at least one watch applies to it (each watch by its own options).
 */
export const verdict = (o: EngagementOptions): Verdict => {
  const watches = sourcesFor(o)
  if (watches.length > 0) return { engage: true, watches }
  if (o.cluster === HUB) return { engage: false, why: "local-disabled" }
  if (!o.hasProvider) return { engage: false, why: "no-provider" }
  if (o.watches.some((w) => watchEngagesProviderClusters(o, w))) return { engage: false, why: "filtered" }
  return {
    engage: false,
    why: o.engageWithProviderClusters === false ? "provider-disabled" : "hub-only-watches",
  }
}

const EXCLUDED_ROW: Readonly<Record<ExcludedWhy, RowId>> = {
  "local-disabled": ENGAGEMENT_ROWS.hubExcluded,
  "no-provider": ENGAGEMENT_ROWS.noProvider,
  "provider-disabled": ENGAGEMENT_ROWS.providerDisabled,
  filtered: ENGAGEMENT_ROWS.filtered,
  "hub-only-watches": ENGAGEMENT_ROWS.hubOnlyWatches,
}

const WHY_TEXT: Readonly<Record<ExcludedWhy, string>> = {
  "local-disabled": "no watch engages the hub (engageWithLocalCluster is false by default with a provider)",
  "no-provider": "the manager has no cluster provider",
  "provider-disabled": "engageWithProviderClusters is false",
  filtered: "the cluster filter rejected it",
  "hub-only-watches":
    "no watch engages provider clusters (For/Owns are hub-only unless their own options say so)",
}

/** Human-readable text of an exclusion, for logs and `krtt clusters`. */
export const excludedText = (why: ExcludedWhy): string => WHY_TEXT[why]

const NONE: ReadonlyArray<EngagementAction> = []

const isScopeOpen = (s: EngagementState): boolean => SCOPE_OPEN_TAGS.includes(s._tag)
const isInProgress = (s: EngagementState): boolean => IN_PROGRESS_TAGS.includes(s._tag)
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
      { _tag: "Log", level: "info", message: `not engaging cluster "${o.cluster}": ${WHY_TEXT[v.why]}` },
    ],
    status: { state: { _tag: "Excluded", generation, why: v.why }, dropped },
    row: row ?? EXCLUDED_ROW[v.why],
  }
}

const stay = (e: Engagement, row: RowId = ENGAGEMENT_ROWS.ignored): EngagementResult => ({
  actions: NONE,
  status: e,
  row,
})

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

/** The engagement table as a transition. */
export const engagementTransition = (
  input: EngagementInput,
  config: EngagementConfig = EngagementDefaults,
): EngagementResult => {
  const { observed: e, desired: o, trigger: t, now } = input
  const s = e.state
  const cluster = o.cluster
  const current = generationOf(s)

  switch (t._tag) {
    case "ClusterAdded":
    case "CredentialsChanged": {
      if (current === undefined) return arrive(o, t.generation, e.dropped, 0, NONE, undefined)
      if (current === t.generation) return stay(e, ENGAGEMENT_ROWS.reentrant)
      return arrive(o, t.generation, e.dropped, 0, cancel(cluster, s), ENGAGEMENT_ROWS.newGeneration)
    }
    case "ClusterRemoved": {
      if (s._tag === "Absent") return stay(e)
      return {
        actions: cancel(cluster, s),
        status: { state: { _tag: "Absent" }, dropped: e.dropped },
        row: ENGAGEMENT_ROWS.removed,
      }
    }
    case "CacheStarted": {
      if (s._tag !== "StartingCache" || s.generation !== t.generation) return stay(e)
      return {
        actions: [
          { _tag: "WaitForCacheSync", cluster, generation: s.generation, timeout: config.cacheSyncTimeout },
        ],
        status: { state: { ...s, _tag: "WaitingForSync" }, dropped: e.dropped },
        row: ENGAGEMENT_ROWS.cacheStarted,
      }
    }
    case "CacheSynced": {
      if (s._tag !== "WaitingForSync" || s.generation !== t.generation) return stay(e)
      return {
        actions: [{ _tag: "ApplyIndexes", cluster, generation: s.generation }],
        status: { state: { ...s, _tag: "ApplyingIndexes" }, dropped: e.dropped },
        row: ENGAGEMENT_ROWS.cacheSynced,
      }
    }
    case "IndexesApplied": {
      if (s._tag !== "ApplyingIndexes" || s.generation !== t.generation) return stay(e)
      return {
        actions: [{ _tag: "StartSources", cluster, generation: s.generation, watches: sourcesFor(o) }],
        status: { state: { ...s, _tag: "Engaging" }, dropped: e.dropped },
        row: ENGAGEMENT_ROWS.indexesApplied,
      }
    }
    case "SourcesStarted": {
      if (s._tag !== "Engaging" || s.generation !== t.generation) return stay(e)
      return {
        actions: [{ _tag: "Log", level: "info", message: `engaged cluster "${cluster}"` }],
        status: { state: { _tag: "Engaged", generation: s.generation }, dropped: 0 },
        row: ENGAGEMENT_ROWS.sourcesStarted,
      }
    }
    case "CacheSyncFailed": {
      if (s._tag !== "WaitingForSync" || s.generation !== t.generation) return stay(e)
      const error = t.timedOut
        ? `cache did not sync within ${config.cacheSyncTimeout} ms${t.error === "" ? "" : `: ${t.error}`}`
        : t.error
      return fail(o, e, s.generation, error, now, config)
    }
    case "EngageFailed": {
      if (!isScopeOpen(s) || current !== t.generation) return stay(e)
      return fail(o, e, t.generation, `${t.step}: ${t.error}`, now, config)
    }
    case "ClusterUnhealthy": {
      // Stryker disable next-line ConditionalExpression
      if (!(isScopeOpen(s) || s._tag === "Failed") || current === undefined) return stay(e)
      return {
        actions: [
          ...cancel(cluster, s),
          { _tag: "Log", level: "info", message: `disengaging unhealthy cluster "${cluster}": ${t.reason}` },
        ],
        status: { state: { _tag: "Unhealthy", generation: current, reason: t.reason }, dropped: e.dropped },
        row: ENGAGEMENT_ROWS.unhealthy,
      }
    }
    case "ClusterHealthy": {
      if (s._tag !== "Unhealthy") return stay(e)
      return {
        actions: [{ _tag: "StartCache", cluster, generation: s.generation }],
        status: {
          state: { _tag: "StartingCache", generation: s.generation, failures: 0 },
          dropped: e.dropped,
        },
        row: ENGAGEMENT_ROWS.healthy,
      }
    }
    case "RetryDue": {
      if (s._tag !== "Failed") return stay(e)
      if (now < s.retryAt) {
        return {
          actions: [{ _tag: "RetryAfter", cluster, after: s.retryAt - now }],
          status: e,
          row: ENGAGEMENT_ROWS.retryEarly,
        }
      }
      return {
        actions: [{ _tag: "StartCache", cluster, generation: s.generation }],
        status: {
          state: { _tag: "StartingCache", generation: s.generation, failures: s.failures },
          dropped: e.dropped,
        },
        row: ENGAGEMENT_ROWS.retryDue,
      }
    }
    case "RequestArrived": {
      const { namespace, name } = t
      if (s._tag === "Engaged") {
        return {
          actions: [{ _tag: "Reconcile", cluster, namespace, name }],
          status: e,
          row: ENGAGEMENT_ROWS.reconcile,
        }
      }
      if (isInProgress(s)) {
        return {
          actions: [{ _tag: "RequeueRequest", cluster, namespace, name, after: config.requeueWhileEngaging }],
          status: e,
          row: ENGAGEMENT_ROWS.requeueWhileEngaging,
        }
      }
      const notFound = s._tag === "Absent"
      const detail =
        s._tag === "Absent"
          ? `cluster "${cluster}" not found`
          : s._tag === "Excluded"
            ? `controller not engaged with cluster "${cluster}": ${WHY_TEXT[s.why]}`
            : s._tag === "Failed"
              ? `controller not engaged with cluster "${cluster}": engaging failed: ${s.error}`
              : `controller not engaged with cluster "${cluster}": unhealthy`
      return {
        actions: [
          {
            _tag: "DropRequest",
            cluster,
            namespace,
            name,
            reason: notFound ? "ClusterNotFound" : "ClusterNotEngaged",
            detail,
            log: e.dropped === 0,
          },
        ],
        status: { state: s, dropped: e.dropped + 1 },
        row: notFound ? ENGAGEMENT_ROWS.dropNotFound : ENGAGEMENT_ROWS.dropNotEngaged,
      }
    }
    // Stryker disable next-line ConditionalExpression,BlockStatement
    default: {
      const never: never = t
      // Stryker disable next-line StringLiteral,CallExpression
      throw new Error(`unknown trigger ${JSON.stringify(never)}`)
    }
  }
}
