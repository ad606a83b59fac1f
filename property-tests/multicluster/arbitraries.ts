/**
 * fast-check generators for the engagement table's inputs, biased so that every row of
 * `multicluster.engagement` decides a good share of them (the coverage report asks for 50 of
 * 2,000): scenarios aim at a state and a trigger that meet (a step's outcome for the state
 * waiting for it, a retry exactly due, 1 ms before or after), and a share is drawn freely.
 *
 * @module
 */
import fc from "fast-check"
import type {
  Engagement,
  EngagementInput,
  EngagementOptions,
  EngagementState,
  EngagementTrigger,
  WatchSpec,
} from "../../core/multicluster/index.ts"

const NOW = { min: 1_700_000_000_000, max: 1_800_000_000_000 }
export const nowArb = fc.integer(NOW)

export const GENERATIONS = ["g1", "g2", "g3"] as const
export const generationArb = fc.constantFrom(...GENERATIONS)
export const CLUSTERS = ["", "east", "west", "fleet/prod-1"] as const

const maybeBool = fc.constantFrom(undefined, true, false)
/** A watch's own option: unset half of the time, so that the controller's options still decide often. */
const ownBool = fc.oneof({ weight: 2, arbitrary: fc.constant(undefined) }, fc.boolean())
const ownFilter = fc.oneof(
  { weight: 3, arbitrary: fc.constant(undefined) },
  fc.constantFrom("accept" as const, "reject" as const),
)

const watchArb: fc.Arbitrary<WatchSpec> = fc
  .record({
    base: fc.constantFrom(
      { name: "For(apps/v1/Deployment)", kind: "For" as const },
      { name: "Owns(apps/v1/ReplicaSet)", kind: "Owns" as const },
      { name: "Watches(v1/ConfigMap)", kind: "Watches" as const },
      { name: "Watches(v1/Secret)", kind: "Watches" as const },
      { name: "Watches(v1/Pod)", kind: "Watches" as const },
    ),
    engageWithLocalCluster: ownBool,
    engageWithProviderClusters: ownBool,
    clusterFilter: ownFilter,
  })
  .map(
    ({ base, engageWithLocalCluster, engageWithProviderClusters, clusterFilter }): WatchSpec => ({
      ...base,
      ...(engageWithLocalCluster === undefined ? {} : { engageWithLocalCluster }),
      ...(engageWithProviderClusters === undefined ? {} : { engageWithProviderClusters }),
      ...(clusterFilter === undefined ? {} : { clusterFilter }),
    }),
  )
export const watchesArb = fc.uniqueArray(watchArb, { selector: (w) => w.name, maxLength: 4 })

export const optionsArb = (
  cluster: fc.Arbitrary<string> = fc.constantFrom(...CLUSTERS),
  hasProvider: fc.Arbitrary<boolean> = fc.boolean(),
) =>
  fc
    .record({
      cluster,
      hasProvider,
      engageWithLocalCluster: maybeBool,
      engageWithProviderClusters: maybeBool,
      clusterFilter: fc.constantFrom(undefined, "accept" as const, "reject" as const),
      watches: watchesArb,
    })
    .map((o): EngagementOptions => {
      const { engageWithLocalCluster, engageWithProviderClusters, clusterFilter, ...rest } = o
      return {
        ...rest,
        ...(engageWithLocalCluster === undefined ? {} : { engageWithLocalCluster }),
        ...(engageWithProviderClusters === undefined ? {} : { engageWithProviderClusters }),
        ...(clusterFilter === undefined ? {} : { clusterFilter }),
      }
    })

export type Tag = EngagementState["_tag"]
export const TAGS: ReadonlyArray<Tag> = [
  "Absent",
  "Excluded",
  "StartingCache",
  "WaitingForSync",
  "ApplyingIndexes",
  "Engaging",
  "Engaged",
  "Failed",
  "Unhealthy",
]
const UNDER_WAY: ReadonlyArray<Tag> = ["StartingCache", "WaitingForSync", "ApplyingIndexes", "Engaging"]

/** A state of one of `tags`, at `now` (a `Failed` retry time lies within 10 s either side). */
export const stateArb = (now: number, tags: ReadonlyArray<Tag> = TAGS): fc.Arbitrary<EngagementState> =>
  fc
    .record({
      tag: fc.constantFrom(...tags),
      generation: generationArb,
      failures: fc.integer({ min: 0, max: 6 }),
      retryIn: fc.oneof(fc.constantFrom(-1, 0, 1), fc.integer({ min: -10_000, max: 10_000 })),
      why: fc.constantFrom(
        "local-disabled" as const,
        "no-provider" as const,
        "provider-disabled" as const,
        "filtered" as const,
        "hub-only-watches" as const,
      ),
      text: fc.constantFrom("connection refused", "probe failed 5 times", "Unauthorized"),
    })
    .map(({ tag, generation, failures, retryIn, why, text }): EngagementState => {
      switch (tag) {
        case "Absent":
          return { _tag: "Absent" }
        case "Excluded":
          return { _tag: "Excluded", generation, why }
        case "Engaged":
          return { _tag: "Engaged", generation }
        case "Failed":
          return { _tag: "Failed", generation, failures: failures + 1, retryAt: now + retryIn, error: text }
        case "Unhealthy":
          return { _tag: "Unhealthy", generation, reason: text }
        default:
          return { _tag: tag, generation, failures }
      }
    })

