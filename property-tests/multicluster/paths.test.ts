/**
 * Path cover of `multicluster.engagement` (style anchor 10: shortest paths over the step
 * function): from a pair that has never seen its cluster, a breadth-first search over a finite
 * alphabet of triggers reaches every row of the table, each by a short sequence, so no row is
 * dead and each is reachable the way the shell would drive it. Every step on the way also
 * conforms to the transcribed spec.
 */
import { describe, expect, it } from "vitest"
import {
  absent,
  type Engagement,
  EngagementDefaults,
  type EngagementOptions,
  type EngagementTrigger,
  engagementTransition,
} from "../../core/multicluster/index.ts"
import { engagement } from "../../spec/multicluster/index.ts"
import { conforms } from "../conformance.ts"

const T0 = 1_750_000_000_000
const MAX_DEPTH = 8

/** The options of the controllers a manager may have, for the hub and for a provider cluster. */
const optionVariants: ReadonlyArray<EngagementOptions> = [
  { cluster: "", hasProvider: false, watches: [{ name: "For(apps/v1/Deployment)", kind: "For" }] },
  { cluster: "", hasProvider: true, watches: [{ name: "For(apps/v1/Deployment)", kind: "For" }] },
  { cluster: "east", hasProvider: false, watches: [{ name: "Watches(v1/Pod)", kind: "Watches" }] },
  { cluster: "east", hasProvider: true, watches: [{ name: "Watches(v1/Pod)", kind: "Watches" }] },
  {
    cluster: "east",
    hasProvider: true,
    engageWithProviderClusters: false,
    watches: [{ name: "Watches(v1/Pod)", kind: "Watches" }],
  },
  {
    cluster: "east",
    hasProvider: true,
    clusterFilter: "reject",
    watches: [{ name: "Watches(v1/Pod)", kind: "Watches" }],
  },
  { cluster: "east", hasProvider: true, watches: [{ name: "For(apps/v1/Deployment)", kind: "For" }] },
]

/** The trigger alphabet; `RetryDue` comes at the retry time or 1 ms before it. */
type Symbol = { readonly name: string; readonly trigger: EngagementTrigger; readonly at?: "due" | "early" }
const alphabet: ReadonlyArray<Symbol> = [
  ...["g1", "g2"].flatMap(
    (g): ReadonlyArray<Symbol> => [
      { name: `ClusterAdded(${g})`, trigger: { _tag: "ClusterAdded", generation: g } },
      { name: `CacheStarted(${g})`, trigger: { _tag: "CacheStarted", generation: g } },
      { name: `CacheSynced(${g})`, trigger: { _tag: "CacheSynced", generation: g } },
      { name: `IndexesApplied(${g})`, trigger: { _tag: "IndexesApplied", generation: g } },
      { name: `SourcesStarted(${g})`, trigger: { _tag: "SourcesStarted", generation: g } },
      {
        name: `CacheSyncFailed(${g})`,
        trigger: { _tag: "CacheSyncFailed", generation: g, timedOut: true, error: "" },
      },
      {
        name: `EngageFailed(${g})`,
        trigger: { _tag: "EngageFailed", generation: g, step: "sources", error: "watch ended" },
      },
    ],
  ),
  { name: "CredentialsChanged(g2)", trigger: { _tag: "CredentialsChanged", generation: "g2" } },
  { name: "ClusterRemoved", trigger: { _tag: "ClusterRemoved" } },
  { name: "ClusterUnhealthy", trigger: { _tag: "ClusterUnhealthy", reason: "probe failed" } },
  { name: "ClusterHealthy", trigger: { _tag: "ClusterHealthy" } },
  { name: "RetryDue(at retryAt)", trigger: { _tag: "RetryDue" }, at: "due" },
  { name: "RetryDue(1 ms early)", trigger: { _tag: "RetryDue" }, at: "early" },
  { name: "RequestArrived", trigger: { _tag: "RequestArrived", namespace: "default", name: "web" } },
]

const nowFor = (e: Engagement, s: Symbol): number => {
  if (s.at === undefined || e.state._tag !== "Failed") return T0
  return s.at === "due" ? e.state.retryAt : e.state.retryAt - 1
}

/** Shortest trigger sequence (from `absent`) that ends with each row deciding. */
const shortestPaths = (): Map<string, ReadonlyArray<string>> => {
  const found = new Map<string, ReadonlyArray<string>>()
  for (const desired of optionVariants) {
    let frontier: Array<{ readonly e: Engagement; readonly path: ReadonlyArray<string> }> = [
      { e: absent, path: [] },
    ]
    const seen = new Set<string>([JSON.stringify(absent)])
    for (let depth = 0; depth < MAX_DEPTH && frontier.length > 0; depth++) {
      const next: typeof frontier = []
      for (const { e, path } of frontier) {
        for (const s of alphabet) {
          const input = { observed: e, desired, trigger: s.trigger, now: nowFor(e, s) }
          const verdict = conforms(engagement, engagementTransition, input, EngagementDefaults)
          expect(verdict.ok, `${[...path, s.name].join(" → ")}: ${verdict.message}`).toBe(true)
          const r = engagementTransition(input, EngagementDefaults)
          const steps = [...path, `${s.name} [${r.row.split("#")[1]}]`]
          const known = found.get(r.row)
          if (known === undefined || known.length > steps.length) found.set(r.row, steps)
          const k = JSON.stringify(r.status)
          if (!seen.has(k)) {
            seen.add(k)
            next.push({ e: r.status, path: steps })
          }
        }
      }
      frontier = next
    }
  }
  return found
}

describe("multicluster.engagement path cover", () => {
  it("every row is reached from a pair that never saw its cluster, within a few triggers", () => {
    const paths = shortestPaths()
    const rows = engagement.rows.map((r) => `multicluster.engagement#${r.n}`)
    expect([...paths.keys()].sort()).toEqual([...rows].sort())
    for (const row of rows) expect((paths.get(row) ?? []).length, row).toBeLessThanOrEqual(7)
    // the documented order, as the shortest way to an engaged pair that reconciles
    expect(paths.get("multicluster.engagement#12")).toEqual([
      "ClusterAdded(g1) [1]",
      "CacheStarted(g1) [7]",
      "CacheSynced(g1) [8]",
      "IndexesApplied(g1) [9]",
      "SourcesStarted(g1) [10]",
      "RequestArrived [12]",
    ])
  })
})
