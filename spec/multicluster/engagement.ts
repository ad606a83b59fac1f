/**
 * The engagement of one controller with one cluster (seed 003, "Multi-Cluster Support"),
 * transcribed as a table.
 *
 * Seed 003 is a design proposal, not a table: rows 1-14 are its rules from the "Proposal" and
 * "Multi-Cluster-Compatible Reconcilers" sections, one row each, in the order a cluster meets
 * them; rows 15-24 are derived, each resolving a gap with upstream multicluster-runtime's
 * behaviour (or bettering it) and saying why. The predicates are written from the seed and
 * these texts, not from `core/`.
 *
 * @module
 */
import { isDeepStrictEqual } from "node:util"
import type { TableSpec } from "../../core/krtt/index.ts"
import type {
  EngagementAction,
  EngagementConfig,
  EngagementInput,
  EngagementResult,
  EngagementState,
} from "../../core/multicluster/index.ts"
import { KRTT_COLUMNS, rowsFor } from "../builder.ts"

const { doc, derived } = rowsFor<EngagementInput, EngagementResult, EngagementConfig>(KRTT_COLUMNS)

// ---------------------------------------------------------------------------------------------
// Reading an input, from the seed's vocabulary

type Tag = EngagementState["_tag"]
const tag = (i: EngagementInput): Tag => i.observed.state._tag
const trig = (i: EngagementInput) => i.trigger._tag
const is =
  (...tags: ReadonlyArray<Tag>) =>
  (i: EngagementInput) =>
    tags.includes(tag(i))
const genOf = (s: EngagementState): string | undefined => ("generation" in s ? s.generation : undefined)
const gen = (i: EngagementInput) => genOf(i.observed.state)
const triggerGen = (i: EngagementInput): string | undefined =>
  "generation" in i.trigger ? i.trigger.generation : undefined
/** Cache started, syncing, indexing or starting sources: an engagement under way. */
const underWay = is("StartingCache", "WaitingForSync", "ApplyingIndexes", "Engaging")
/** Something was started for this engagement that its scope must stop. */
const scopeOpen = (i: EngagementInput) => underWay(i) || tag(i) === "Engaged"
const failuresBefore = (i: EngagementInput): number => {
  const s = i.observed.state
  return "failures" in s ? s.failures : 0
}

/** The cluster named "" is the hub ("The embedded cluster corresponds to GetCluster(ctx, \"\")"). */
const hub = (i: EngagementInput) => i.desired.cluster === ""
type Watch = EngagementInput["desired"]["watches"][number]
/**
 * `EngageWithDefaultCluster` of one watch: the watch's own option (upstream's per-watch
 * `WithEngageWithLocalCluster`), else the controller's, else true without a provider and false
 * with one (upstream's default).
 */
const watchOnHub = (i: EngagementInput, w: Watch) =>
  w.engageWithLocalCluster ?? i.desired.engageWithLocalCluster ?? !i.desired.hasProvider
/**
 * `EngageWithProviderClusters` of one watch, with a provider: its own option, else for `Watches`
 * the controller's (unset: true); `For` and `Owns` are hub watches unless their own option says
 * otherwise (seed: controllers "triggered by events on the hub cluster can continue to use For
 * and Owns").
 */
const watchOnProviderClusters = (i: EngagementInput, w: Watch) =>
  i.desired.hasProvider &&
  (w.engageWithProviderClusters !== undefined
    ? w.engageWithProviderClusters
    : w.kind === "Watches" && i.desired.engageWithProviderClusters !== false)
/** A filter rejected the cluster for this watch: the controller's or the watch's own. */
const rejectedFor = (i: EngagementInput, w: Watch) =>
  i.desired.clusterFilter === "reject" || w.clusterFilter === "reject"
/** The watches engaging provider clusters, filters aside. */
const providerWatches = (i: EngagementInput) => i.desired.watches.filter((w) => watchOnProviderClusters(i, w))
/** The watches whose sources start on the pair's cluster, in declaration order. */
const watchesFor = (i: EngagementInput) =>
  i.desired.watches
    .filter((w) => (hub(i) ? watchOnHub(i, w) : watchOnProviderClusters(i, w) && !rejectedFor(i, w)))
    .map((w) => w.name)

type Why = "local-disabled" | "no-provider" | "provider-disabled" | "filtered" | "hub-only-watches"
/** Whether the controller engages this cluster (some watch applies to it); if not, why. */
const exclusion = (i: EngagementInput): Why | undefined => {
  if (watchesFor(i).length > 0) return undefined
  if (hub(i)) return "local-disabled"
  if (!i.desired.hasProvider) return "no-provider"
  if (providerWatches(i).length > 0) return "filtered"
  return i.desired.engageWithProviderClusters === false ? "provider-disabled" : "hub-only-watches"
}

