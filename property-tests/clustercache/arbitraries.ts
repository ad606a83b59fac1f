/**
 * fast-check generators for the ClusterCache tables' inputs, biased so that every documented
 * row decides a good share of the generated inputs (the coverage report asks for 50 of 2,000).
 *
 * Times are generated relative to `now`, in ranges around the documented defaults (10 s probe
 * interval, 30 s retry interval, threshold 5), so that both sides of every boundary are hit.
 *
 * @module
 */
import fc from "fast-check"
import type {
  AccessorInput,
  AccessorState,
  ClusterSource,
  ClusterView,
  ErrorsInput,
  EventsInput,
  HealthInput,
  ReconcilerInput,
  WatchInput,
} from "../../core/clustercache/index.ts"

const NOW = { min: 1_700_000_000_000, max: 1_800_000_000_000 }
export const nowArb = fc.integer(NOW)

/** The documented durations a time is compared with (seed 000): probe interval, retry interval. */
export const PROBE_INTERVAL_EDGE = 10_000
export const RETRY_INTERVAL_EDGE = 30_000
/** The cluster sources' probe-failure durations the generators use (Event Trigger Conditions). */
export const PROBE_FAILURE_DURATIONS = [5_000, 60_000, 120_000, 300_000] as const

/** An age exactly at one of the edges, 1 ms before or 1 ms after it. */
export const nearEdge = (edges: ReadonlyArray<number>) =>
  fc.constantFrom(...edges.flatMap((e) => [e - 1, e, e + 1]))

/**
 * `now - ago`, or undefined ("never") now and then. A quarter of the ages fall exactly on an
 * edge or 1 ms to either side, so that every `<`, `<=` and strict `Before` in the tables is
 * decided at its boundary (uniform ages alone hit an exact millisecond almost never).
 */
const before = (now: number, maxAgo: number, never = 0.15, edges: ReadonlyArray<number> = []) =>
  fc.oneof(
    {
      weight: Math.round((1 - never) * (edges.length === 0 ? 100 : 75)),
      arbitrary: fc.integer({ min: 0, max: maxAgo }).map((ago) => now - ago),
    },
    ...(edges.length === 0
      ? []
      : [{ weight: Math.round((1 - never) * 25), arbitrary: nearEdge(edges).map((ago) => now - ago) }]),
    { weight: Math.round(never * 100), arbitrary: fc.constant(undefined) },
  )

/**
 * A stored failure count, biased to the threshold's edge: the tables compare the count after one
 * more failure with the threshold (5), so 4 is the edge and 3, 4 and 5 decide both sides of it.
 */
const failures = (max: number) =>
  fc.oneof({ weight: 4, arbitrary: fc.integer({ min: 0, max }) }, { weight: 1, arbitrary: nearEdge([4]) })

const sourceNames = ["machine", "machinehealthcheck", "machinepool", "cluster"] as const
const watchNames = ["node-watcher", "pod-watcher", "machine-node-watcher", "configmap-watcher", "x"] as const

export const sortedWatches = fc
  .uniqueArray(fc.constantFrom(...watchNames), { maxLength: 4 })
  .map((w) => [...w].sort())

const lastEventSent = (now: number) =>
  fc
    .uniqueArray(fc.tuple(fc.constantFrom(...sourceNames), fc.integer({ min: 0, max: 600_000 })), {
      selector: ([n]) => n,
      maxLength: 4,
    })
    .map((entries) => Object.fromEntries(entries.map(([n, ago]) => [n, now - ago])))

/** Any accessor state, at `now`. */
export const accessorArb = (
  now: number,
  overrides: Partial<Record<keyof AccessorState, fc.Arbitrary<unknown>>> = {},
) =>
  fc.record({
    connected: fc.boolean(),
    lastConnectionCreationErrorTime: before(now, 60_000, 0.3, [RETRY_INTERVAL_EDGE]),
    lastProbeTime: before(now, 20_000, 0.15, [PROBE_INTERVAL_EDGE]),
    lastProbeSuccessTime: before(now, 600_000, 0.15, PROBE_FAILURE_DURATIONS),
    consecutiveFailures: failures(7),
    watches: sortedWatches,
    lastEventSent: lastEventSent(now),
    privateKeyGenerated: fc.boolean(),
    ...overrides,
  }) as fc.Arbitrary<AccessorState>

const withNow = <T>(f: (now: number) => fc.Arbitrary<T>) => nowArb.chain(f)

// ---------------------------------------------------------------------------------------------
// Health Checking

const healthTrigger = fc.oneof(
  fc.constant({ _tag: "HealthCheck" as const }),
  fc
    .constantFrom("success", "failure", "unauthorized")
    .map((outcome) => ({ _tag: "ProbeResult" as const, outcome })),
)

export const healthInput: fc.Arbitrary<HealthInput> = withNow((now) =>
  fc.record({
    observed: accessorArb(now),
    desired: fc.constant({}),
    trigger: healthTrigger,
    now: fc.constant(now),
  }),
)

