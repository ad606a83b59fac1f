/**
 * fast-check generators for `inventory.entry` inputs, biased so that every row decides a good
 * share of them (the coverage report asks for 50 of 2,000): each scenario aims at one row (a
 * stored document of the right kind, a pending change exactly at, just before or just after the
 * debounce), and a share is drawn freely.
 *
 * @module
 */
import fc from "fast-check"
import {
  type ClusterFacts,
  type ClusterView,
  type EntryInput,
  type InventoryConfig,
  InventoryDefaults,
} from "../../core/inventory/index.ts"

const NOW = { min: 1_700_000_000_000, max: 1_800_000_000_000 }
export const nowArb = fc.integer(NOW)

/** Names as providers make them: plain, Cluster API `namespace/name`, composed `provider#name`. */
export const CLUSTERS = ["east", "west", "fleet/prod-1", "kubeconfig-secrets#lab", "a.b-c_d"] as const
export const clusterArb = fc.constantFrom(...CLUSTERS)

export const factsArb: fc.Arbitrary<ClusterFacts> = fc
  .record({
    kubernetesVersion: fc.constantFrom("v1.34.1", "v1.33.4", "v1.35.0-alpha.1"),
    nodes: fc.integer({ min: 0, max: 6 }),
    ready: fc.integer({ min: 0, max: 6 }),
  })
  .map(({ kubernetesVersion, nodes, ready }) => ({
    kubernetesVersion,
    nodes,
    readyNodes: Math.min(nodes, ready),
  }))

const reasonArb = fc.constantFrom(
  "probe failed 5 times in a row (threshold 5): connect ECONNREFUSED",
  "unauthorized (401): credentials rejected",
)

const iso = (ms: number) => new Date(ms).toISOString()

/** A stored document of `cluster`, reachable or not, with `facts`. */
const documentOf = (
  cluster: string,
  facts: ClusterFacts,
  reachable: boolean,
  engagedSince: number,
  lastChange: number,
  reason?: string,
) =>
  JSON.stringify({
    cluster,
    ...facts,
    engagedSince: iso(engagedSince),
    lastChange: iso(lastChange),
    reachable,
    ...(reachable || reason === undefined ? {} : { reason }),
  })

/** Values under a key that are not a document of the cluster. */
const junkArb = (cluster: string, facts: ClusterFacts, now: number) =>
  fc.constantFrom(
    "",
    "not json",
    "[]",
    "null",
    JSON.stringify({ cluster, nodes: 1 }),
    documentOf("someone-else", facts, true, now - 10_000, now - 5_000),
    JSON.stringify({ ...JSON.parse(documentOf(cluster, facts, true, now, now)), nodes: -1 }),
    JSON.stringify({ ...JSON.parse(documentOf(cluster, facts, true, now, now)), engagedSince: "yesterday" }),
  )

/** Facts that differ from `f` in one field. */
const otherFacts = (f: ClusterFacts): fc.Arbitrary<ClusterFacts> =>
  fc.constantFrom<ClusterFacts>(
    { ...f, nodes: f.nodes + 1 },
    { ...f, readyNodes: f.readyNodes === 0 ? 1 : f.readyNodes - 1, nodes: Math.max(f.nodes, 1) },
    { ...f, kubernetesVersion: `${f.kubernetesVersion}+patched` },
  )

type Stored = "none" | "junk" | "reachable-same" | "reachable-other" | "unreachable"
type Pending = "none" | "fresh" | "before" | "at" | "after" | "future"

interface Scenario {
  readonly view: ClusterView["_tag"]
  readonly stored: Stored
  readonly pending: Pending
}

const scenarios: ReadonlyArray<Scenario> = [
  { view: "Engaged", stored: "none", pending: "none" }, // row 1
  { view: "Engaged", stored: "junk", pending: "none" }, // row 1
  { view: "Engaged", stored: "unreachable", pending: "none" }, // row 2
  { view: "Engaged", stored: "reachable-same", pending: "none" }, // row 3
  { view: "Engaged", stored: "reachable-same", pending: "before" }, // row 3
  { view: "Engaged", stored: "reachable-other", pending: "none" }, // row 4
  { view: "Engaged", stored: "reachable-other", pending: "fresh" }, // row 5
  { view: "Engaged", stored: "reachable-other", pending: "before" }, // row 5
  { view: "Engaged", stored: "reachable-other", pending: "future" }, // row 5
  { view: "Engaged", stored: "reachable-other", pending: "at" }, // row 6
  { view: "Engaged", stored: "reachable-other", pending: "after" }, // row 6
  { view: "Unhealthy", stored: "reachable-same", pending: "none" }, // row 7
  { view: "Unhealthy", stored: "reachable-other", pending: "before" }, // row 7
  { view: "Unhealthy", stored: "unreachable", pending: "none" }, // row 8
  { view: "Unhealthy", stored: "none", pending: "none" }, // row 9
  { view: "Unhealthy", stored: "junk", pending: "none" }, // row 9
  { view: "Absent", stored: "reachable-same", pending: "none" }, // row 10
  { view: "Absent", stored: "junk", pending: "none" }, // row 10
  { view: "Absent", stored: "unreachable", pending: "none" }, // row 10
  { view: "Absent", stored: "none", pending: "none" }, // row 11
  { view: "Waiting", stored: "reachable-other", pending: "before" }, // row 12
  { view: "Waiting", stored: "none", pending: "none" }, // row 12
]