export const engagementArb = (now: number, tags?: ReadonlyArray<Tag>): fc.Arbitrary<Engagement> =>
  fc.record({
    state: stateArb(now, tags),
    dropped: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 5 })),
  })

/** A generation: the state's own most of the time, else any. */
const genNear = (s: EngagementState) =>
  "generation" in s
    ? fc.oneof({ weight: 3, arbitrary: fc.constant(s.generation) }, generationArb)
    : generationArb

type TriggerTag = EngagementTrigger["_tag"]
export const TRIGGER_TAGS: ReadonlyArray<TriggerTag> = [
  "ClusterAdded",
  "ClusterRemoved",
  "CredentialsChanged",
  "CacheStarted",
  "CacheSynced",
  "CacheSyncFailed",
  "IndexesApplied",
  "SourcesStarted",
  "EngageFailed",
  "ClusterUnhealthy",
  "ClusterHealthy",
  "RetryDue",
  "RequestArrived",
]

/** A trigger of one of `tags`, its generation near the state's. */
export const triggerArb = (
  s: EngagementState,
  tags: ReadonlyArray<TriggerTag> = TRIGGER_TAGS,
): fc.Arbitrary<EngagementTrigger> =>
  fc
    .record({
      tag: fc.constantFrom(...tags),
      generation: genNear(s),
      timedOut: fc.boolean(),
      error: fc.constantFrom("", "connection refused", "forbidden: cannot list pods"),
      step: fc.constantFrom("startCache" as const, "indexes" as const, "sources" as const),
      namespace: fc.constantFrom("", "default", "kube-system"),
      name: fc.constantFrom("a", "b", "web"),
    })
    .map(({ tag, generation, timedOut, error, step, namespace, name }): EngagementTrigger => {
      switch (tag) {
        case "ClusterAdded":
        case "CredentialsChanged":
        case "CacheStarted":
        case "CacheSynced":
        case "IndexesApplied":
        case "SourcesStarted":
          return { _tag: tag, generation }
        case "CacheSyncFailed":
          return { _tag: tag, generation, timedOut, error: error === "" && !timedOut ? "sync failed" : error }
        case "EngageFailed":
          return { _tag: tag, generation, step, error: error === "" ? "failed" : error }
        case "ClusterUnhealthy":
          return { _tag: tag, reason: error === "" ? "probe failed 5 times" : error }
        case "ClusterRemoved":
        case "ClusterHealthy":
        case "RetryDue":
          return { _tag: tag }
        default:
          return { _tag: "RequestArrived", namespace, name }
      }
    })

/** Options for an arriving cluster: the hub 40% of the time. */
const arrivalOptions = optionsArb(
  fc.oneof(
    { weight: 2, arbitrary: fc.constant("") },
    { weight: 3, arbitrary: fc.constantFrom(...CLUSTERS.slice(1)) },
  ),
  fc.boolean(),
)

/** The hub arriving, `engageWithLocalCluster` true, false or unset. */
const hubArrival = optionsArb(fc.constant("")).chain((o) =>
  fc.constantFrom(true, false, undefined).map((local): EngagementOptions => {
    const { engageWithLocalCluster: _, ...rest } = o
    return local === undefined ? rest : { ...rest, engageWithLocalCluster: local }
  }),
)

/** A provider cluster arriving at a manager with a provider, engaged unless its filter rejects it. */
const providerArrival = fc
  .tuple(
    optionsArb(fc.constantFrom("east", "west", "fleet/prod-1"), fc.constant(true)),
    fc.constantFrom("accept" as const, "reject" as const),
  )
  .map(([o, clusterFilter]): EngagementOptions => {
    const { engageWithProviderClusters: _, ...rest } = o
    return {
      ...rest,
      clusterFilter,
      watches: [
        ...o.watches.filter((w) => w.kind !== "Watches" && w.engageWithProviderClusters !== true),
        { name: "Watches(v1/Node)", kind: "Watches" },
      ],
    }
  })

/** A provider cluster of a manager with a provider, for a controller with only For/Owns watches. */
const hubOnlyController = fc.constantFrom("east", "west").map(
  (cluster): EngagementOptions => ({
    cluster,
    hasProvider: true,
    watches: [
      { name: "For(apps/v1/Deployment)", kind: "For" },
      { name: "Owns(apps/v1/ReplicaSet)", kind: "Owns" },
    ],
  }),
)