// ---------------------------------------------------------------------------------------------
// clusterAccessor Connect/Disconnect

const accessorTrigger = fc.oneof(
  fc.constant({ _tag: "Connect" as const }),
  fc.constant({ _tag: "Disconnect" as const }),
  fc.constant({ _tag: "ConnectionCreated" as const }),
  fc.constant({ _tag: "CacheStarted" as const }),
  fc.constant({ _tag: "CacheSynced" as const }),
  fc.record({
    _tag: fc.constant("ConnectionFailed" as const),
    step: fc.constantFrom("createConnection", "createClients", "cacheSync"),
    error: fc.constantFrom(
      "secret not found",
      "cluster is not reachable",
      "timed out waiting for cache to sync",
    ),
  }),
)

export const accessorInput: fc.Arbitrary<AccessorInput> = withNow((now) =>
  fc.record({
    observed: accessorArb(now),
    desired: fc.record({ clientCertificatePrivateKey: fc.constantFrom("enabled", "disabled") }),
    trigger: accessorTrigger,
    now: fc.constant(now),
  }),
)

// ---------------------------------------------------------------------------------------------
// Watch Management

export const watchInput: fc.Arbitrary<WatchInput> = fc
  .record({
    connected: fc.boolean(),
    watches: sortedWatches,
    name: fc.oneof(
      { weight: 1, arbitrary: fc.constant("") },
      { weight: 6, arbitrary: fc.constantFrom(...watchNames) },
    ),
    trigger: fc.oneof(
      { weight: 3, arbitrary: fc.constant({ _tag: "Watch" as const }) },
      { weight: 2, arbitrary: fc.constant({ _tag: "WatchStarted" as const }) },
      { weight: 2, arbitrary: fc.constant({ _tag: "WatchFailed" as const, error: "no matches for kind" }) },
    ),
    now: nowArb,
  })
  .map(({ connected, watches, name, trigger, now }) => ({
    observed: { connected, watches },
    desired: { name },
    trigger,
    now,
  }))

// ---------------------------------------------------------------------------------------------
// Event Trigger Conditions

const durations = fc.uniqueArray(fc.constantFrom(...PROBE_FAILURE_DURATIONS), { maxLength: 2 })

/**
 * Event Trigger Conditions compare the last event with `lastProbeSuccessTime + duration`, not
 * with `now`: this branch puts the last event exactly at that instant, or 1 ms to either side.
 */
const eventsAtTheirEdge: fc.Arbitrary<EventsInput> = withNow((now) =>
  fc
    .record({
      duration: fc.constantFrom(...PROBE_FAILURE_DURATIONS),
      successAgo: fc.integer({ min: 0, max: 600_000 }),
      shift: fc.constantFrom(-1, 0, 1),
      source: fc.constantFrom(...sourceNames),
    })
    .map(({ duration, successAgo, shift, source }) => ({
      observed: {
        lastProbeSuccessTime: now - successAgo,
        lastEventSentTime: Math.min(now, now - successAgo + duration + shift),
      },
      desired: { source, probeFailureDurations: [duration] },
      trigger: { didConnect: false, didDisconnect: false },
      now,
    })),
)

const eventsAnyInput: fc.Arbitrary<EventsInput> = withNow((now) =>
  fc.record({
    observed: fc.record({
      lastProbeSuccessTime: before(now, 600_000, 0.1, PROBE_FAILURE_DURATIONS),
      lastEventSentTime: before(now, 600_000, 0.2, PROBE_FAILURE_DURATIONS),
    }),
    desired: fc.record({ source: fc.constantFrom(...sourceNames), probeFailureDurations: durations }),
    trigger: fc.oneof(
      { weight: 4, arbitrary: fc.constant({ didConnect: false, didDisconnect: false }) },
      { weight: 1, arbitrary: fc.constant({ didConnect: true, didDisconnect: false }) },
      { weight: 1, arbitrary: fc.constant({ didConnect: false, didDisconnect: true }) },
    ),
    now: fc.constant(now),
  }),
)

export const eventsInput: fc.Arbitrary<EventsInput> = fc.oneof(
  { weight: 4, arbitrary: eventsAnyInput },
  { weight: 1, arbitrary: eventsAtTheirEdge },
)

// ---------------------------------------------------------------------------------------------
// Error Handling

export const errorsInput: fc.Arbitrary<ErrorsInput> = fc.record({
  observed: fc.record({ consecutiveFailures: failures(8) }),
  desired: fc.constant({}),
  trigger: fc.oneof(
    fc.constant({ _tag: "ClusterNotConnectedError" as const }),
    fc.constant({ _tag: "ConnectionCreationFailed" as const }),
    fc.record({ _tag: fc.constant("HealthProbeFailed" as const), unauthorized: fc.boolean() }),
    fc.record({ _tag: fc.constant("HealthProbeFailed" as const), unauthorized: fc.constant(false) }),
    fc.constant({ _tag: "ClusterNotFound" as const }),
    fc.constant({ _tag: "ClusterGetFailed" as const }),
  ),
  now: nowArb,
})