const storedArb = (
  s: Stored,
  cluster: string,
  facts: ClusterFacts,
  now: number,
): fc.Arbitrary<string | undefined> => {
  const since = fc.integer({ min: 1, max: 3_600_000 }).map((d) => now - d)
  switch (s) {
    case "none":
      return fc.constant(undefined)
    case "junk":
      return junkArb(cluster, facts, now)
    case "reachable-same":
      return since.map((t) => documentOf(cluster, facts, true, t, t))
    case "reachable-other":
      return fc.tuple(since, otherFacts(facts)).map(([t, o]) => documentOf(cluster, o, true, t - 5, t))
    case "unreachable":
      return fc
        .tuple(since, reasonArb)
        .map(([t, reason]) => documentOf(cluster, facts, false, t - 5, t, reason))
  }
}

const pendingArb = (p: Pending, now: number, debounce: number): fc.Arbitrary<number | undefined> => {
  switch (p) {
    case "none":
      return fc.constant(undefined)
    case "fresh":
      return fc.constant(now)
    case "before":
      return fc
        .integer({ min: 1, max: Math.max(1, debounce - 1) })
        .map((d) => now - Math.min(d, Math.max(0, debounce - 1)))
    case "at":
      return fc.constant(now - debounce)
    case "after":
      return fc.integer({ min: 1, max: 60_000 }).map((d) => now - debounce - d)
    case "future":
      return fc.integer({ min: 1, max: 5_000 }).map((d) => now + d)
  }
}

const viewArb = (tag: ClusterView["_tag"], facts: ClusterFacts): fc.Arbitrary<ClusterView> => {
  switch (tag) {
    case "Absent":
      return fc.constant({ _tag: "Absent" })
    case "Waiting":
      return fc.constant({ _tag: "Waiting" })
    case "Engaged":
      return fc.constant({ _tag: "Engaged", facts })
    case "Unhealthy":
      return reasonArb.map((reason) => ({ _tag: "Unhealthy", reason }))
  }
}

/** An input aimed at one scenario, for a given debounce. */
export const scenarioInput = (debounce: number): fc.Arbitrary<EntryInput> =>
  fc
    .record({ scenario: fc.constantFrom(...scenarios), cluster: clusterArb, facts: factsArb, now: nowArb })
    .chain(({ scenario, cluster, facts, now }) =>
      fc
        .record({
          view: viewArb(scenario.view, facts),
          stored: storedArb(scenario.stored, cluster, facts, now),
          pendingSince: pendingArb(scenario.pending, now, debounce),
        })
        .map(
          ({ view, stored, pendingSince }): EntryInput => ({
            observed: { cluster, view, stored, pendingSince },
            desired: {},
            trigger: { _tag: "Reconcile" },
            now,
          }),
        ),
    )

/** Inputs drawn freely: any view, any stored value, any pending start. */
export const freeInput: fc.Arbitrary<EntryInput> = fc
  .record({
    cluster: clusterArb,
    facts: factsArb,
    now: nowArb,
    view: fc.constantFrom<ClusterView["_tag"]>("Absent", "Engaged", "Unhealthy", "Waiting"),
    stored: fc.constantFrom<Stored>("none", "junk", "reachable-same", "reachable-other", "unreachable"),
    pending: fc.constantFrom<Pending>("none", "fresh", "before", "at", "after", "future"),
    debounce: fc.constantFrom(0, 1, 2_000, 10_000),
  })
  .chain(({ cluster, facts, now, view, stored, pending, debounce }) =>
    fc
      .record({
        view: viewArb(view, facts),
        stored: storedArb(stored, cluster, facts, now),
        pendingSince: pendingArb(pending, now, debounce),
      })
      .map(
        ({ view, stored, pendingSince }): EntryInput => ({
          observed: { cluster, view, stored, pendingSince },
          desired: {},
          trigger: { _tag: "Reconcile" },
          now,
        }),
      ),
  )

/** The table's inputs at the default configuration: scenarios mostly, a share free. */
export const entryInput: fc.Arbitrary<EntryInput> = fc.oneof(
  { weight: 5, arbitrary: scenarioInput(InventoryDefaults.debounce) },
  { weight: 1, arbitrary: freeInput },
)

/** Configurations: the default and other debounces, 0 included. */
export const configArb: fc.Arbitrary<InventoryConfig> = fc
  .constantFrom(0, 1, 500, InventoryDefaults.debounce, 30_000)
  .map((debounce) => ({ ...InventoryDefaults, debounce }))

/** Inputs by table id, for the coverage report. */
export const inputs: Readonly<Record<string, fc.Arbitrary<unknown>>> = { "inventory.entry": entryInput }