const clusterTrigger = (i: EngagementInput) => trig(i) === "ClusterAdded" || trig(i) === "CredentialsChanged"
/** The provider has the cluster and this pair has not seen it yet. */
const arriving = (i: EngagementInput) => clusterTrigger(i) && tag(i) === "Absent"
/** The provider has the cluster with the generation this pair already knows. */
const again = (i: EngagementInput) => clusterTrigger(i) && tag(i) !== "Absent" && triggerGen(i) === gen(i)
/** The provider replaced the cluster: another generation than the one this pair knows. */
const replaced = (i: EngagementInput) => clusterTrigger(i) && tag(i) !== "Absent" && triggerGen(i) !== gen(i)
/** A step's outcome for the state waiting for it, of the same generation. */
const outcome = (t: EngagementInput["trigger"]["_tag"], waiting: Tag) => (i: EngagementInput) =>
  trig(i) === t && tag(i) === waiting && triggerGen(i) === gen(i)
const engageFailed = (i: EngagementInput) =>
  outcome("CacheSyncFailed", "WaitingForSync")(i) ||
  (trig(i) === "EngageFailed" && scopeOpen(i) && triggerGen(i) === gen(i))
const retryDue = (i: EngagementInput) => {
  const s = i.observed.state
  return trig(i) === "RetryDue" && s._tag === "Failed" && i.now >= s.retryAt
}
const retryEarly = (i: EngagementInput) => {
  const s = i.observed.state
  return trig(i) === "RetryDue" && s._tag === "Failed" && i.now < s.retryAt
}
const request = (i: EngagementInput) => trig(i) === "RequestArrived"

// ---------------------------------------------------------------------------------------------
// Judging a result

const sansLogs = (r: EngagementResult) => r.actions.filter((a) => a._tag !== "Log")
const logs = (r: EngagementResult, level?: "info" | "warn") =>
  r.actions.filter((a) => a._tag === "Log" && (level === undefined || a.level === level)).length
const exactly = (r: EngagementResult, expected: ReadonlyArray<EngagementAction>) =>
  isDeepStrictEqual(sansLogs(r), expected)
const unchanged = (i: EngagementInput, r: EngagementResult) => isDeepStrictEqual(r.status, i.observed)
const nothing = (i: EngagementInput, r: EngagementResult) => r.actions.length === 0 && unchanged(i, r)
const becomes = (
  i: EngagementInput,
  r: EngagementResult,
  state: EngagementState,
  dropped = i.observed.dropped,
) => isDeepStrictEqual(r.status, { state, dropped })
const cancelIfOpen = (i: EngagementInput): ReadonlyArray<EngagementAction> => {
  const g = gen(i)
  return scopeOpen(i) && g !== undefined
    ? [{ _tag: "CancelEngageScope", cluster: i.desired.cluster, generation: g }]
    : []
}
const startCache = (i: EngagementInput, generation: string): EngagementAction => ({
  _tag: "StartCache",
  cluster: i.desired.cluster,
  generation,
})

/** Rows 1 and 3: the cache is started for the generation the provider gave, nothing else. */
const startsEngaging = (i: EngagementInput, r: EngagementResult) => {
  const g = triggerGen(i) ?? ""
  return (
    exactly(r, [startCache(i, g)]) &&
    logs(r) === 0 &&
    becomes(i, r, { _tag: "StartingCache", generation: g, failures: 0 })
  )
}
/** Rows 2, 4-6 and 15: nothing starts; the pair remembers the cluster, and why it is not engaged, in one log line. */
const excludes = (why: Why) => (i: EngagementInput, r: EngagementResult) =>
  exactly(r, []) &&
  logs(r, "info") === 1 &&
  becomes(i, r, { _tag: "Excluded", generation: triggerGen(i) ?? "", why })

const engageRetry = (failures: number, c: EngagementConfig) =>
  Math.min(c.engageRetry.max, c.engageRetry.initial * c.engageRetry.factor ** (failures - 1))