// ---------------------------------------------------------------------------------------------
// ClusterCache Reconciler

const clusterView: fc.Arbitrary<ClusterView> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      _tag: fc.constant("Found" as const),
      infrastructureProvisioned: fc.oneof(
        { weight: 4, arbitrary: fc.constant(true) },
        { weight: 1, arbitrary: fc.constant(false) },
      ),
      deleting: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ _tag: "NotFound" as const }) },
  {
    weight: 1,
    arbitrary: fc.constant({ _tag: "GetFailed" as const, error: "etcdserver: request timed out" }),
  },
)

const provisioned: fc.Arbitrary<ClusterView> = fc.record({
  _tag: fc.constant("Found" as const),
  infrastructureProvisioned: fc.constant(true),
  deleting: fc.boolean(),
})

export const sourcesArb: fc.Arbitrary<ReadonlyArray<ClusterSource>> = fc.uniqueArray(
  fc.record({ name: fc.constantFrom(...sourceNames), probeFailureDurations: durations }),
  { selector: (s) => s.name, maxLength: 3 },
)

const reconcilerInput = (
  accessor: (now: number) => fc.Arbitrary<AccessorState | undefined>,
  cluster: fc.Arbitrary<ClusterView>,
  trigger: fc.Arbitrary<ReconcilerInput["trigger"]>,
): fc.Arbitrary<ReconcilerInput> =>
  withNow((now) =>
    fc.record({
      observed: accessor(now).map((a) => ({ accessor: a })),
      desired: fc.record({ cluster, sources: sourcesArb }),
      trigger,
      now: fc.constant(now),
    }),
  )

const reconcile = fc.constant({ _tag: "Reconcile" as const })
const anyAccessor = (now: number) => fc.option(accessorArb(now), { nil: undefined, freq: 5 })
/** An accessor right after a successful connect (clusterAccessor Connect/Disconnect, row 4). */
const justConnected = (now: number) =>
  fc.integer({ min: 0, max: 2_000 }).chain((ago) =>
    accessorArb(now, {
      connected: fc.constant(true),
      consecutiveFailures: fc.constant(0),
      lastProbeTime: fc.constant(now - ago),
      lastProbeSuccessTime: fc.constant(now - ago),
      watches: fc.constant([]),
    }),
  )

export const reconcilerInputArb: fc.Arbitrary<ReconcilerInput> = fc.oneof(
  // Any reconcile: every Reconcile row, the overlaps between them.
  { weight: 6, arbitrary: reconcilerInput(anyAccessor, clusterView, reconcile) },
  // A Cluster gone before any accessor existed (row 2).
  {
    weight: 1,
    arbitrary: reconcilerInput(
      () => fc.constant(undefined),
      fc.constant({ _tag: "NotFound" as const }),
      reconcile,
    ),
  },
  // A provisioned Cluster with an accessor: rows 4, 5, 7, 15.
  { weight: 4, arbitrary: reconcilerInput((now) => accessorArb(now), provisioned, reconcile) },
  // Connect returns (rows 4, 6, 16).
  {
    weight: 2,
    arbitrary: reconcilerInput(
      (now) =>
        fc.oneof(
          { weight: 6, arbitrary: justConnected(now) },
          // A return that does not match the accessor (derived row 16).
          {
            weight: 1,
            arbitrary: fc.option(accessorArb(now, { connected: fc.constant(false) }), { nil: undefined }),
          },
        ),
      provisioned,
      fc.constant({ _tag: "ConnectFinished" as const, ok: true }),
    ),
  },
  {
    weight: 1,
    arbitrary: reconcilerInput(
      (now) => accessorArb(now, { connected: fc.constant(false) }),
      provisioned,
      fc.constant({ _tag: "ConnectFinished" as const, ok: false, error: "cluster is not reachable" }),
    ),
  },
  // Probe returns (rows 8-11, 16).
  {
    weight: 4,
    arbitrary: reconcilerInput(
      (now) =>
        fc.oneof(
          { weight: 9, arbitrary: accessorArb(now, { connected: fc.constant(true) }) },
          { weight: 1, arbitrary: anyAccessor(now) },
        ),
      provisioned,
      fc
        .constantFrom("success", "failure", "unauthorized")
        .map((outcome) => ({ _tag: "ProbeFinished" as const, outcome })),
    ),
  },
  // End of the phases (row 12).
  {
    weight: 2,
    arbitrary: reconcilerInput(
      anyAccessor,
      provisioned,
      fc.record({
        _tag: fc.constant("PhasesComplete" as const),
        didConnect: fc.boolean(),
        didDisconnect: fc.boolean(),
        requeueAfter: fc.array(fc.constantFrom(1, 5_000, 10_000, 30_000), { maxLength: 2 }),
      }),
    ),
  },
)

export const inputs = {
  "clustercache.reconciler": reconcilerInputArb,
  "clustercache.accessor": accessorInput,
  "clustercache.health": healthInput,
  "clustercache.watch": watchInput,
  "clustercache.events": eventsInput,
  "clustercache.errors": errorsInput,
} as const