/** A provider cluster of a manager whose controller turned provider clusters off. */
const providerOff = optionsArb(fc.constantFrom("east", "fleet/prod-1"), fc.constant(true)).map(
  (o): EngagementOptions => ({ ...o, engageWithProviderClusters: false }),
)

/** An input whose state is one of `tags` and whose trigger is one of `triggers`. */
const scenario = (
  tags: ReadonlyArray<Tag>,
  triggers: ReadonlyArray<TriggerTag>,
  desired: fc.Arbitrary<EngagementOptions> = optionsArb(),
) =>
  nowArb.chain((now) =>
    engagementArb(now, tags).chain((observed) =>
      fc.record({
        observed: fc.constant(observed),
        desired,
        trigger: triggerArb(observed.state, triggers),
        now: fc.constant(now),
      }),
    ),
  )

/** A `Failed` pair and `RetryDue` at exactly `retryAt`, 1 ms before or 1 ms after. */
const retryBoundary = nowArb.chain((now) =>
  fc.record({
    observed: engagementArb(now, ["Failed"]),
    desired: optionsArb(),
    trigger: fc.constant({ _tag: "RetryDue" as const }),
    now: fc.constantFrom(now - 1, now, now + 1),
  }),
)

/** A pair that knows the cluster, and the provider giving it under another generation. */
const replacement = nowArb.chain((now) =>
  engagementArb(now, TAGS.slice(1)).chain((observed) =>
    fc.record({
      observed: fc.constant(observed),
      desired: optionsArb(),
      trigger: fc.record({
        _tag: fc.constantFrom("ClusterAdded" as const, "CredentialsChanged" as const),
        generation: generationArb.filter(
          (g) => !("generation" in observed.state) || g !== observed.state.generation,
        ),
      }),
      now: fc.constant(now),
    }),
  ),
)

/** Inputs of `multicluster.engagement`. */
export const engagementInput: fc.Arbitrary<EngagementInput> = fc.oneof(
  // a cluster arrives: rows 1-6 and 15, by the options
  { weight: 7, arbitrary: scenario(["Absent"], ["ClusterAdded", "CredentialsChanged"], arrivalOptions) },
  { weight: 2, arbitrary: scenario(["Absent"], ["ClusterAdded", "CredentialsChanged"], hubArrival) },
  { weight: 3, arbitrary: scenario(["Absent"], ["ClusterAdded", "CredentialsChanged"], providerArrival) },
  { weight: 2, arbitrary: scenario(["Absent"], ["ClusterAdded", "CredentialsChanged"], hubOnlyController) },
  { weight: 2, arbitrary: scenario(["Absent"], ["ClusterAdded", "CredentialsChanged"], providerOff) },
  // the steps of an engagement, each meeting the state that waits for it (rows 7-10), or failing (row 14)
  { weight: 3, arbitrary: scenario(["StartingCache"], ["CacheStarted"]) },
  { weight: 3, arbitrary: scenario(["WaitingForSync"], ["CacheSynced"]) },
  { weight: 3, arbitrary: scenario(["ApplyingIndexes"], ["IndexesApplied"]) },
  { weight: 3, arbitrary: scenario(["Engaging"], ["SourcesStarted"]) },
  { weight: 2, arbitrary: scenario(["WaitingForSync"], ["CacheSyncFailed"]) },
  { weight: 2, arbitrary: scenario(TAGS, ["EngageFailed"]) },
  // removal, re-entrant adds and replacements (rows 11, 13, 16)
  { weight: 2, arbitrary: scenario(TAGS, ["ClusterRemoved"]) },
  { weight: 3, arbitrary: scenario(TAGS.slice(1), ["ClusterAdded", "CredentialsChanged"]) },
  { weight: 2, arbitrary: replacement },
  // requests (rows 12, 17-19)
  { weight: 3, arbitrary: scenario(["Engaged"], ["RequestArrived"]) },
  { weight: 2, arbitrary: scenario(["Absent"], ["RequestArrived"]) },
  { weight: 2, arbitrary: scenario(["Excluded", "Failed", "Unhealthy"], ["RequestArrived"]) },
  { weight: 2, arbitrary: scenario(UNDER_WAY, ["RequestArrived"]) },
  // retries (rows 20, 21), including the exact boundaries
  { weight: 1, arbitrary: scenario(["Failed"], ["RetryDue"]) },
  { weight: 3, arbitrary: retryBoundary },
  // health (rows 22, 23)
  { weight: 2, arbitrary: scenario([...UNDER_WAY, "Engaged", "Failed"], ["ClusterUnhealthy"]) },
  { weight: 1, arbitrary: scenario(TAGS, ["ClusterUnhealthy", "ClusterHealthy"]) },
  { weight: 2, arbitrary: scenario(["Unhealthy"], ["ClusterHealthy"]) },
  // anything (row 24 and the rest)
  { weight: 1, arbitrary: scenario(TAGS, TRIGGER_TAGS) },
)

export const inputs = {
  "multicluster.engagement": engagementInput,
} as const