const drops =
  (reason: "ClusterNotFound" | "ClusterNotEngaged") => (i: EngagementInput, r: EngagementResult) => {
    const t = i.trigger
    if (t._tag !== "RequestArrived" || r.actions.length !== 1) return false
    const a = r.actions[0]
    return (
      a?._tag === "DropRequest" &&
      a.reason === reason &&
      a.cluster === i.desired.cluster &&
      a.namespace === t.namespace &&
      a.name === t.name &&
      a.detail.length > 0 &&
      a.log === (i.observed.dropped === 0) &&
      becomes(i, r, i.observed.state, i.observed.dropped + 1)
    )
  }

const ignoredStepOutcome = (i: EngagementInput) =>
  (trig(i) === "CacheStarted" && !outcome("CacheStarted", "StartingCache")(i)) ||
  (trig(i) === "CacheSynced" && !outcome("CacheSynced", "WaitingForSync")(i)) ||
  (trig(i) === "IndexesApplied" && !outcome("IndexesApplied", "ApplyingIndexes")(i)) ||
  (trig(i) === "SourcesStarted" && !outcome("SourcesStarted", "Engaging")(i)) ||
  ((trig(i) === "CacheSyncFailed" || trig(i) === "EngageFailed") && !engageFailed(i))

export const engagement: TableSpec<EngagementInput, EngagementResult, EngagementConfig> = {
  id: "multicluster.engagement",
  source: "003_424e4e9fdc1cae8c.txt",
  title: "Engagement of a controller with a cluster",
  columns: KRTT_COLUMNS,
  rows: [
    doc(
      1,
      [
        "`Absent`",
        "Cluster `\"\"` (the hub); some watch engages it: `EngageWithDefaultCluster` true, the watch's own or else the controller's (unset: true without a provider)",
        "The manager starts (`ClusterAdded`)",
        "`StartCache`",
        "`StartingCache`",
      ],
      {
        applies: (i) => arriving(i) && hub(i) && i.desired.watches.some((w) => watchOnHub(i, w)),
        holds: startsEngaging,
        reason:
          'Seed: "The embedded cluster corresponds to GetCluster(ctx, \\"\\")" and, without a provider, "Controller-runtime behaviour is unchanged": the hub is engaged. The manager adds the hub like a provider adds a cluster, so it goes through the same start → sync → indexes → engage steps. A `CredentialsChanged` for a cluster the pair has not seen counts as an add.',
      },
    ),
    doc(
      2,
      [
        "`Absent`",
        'Cluster `""`; no watch engages it (`EngageWithDefaultCluster` false, or unset with a provider)',
        "`ClusterAdded`",
        "None; log why",
        "`Excluded(local-disabled)`",
      ],
      {
        applies: (i) => arriving(i) && hub(i) && !i.desired.watches.some((w) => watchOnHub(i, w)),
        holds: excludes("local-disabled"),
        reason:
          'Seed: "For a manager with cluster.Provider, the builder SHOULD create a controller that sources events ONLY from the provider clusters"; hub controllers "explicitly pass the intention to engage ... with the default cluster (this is only necessary if a cluster provider is plugged in)". Upstream WithEngageWithLocalCluster: "defaults to false if a cluster provider is configured, and to true otherwise"; upstream sets it per watch (For, Owns and Watches each take it), the seed per controller: a watch\'s own option wins, the controller\'s is the default for its watches.',
      },
    ),
    doc(
      3,
      [
        "`Absent`",
        "Provider cluster; manager has a provider; some watch engages provider clusters (`EngageWithProviderClusters` true: its own, or for `Watches` the controller's, unset true) and its filters accept the cluster",
        "The provider engages the cluster (`ClusterAdded`)",
        "`StartCache`",
        "`StartingCache`",
      ],
      {
        applies: (i) =>
          arriving(i) &&
          !hub(i) &&
          i.desired.hasProvider &&
          providerWatches(i).some((w) => !rejectedFor(i, w)),
        holds: startsEngaging,
        reason:
          'Seed: providers "automatically start and stop sources ... when the cluster provider adds (\\"engages\\") or removes (\\"disengages\\") a cluster". Upstream WithEngageWithProviderClusters: "defaults to true if a cluster provider is set".',
      },
    ),
    doc(
      4,
      [
        "`Absent`",
        'Provider cluster (name not `""`); the manager has no provider',
        "`ClusterAdded`",
        "None; log why",
        "`Excluded(no-provider)`",
      ],
      {
        applies: (i) => arriving(i) && !hub(i) && !i.desired.hasProvider,
        holds: excludes("no-provider"),
        reason:
          'Seed: the manager gets "an optional cluster.Provider"; "We call the clusters with non-empty name \\"provider clusters\\"": without a provider there are none, and EngageWithProviderClusters "has no effect otherwise" (upstream).',
      },
    ),
    doc(
      5,
      [
        "`Absent`",
        "Provider cluster; the controller's `EngageWithProviderClusters` false and no watch's own option turns it on",
        "`ClusterAdded`",
        "None; log why",
        "`Excluded(provider-disabled)`",
      ],
      {
        applies: (i) =>
          arriving(i) &&
          !hub(i) &&
          i.desired.hasProvider &&
          i.desired.engageWithProviderClusters === false &&
          providerWatches(i).length === 0,
        holds: excludes("provider-disabled"),
        reason:
          "Seed's hub-only example: `EngageWithDefaultCluster: true, EngageWithProviderClusters: false`. Upstream issue #93: both options must be settable together (they are separate fields here). A watch that sets its own `engageWithProviderClusters: true` still engages (row 3): the more specific option wins.",
      },
    ),
    doc(
      6,
      [
        "`Absent`",
        "Provider cluster; the controller's `EngageWithProviderClusters` not false, but no watch engages provider clusters (`For`/`Owns` without their own option, or watches whose own option is false)",
        "`ClusterAdded`",
        "None; log why",
        "`Excluded(hub-only-watches)`",
      ],
      {
        applies: (i) =>
          arriving(i) &&
          !hub(i) &&
          i.desired.hasProvider &&
          i.desired.engageWithProviderClusters !== false &&
          providerWatches(i).length === 0,
        holds: excludes("hub-only-watches"),
        reason:
          'Seed: "Controllers that use Owns cannot be converted to multi-cluster controllers"; controllers "triggered by events on the hub cluster can continue to use For and Owns". For/Owns sources therefore start on the hub unless the watch itself asks for provider clusters (upstream: For, Owns and Watches each take WithEngageWithProviderClusters); a provider cluster that no watch engages would get no source at all, so it is not engaged.',
      },
    ),
    doc(
      7,
      [
        "`StartingCache(g)`",
        "Engaged by the options",
        "`CacheStarted(g)`",
        "`WaitForCacheSync(timeout)` for the controller's informers",
        "`WaitingForSync(g)`",
      ],
      {
        applies: outcome("CacheStarted", "StartingCache"),
        holds: (i, r, c) => {
          const s = i.observed.state
          return (
            s._tag === "StartingCache" &&
            exactly(r, [
              {
                _tag: "WaitForCacheSync",
                cluster: i.desired.cluster,
                generation: s.generation,
                timeout: c.cacheSyncTimeout,
              },
            ]) &&
            becomes(i, r, { _tag: "WaitingForSync", generation: s.generation, failures: s.failures })
          )
        },
        reason:
          "Seed: the engaged controller starts \"a new TypedSyncingSource\": sources sync before the controller relies on them. The wait is bounded (controller-runtime CacheSyncTimeout, 2 min) and covers the informers of this controller's watches, so the cache is not empty when it reports synced (upstream PR #95's concern with sync-before-engage).",
      },
    ),
    doc(
      8,
      [
        "`WaitingForSync(g)`",
        "Engaged by the options",
        "`CacheSynced(g)`",
        "`ApplyIndexes`",
        "`ApplyingIndexes(g)`",
      ],
      {
        applies: outcome("CacheSynced", "WaitingForSync"),
        holds: (i, r) => {
          const s = i.observed.state
          return (
            s._tag === "WaitingForSync" &&
            exactly(r, [{ _tag: "ApplyIndexes", cluster: i.desired.cluster, generation: s.generation }]) &&
            becomes(i, r, { _tag: "ApplyingIndexes", generation: s.generation, failures: s.failures })
          )
        },
        reason:
          'Seed Low-Level Requirements: "Allow reconcilers to look up objects through (informer) indexes from specific other clusters"; the provider\'s IndexField applies "on all engaged clusters, current and future" (upstream), so indexes are in place before any source delivers an event.',
      },
    ),
    doc(
      9,
      [
        "`ApplyingIndexes(g)`",
        "Engaged by the options; watches W",
        "`IndexesApplied(g)`",
        "`StartSources`: one source per watch of W that applies to the cluster (rows 1, 3: by its own engage options and filter), each with its own handler copy (`DeepCopyFor`)",
        "`Engaging(g)`",
      ],
      {
        applies: outcome("IndexesApplied", "ApplyingIndexes"),
        holds: (i, r) => {
          const s = i.observed.state
          return (
            s._tag === "ApplyingIndexes" &&
            exactly(r, [
              {
                _tag: "StartSources",
                cluster: i.desired.cluster,
                generation: s.generation,
                watches: watchesFor(i),
              },
            ]) &&
            becomes(i, r, { _tag: "Engaging", generation: s.generation, failures: s.failures })
          )
        },
        reason:
          'Seed: "cluster-aware controllers ... are responsible for starting watches on clusters when they are engaged"; a passed TypedEventHandler "will be duplicated per engaged cluster" when it implements DeepCopyFor.',
      },
    ),
    doc(10, ["`Engaging(g)`", "Engaged by the options", "`SourcesStarted(g)`", "None", "`Engaged(g)`"], {
      applies: outcome("SourcesStarted", "Engaging"),
      holds: (i, r) => {
        const s = i.observed.state
        return (
          s._tag === "Engaging" &&
          exactly(r, []) &&
          becomes(i, r, { _tag: "Engaged", generation: s.generation }, 0) &&
          logs(r, "warn") === 0
        )
      },
      reason:
        "Engaged: the drop counter restarts, so the next departure logs its first dropped request again (row 17).",
    }),
    doc(
      11,
      [
        "Any but `Absent`",
        "Any",
        "The provider removes the cluster (`ClusterRemoved`)",
        "`CancelEngageScope(g)` when one may be open (cache starting to `Engaged`)",
        "`Absent`",
      ],
      {
        applies: (i) => trig(i) === "ClusterRemoved" && tag(i) !== "Absent",
        holds: (i, r) =>
          r.actions.length === cancelIfOpen(i).length &&
          exactly(r, cancelIfOpen(i)) &&
          becomes(i, r, { _tag: "Absent" }),
        reason:
          'Seed: Engage\'s context "will be cancelled when the Cluster is removed"; the source wraps "the context passed down from the call to Engage, which MUST be canceled by the cluster provider at the end of a cluster\'s lifecycle"; Disengage "should stop operations". Cancelling the scope closes every source of that engagement.',
      },
    ),
    doc(
      12,
      [
        "`Engaged(g)`",
        "Any",
        "A request `{cluster, namespace, name}` of this controller",
        "`Reconcile`",
        "No change",
      ],
      {
        applies: (i) => request(i) && tag(i) === "Engaged",
        holds: (i, r) => {
          const t = i.trigger
          return (
            t._tag === "RequestArrived" &&
            isDeepStrictEqual(r.actions, [
              { _tag: "Reconcile", cluster: i.desired.cluster, namespace: t.namespace, name: t.name },
            ]) &&
            unchanged(i, r)
          )
        },
        reason:
          'Seed: "reconcilers get reconcile requests in cluster X and do all reconciliation in cluster X"; the request carries its cluster name (BYO ClusterRequest).',
      },
    ),
    doc(
      13,
      [
        "Any but `Absent`, generation g",
        "Any",
        "`ClusterAdded(g)` or `CredentialsChanged(g)` again",
        "None",
        "No change",
      ],
      {
        applies: again,
        holds: nothing,
        reason:
          'Seed: Engage implementers "should ensure this operation is re-entrant and non-blocking". Upstream engages the same cluster object once (`old.cluster == cl`).',
      },
    ),
    doc(
      14,
      [
        "`StartingCache(g)` … `Engaged(g)`, n failures so far",
        "Any",
        "`CacheSyncFailed(g)` (error or timeout) while syncing, or `EngageFailed(g)` (a step or a live source failed)",
        "`CancelEngageScope(g)` if open; `RetryAfter(min(max, initial·factor^n))` (1 s doubling to 5 min)",
        "`Failed(g, n+1, retryAt)`",
      ],
      {
        applies: engageFailed,
        holds: (i, r, c) => {
          const g = gen(i) ?? ""
          const failures = failuresBefore(i) + 1
          const after = engageRetry(failures, c)
          const s = r.status.state
          return (
            exactly(r, [...cancelIfOpen(i), { _tag: "RetryAfter", cluster: i.desired.cluster, after }]) &&
            logs(r, "warn") === 1 &&
            s._tag === "Failed" &&
            s.generation === g &&
            s.failures === failures &&
            s.retryAt === i.now + after &&
            s.error.length > 0 &&
            r.status.dropped === i.observed.dropped
          )
        },
        reason:
          'Seed: Engage implementers "should return an error if they cannot start operations for the given Cluster", and the context is cancelled "when ... an error occurs". The seed gives no retry: upstream providers return the error to their reconcile loop, which retries with controller-runtime\'s rate limiter (5 ms doubling to 1000 s). Engaging costs one list per watch, so the first retry waits 1 s and the wait stops growing at 5 min (the ClusterCache\'s documented initial sync timeout), bounding recovery time after an outage.',
      },
    ),
    derived(
      15,
      [
        "`Absent`",
        "Provider cluster; some watch engages provider clusters, but for each of them a cluster filter (the controller's or the watch's own) rejects it",
        "`ClusterAdded`",
        "None; log why",
        "`Excluded(filtered)`",
      ],
      {
        applies: (i) =>
          arriving(i) &&
          !hub(i) &&
          i.desired.hasProvider &&
          providerWatches(i).length > 0 &&
          providerWatches(i).every((w) => rejectedFor(i, w)),
        holds: excludes("filtered"),
        reason:
          'Gap: the seed has no per-controller cluster selection. Upstream\'s WithClusterFilter "applies only if WithEngageWithProviderClusters is true"; upstream takes it per watch (For, Owns, Watches). Here the controller may have one and each watch its own; a watch runs on a cluster only if both accept it, and a cluster is engaged while one watch runs on it. The verdicts are computed by the shell when the cluster is added or replaced (the table sees them as data). Filters do not apply to the hub.',
      },
    ),
    derived(
      16,
      [
        "Any but `Absent`, generation g",
        "Any",
        "`CredentialsChanged(g')` or `ClusterAdded(g')`, g' ≠ g",
        "`CancelEngageScope(g)` if open; then as rows 1-6/15 for g': `StartCache(g')` or none",
        "`StartingCache(g')` (failures 0) or `Excluded(g')`",
      ],
      {
        applies: replaced,
        holds: (i, r) => {
          const g2 = triggerGen(i) ?? ""
          const why = exclusion(i)
          const after = why === undefined ? [startCache(i, g2)] : []
          const state: EngagementState =
            why === undefined
              ? { _tag: "StartingCache", generation: g2, failures: 0 }
              : { _tag: "Excluded", generation: g2, why }
          return exactly(r, [...cancelIfOpen(i), ...after]) && becomes(i, r, state)
        },
        reason:
          "Gap: the seed engages a cluster once. Upstream's kubeconfig provider (PR #45) hashes the kubeconfig and, when it changed, removes and re-adds the cluster; PR #75 re-engages when the provider returns a new cluster object for the same name. Here the old engagement is cancelled first, so its sources stop before the new generation's start, and a retry counter of the old credentials does not slow the new ones. A new generation also ends `Unhealthy` and `Failed`: their health verdict and failures belonged to the old credentials (a 401 is what rotated credentials fix), and the provider reports the new cluster object unhealthy if its probes say so.",
      },
    ),
    derived(
      17,
      [
        "`Absent`",
        "Any",
        "A request for the cluster",
        "`DropRequest(ClusterNotFound)`, logged only when it is the first drop since the last engagement",
        "Drop counter + 1",
      ],
      {
        applies: (i) => request(i) && tag(i) === "Absent",
        holds: drops("ClusterNotFound"),
        reason:
          "Gap: the seed's reconciler snippet returns GetCluster's error, which requeues the request forever once its cluster is gone (upstream issue/PR #32). Upstream adds ErrClusterNotFound and a ClusterNotFoundWrapper that ends the request without requeue; here the runtime drops it before the reconciler runs, logs one line per departure (not per request) and counts the rest.",
      },
    ),
    derived(
      18,
      [
        "`Excluded`, `Failed` or `Unhealthy`",
        "Any",
        "A request for the cluster",
        "`DropRequest(ClusterNotEngaged)`, logged only when it is the first drop since the last engagement",
        "Drop counter + 1",
      ],
      {
        applies: (i) => request(i) && is("Excluded", "Failed", "Unhealthy")(i),
        holds: drops("ClusterNotEngaged"),
        reason:
          "Gap: the seed does not say what happens to a request for a cluster the controller is not engaged with. Reconciling would use a cache that is not synced (or not started); requeueing would retry for as long as the cluster stays out. It is dropped: when the cluster is engaged again, its sources list every object and enqueue fresh requests.",
      },
    ),
    derived(
      19,
      [
        "`StartingCache`, `WaitingForSync`, `ApplyingIndexes` or `Engaging`",
        "Any",
        "A request for the cluster",
        "`RequeueRequest(after 1 s)`",
        "No change",
      ],
      {
        applies: (i) => request(i) && underWay(i),
        holds: (i, r, c) => {
          const t = i.trigger
          return (
            t._tag === "RequestArrived" &&
            isDeepStrictEqual(r.actions, [
              {
                _tag: "RequeueRequest",
                cluster: i.desired.cluster,
                namespace: t.namespace,
                name: t.name,
                after: c.requeueWhileEngaging,
              },
            ]) &&
            unchanged(i, r)
          )
        },
        reason:
          "Gap: a request can name a cluster whose engagement is under way (a hub event mapped to a provider cluster). Dropping it would lose an event that the cluster's own sources will not replay; it waits instead. Not forever: an engagement under way ends engaged (row 12), failed or unhealthy (row 18) or removed (row 17) within the cache sync timeout.",
      },
    ),
    derived(
      20,
      [
        "`Failed(g, n, retryAt)`",
        "Any",
        "`RetryDue`, `now >= retryAt`",
        "`StartCache(g)`",
        "`StartingCache(g, n)`",
      ],
      {
        applies: retryDue,
        holds: (i, r) => {
          const s = i.observed.state
          return (
            s._tag === "Failed" &&
            exactly(r, [startCache(i, s.generation)]) &&
            becomes(i, r, { _tag: "StartingCache", generation: s.generation, failures: s.failures })
          )
        },
        reason:
          "Gap: retry of row 14. Due once the delay has fully elapsed (`>=`), like the ClusterCache's retry interval; the failure count is kept so the next failure waits longer.",
      },
    ),
    derived(
      21,
      [
        "`Failed(g, n, retryAt)`",
        "Any",
        "`RetryDue`, `now < retryAt`",
        "`RetryAfter(retryAt - now)`",
        "No change",
      ],
      {
        applies: retryEarly,
        holds: (i, r) => {
          const s = i.observed.state
          return (
            s._tag === "Failed" &&
            isDeepStrictEqual(r.actions, [
              { _tag: "RetryAfter", cluster: i.desired.cluster, after: s.retryAt - i.now },
            ]) &&
            unchanged(i, r)
          )
        },
        reason:
          "Gap: a timer that fires early (clock skew, a stale timer) re-arms for the time left; no attempt before `retryAt`.",
      },
    ),
    derived(
      22,
      [
        "`StartingCache` … `Engaged`, or `Failed`",
        "Any",
        "The provider reports the cluster unhealthy (`ClusterUnhealthy`)",
        "`CancelEngageScope(g)` if open; log",
        "`Unhealthy(g)`",
      ],
      {
        applies: (i) => trig(i) === "ClusterUnhealthy" && (scopeOpen(i) || tag(i) === "Failed"),
        holds: (i, r) => {
          const t = i.trigger
          return (
            t._tag === "ClusterUnhealthy" &&
            exactly(r, cancelIfOpen(i)) &&
            logs(r, "info") === 1 &&
            becomes(i, r, { _tag: "Unhealthy", generation: gen(i) ?? "", reason: t.reason })
          )
        },
        reason:
          "Gap (health-gated engagement, which no upstream provider has): upstream keeps an unreachable cluster engaged, its sources failing and its requests erroring. Here the provider's health verdict (e.g. the ClusterCache's failure threshold or a 401) disengages it; a pending retry is dropped (a `RetryDue` in `Unhealthy` is ignored, row 24).",
      },
    ),
    derived(
      23,
      ["`Unhealthy(g)`", "Any", "`ClusterHealthy`", "`StartCache(g)`", "`StartingCache(g)` (failures 0)"],
      {
        applies: (i) => trig(i) === "ClusterHealthy" && tag(i) === "Unhealthy",
        holds: (i, r) => {
          const s = i.observed.state
          return (
            s._tag === "Unhealthy" &&
            exactly(r, [startCache(i, s.generation)]) &&
            becomes(i, r, { _tag: "StartingCache", generation: s.generation, failures: 0 })
          )
        },
        reason:
          "Gap: the counterpart of row 22: re-engaged from the start (cache, sync, indexes, sources) when the provider reconnects; the old sources were cancelled, so none is left over.",
      },
    ),
    derived(
      24,
      [
        "Any",
        "Any",
        "A trigger that does not concern the state: an outcome of another generation or step, `RetryDue` when not `Failed`, `ClusterHealthy` when not `Unhealthy`, `ClusterUnhealthy` when nothing is engaged or under way, `ClusterRemoved` when `Absent`",
        "None",
        "No change",
      ],
      {
        applies: (i) =>
          ignoredStepOutcome(i) ||
          (trig(i) === "RetryDue" && tag(i) !== "Failed") ||
          (trig(i) === "ClusterHealthy" && tag(i) !== "Unhealthy") ||
          (trig(i) === "ClusterUnhealthy" && is("Absent", "Excluded", "Unhealthy")(i)) ||
          (trig(i) === "ClusterRemoved" && tag(i) === "Absent"),
        holds: nothing,
        reason:
          "Gap: steps run outside any lock, so their outcomes can arrive after the pair moved on (removed, replaced, unhealthy). A late outcome of an older generation must not advance the new one: the generation in every outcome makes it stale, and the state it belonged to was already cancelled.",
      },
    ),
  ],
  priority: [],
  resolutions: [
    "The seed is a design, not a table: its rules are rows 1-14 in the order a cluster meets them; rows 15-24 are derived, each with its reason.",
    'Options (upstream multicluster-runtime defaults): engageWithLocalCluster unset is true without a provider and false with one; engageWithProviderClusters unset is true and has no effect without a provider; the cluster filter applies to provider clusters only. Upstream issue #96 asks to treat the local cluster as "just another provider"; here the hub is a pair like any other (same rows), only its name `""` and its default differ.',
    "Order (upstream PR #74 review: start → engage, since engaging before the cache runs can block on sync): start cache → wait for the controller's informers to sync → apply indexes → start sources. Each step is one action whose outcome the shell feeds back with the generation it ran for.",
    "Indexes after the sync: upstream PR #16 adds the provider's indexes before the cache starts, because client-go informers refused new indexers once started. The project's cache adds an index to present and future informers (shell/cache/types.ts `indexField`), so the order of the issue holds and every index is in place before the first source delivers an event (row 9 comes after row 8). Several controllers engage the same cluster, so `ApplyIndexes` must be idempotent per index name (upstream PR #180: an index applied twice crashed a provider).",
    "No two rows apply to the same input, so no priority is needed: exclusions (rows 2, 4-6, 15) are checked in the order hub/no provider/provider clusters off/filter/For-Owns only.",
    "Disengage: the seed's Aware has both Engage and Disengage; upstream kept only Engage and relies on cancelling its context. Here either one (the provider's `disengage`, or the engage scope closing) is the trigger `ClusterRemoved` (row 11), and cancelling is idempotent, so both arriving is harmless.",
    "A controller added after the provider engaged its clusters (kcp api-syncagent #100: such controllers never got Engage) starts with every pair `Absent`; the manager feeds it `ClusterAdded` for every cluster the provider has at that moment, so it goes through rows 1-6 like the others.",
    "Sharding (upstream #74/#75: ErrClusterNotOwned and an OwnershipWrapper that re-checks ownership per request): for a replica, a cluster it does not own is not added, and a cluster whose ownership moves away is `ClusterRemoved`; its queued requests are then dropped by row 17, which is what the wrapper achieves, without a second check in every reconcile.",
    "A pair only learns about the cluster through triggers: the provider's generation (a hash of the kubeconfig, never the kubeconfig) identifies credentials, so rotated credentials re-engage (row 16) and an unchanged Secret update does not (row 13), as upstream's kubeconfig provider hashes its Secret (PR #45).",
    "Providers (shell/multicluster/providers/, docs/providers.md) feed rows 21-23's health triggers with seed 000's Health Checking numbers (probe GET / every 10 s, 5 s timeout, threshold 5, a 401 at once): seed 003 says nothing of unreachable clusters and upstream's providers never disengage them. A cluster is engaged only after its first successful probe (an unreachable cluster's watches could not sync); a cluster not engaged is probed again every interval, not seed 000's 30 s connection retry, so one that recovers is back within one interval; a 403 on GET / counts as an answer (a namespace-only identity is reachable). The cluster-api provider takes these triggers from the ClusterCache instead of probing a second time.",
    "A new generation (row 16) reaches the manager as the old cluster leaving and the new one arriving, never both engaged at once: the seed's engage scope 'MUST be canceled by the cluster provider at the end of a cluster's lifecycle', and a rotation ends the old generation's lifecycle.",
    "getCluster(name) answers only clusters engaged now (ClusterNotFound otherwise): a reconciler of a request whose cluster left gets the typed error rather than a client of a cluster no longer watched; the request itself is dropped by row 17/18 before it reaches the reconciler.",
    "With a provider, a controller built with For/Owns must set engageWithLocalCluster to be engaged with the hub (row 2), as upstream's builder requires; For and Owns always watch the hub only, never provider clusters (seed: 'Controllers that use Owns cannot be converted to multi-cluster controllers'; provider clusters are watched with Watches).",
  ],
}
