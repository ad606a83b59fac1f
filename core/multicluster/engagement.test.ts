import { describe, expect, it } from "vitest"
import {
  absent,
  type Engagement,
  EngagementDefaults,
  type EngagementOptions,
  type EngagementResult,
  type EngagementTrigger,
  engagementConfig,
  engagementTransition,
  engageRetryDelay,
  verdict,
} from "./index.ts"

const NOW = 1_750_000_000_000

const provider: EngagementOptions = {
  cluster: "east",
  hasProvider: true,
  watches: [
    { name: "For(apps/v1/Deployment)", kind: "For" },
    { name: "Watches(v1/ConfigMap)", kind: "Watches" },
  ],
}
const hub: EngagementOptions = { ...provider, cluster: "" }

const step = (
  e: Engagement,
  trigger: EngagementTrigger,
  o: EngagementOptions = provider,
  now = NOW,
): EngagementResult => engagementTransition({ observed: e, desired: o, trigger, now })

/** Runs triggers in order from `e`, returning every result. */
const run = (e: Engagement, triggers: ReadonlyArray<EngagementTrigger>, o = provider, now = NOW) => {
  const results: Array<EngagementResult> = []
  let current = e
  for (const t of triggers) {
    const res = step(current, t, o, now)
    results.push(res)
    current = res.status
  }
  return { results, last: current }
}

describe("EngagementDefaults", () => {
  it("documents a 2 min cache sync timeout, 1 s → 5 min doubling engage retry and a 1 s requeue while engaging", () => {
    expect(EngagementDefaults).toEqual({
      cacheSyncTimeout: 120_000,
      engageRetry: { initial: 1_000, factor: 2, max: 300_000 },
      requeueWhileEngaging: 1_000,
    })
  })
  it("engageRetryDelay() doubles from 1 s and stops at 5 min", () => {
    expect([1, 2, 3, 4, 9, 10, 30].map((n) => engageRetryDelay(n))).toEqual([
      1_000, 2_000, 4_000, 8_000, 256_000, 300_000, 300_000,
    ])
  })
  it("engagementConfig() overrides one level deep and names a bad field", () => {
    expect(engagementConfig({ engageRetry: { initial: 10 } }).engageRetry).toEqual({
      initial: 10,
      factor: 2,
      max: 300_000,
    })
    expect(() => engagementConfig({ cacheSyncTimeout: 0 })).toThrow(/cacheSyncTimeout/)
    expect(() => engagementConfig({ engageRetry: { factor: 0.5 } })).toThrow(/engageRetry.factor/)
    expect(() => engagementConfig({ engageRetry: { initial: 10, max: 5 } })).toThrow(/engageRetry.max/)
  })
  it("engageRetryDelay() counts at least one failure: 0 failures waits the initial delay", () => {
    expect(engageRetryDelay(0)).toBe(1_000)
    expect(engageRetryDelay(-3)).toBe(1_000)
  })
  it("engagementConfig() accepts every bound exactly and refuses just past it (derived rows 14, 19, 20)", () => {
    const fields = [
      ["cacheSyncTimeout", (v: number) => ({ cacheSyncTimeout: v })],
      ["engageRetry.initial", (v: number) => ({ engageRetry: { initial: v } })],
      ["engageRetry.max", (v: number) => ({ engageRetry: { initial: 1, max: v } })],
      ["requeueWhileEngaging", (v: number) => ({ requeueWhileEngaging: v })],
    ] as const
    for (const [field, at] of fields) {
      expect(() => engagementConfig(at(1)), field).not.toThrow()
      for (const bad of [0, -1, Number.NaN, Number.POSITIVE_INFINITY])
        expect(() => engagementConfig(at(bad)), `${field}=${bad}`).toThrow(
          `engagement config: ${field} must be a positive number of ms, got ${bad}`,
        )
    }
    expect(engagementConfig({ engageRetry: { factor: 1 } }).engageRetry.factor).toBe(1)
    for (const bad of [0.999, Number.NaN, Number.POSITIVE_INFINITY])
      expect(() => engagementConfig({ engageRetry: { factor: bad } }), `factor=${bad}`).toThrow(
        `engageRetry.factor must be >= 1, got ${bad}`,
      )
    expect(engagementConfig({ engageRetry: { initial: 7, max: 7 } }).engageRetry).toEqual({
      initial: 7,
      factor: 2,
      max: 7,
    })
    expect(() => engagementConfig({ engageRetry: { initial: 8, max: 7 } })).toThrow(
      "engageRetry.max (7) must be >= engageRetry.initial (8)",
    )
  })
})

describe("verdict()", () => {
  it("hub: engaged by default without a provider, not with one unless engageWithLocalCluster", () => {
    expect(verdict({ ...hub, hasProvider: false }).engage).toBe(true)
    expect(verdict(hub)).toEqual({ engage: false, why: "local-disabled" })
    expect(verdict({ ...hub, engageWithLocalCluster: true })).toEqual({
      engage: true,
      watches: ["For(apps/v1/Deployment)", "Watches(v1/ConfigMap)"],
    })
  })
  it("provider clusters: Watches only, and only with a provider that engages them and a filter that accepts", () => {
    expect(verdict(provider)).toEqual({ engage: true, watches: ["Watches(v1/ConfigMap)"] })
    expect(verdict({ ...provider, hasProvider: false })).toEqual({ engage: false, why: "no-provider" })
    expect(verdict({ ...provider, engageWithProviderClusters: false })).toEqual({
      engage: false,
      why: "provider-disabled",
    })
    expect(verdict({ ...provider, clusterFilter: "reject" })).toEqual({ engage: false, why: "filtered" })
    expect(verdict({ ...provider, watches: [{ name: "For(x)", kind: "For" }] })).toEqual({
      engage: false,
      why: "hub-only-watches",
    })
  })
  it("each watch's own options override the controller's, on the hub and on provider clusters", () => {
    const forBoth = { name: "For(x)", kind: "For" as const, engageWithProviderClusters: true }
    const hubWatches = { name: "Watches(y)", kind: "Watches" as const, engageWithLocalCluster: true }
    const both: EngagementOptions = { ...provider, watches: [forBoth, hubWatches] }
    expect(verdict(both)).toEqual({ engage: true, watches: ["For(x)", "Watches(y)"] })
    expect(verdict({ ...both, cluster: "" })).toEqual({ engage: true, watches: ["Watches(y)"] })
    const hubOnly = { ...hubWatches, engageWithProviderClusters: false }
    expect(verdict({ ...provider, watches: [hubOnly] })).toEqual({ engage: false, why: "hub-only-watches" })
    expect(
      verdict({
        ...provider,
        engageWithProviderClusters: false,
        watches: [{ ...hubWatches, kind: "Watches" }],
      }),
    ).toEqual({ engage: false, why: "provider-disabled" })
    expect(verdict({ ...provider, engageWithProviderClusters: false, watches: [forBoth] })).toEqual({
      engage: true,
      watches: ["For(x)"],
    })
    expect(
      verdict({
        ...provider,
        engageWithLocalCluster: true,
        cluster: "",
        watches: [{ ...forBoth, engageWithLocalCluster: false }],
      }),
    ).toEqual({ engage: false, why: "local-disabled" })
  })
  it("a watch's own filter leaves out that watch only; filtered when every engaging watch is rejected", () => {
    const a = { name: "Watches(a)", kind: "Watches" as const, clusterFilter: "reject" as const }
    const b = { name: "Watches(b)", kind: "Watches" as const }
    expect(verdict({ ...provider, watches: [a, b] })).toEqual({ engage: true, watches: ["Watches(b)"] })
    expect(verdict({ ...provider, watches: [a] })).toEqual({ engage: false, why: "filtered" })
    expect(verdict({ ...provider, cluster: "", engageWithLocalCluster: true, watches: [a] })).toEqual({
      engage: true,
      watches: ["Watches(a)"],
    })
  })
})

describe("engagementTransition()", () => {
  it("start → cache synced → indexes applied → engage, then reconciles", () => {
    const { results, last } = run(absent, [
      { _tag: "ClusterAdded", generation: "g1" },
      { _tag: "CacheStarted", generation: "g1" },
      { _tag: "CacheSynced", generation: "g1" },
      { _tag: "IndexesApplied", generation: "g1" },
      { _tag: "SourcesStarted", generation: "g1" },
      { _tag: "RequestArrived", namespace: "ns", name: "a" },
    ])
    expect(results.map((r) => r.row)).toEqual([
      "multicluster.engagement#3",
      "multicluster.engagement#7",
      "multicluster.engagement#8",
      "multicluster.engagement#9",
      "multicluster.engagement#10",
      "multicluster.engagement#12",
    ])
    expect(results.map((r) => r.actions[0]?._tag)).toEqual([
      "StartCache",
      "WaitForCacheSync",
      "ApplyIndexes",
      "StartSources",
      "Log",
      "Reconcile",
    ])
    expect(results[1]?.actions[0]).toMatchObject({ timeout: 120_000 })
    expect(results[3]?.actions[0]).toEqual({
      _tag: "StartSources",
      cluster: "east",
      generation: "g1",
      watches: ["Watches(v1/ConfigMap)"],
    })
    expect(last.state).toEqual({ _tag: "Engaged", generation: "g1" })
  })

  it("cancels the engage scope when the cluster leaves, then drops its requests with one log line", () => {
    const engaged: Engagement = { state: { _tag: "Engaged", generation: "g1" }, dropped: 3 }
    const { results, last } = run(engaged, [
      { _tag: "ClusterRemoved" },
      { _tag: "RequestArrived", namespace: "ns", name: "a" },
      { _tag: "RequestArrived", namespace: "ns", name: "b" },
    ])
    expect(results[0]?.actions).toEqual([{ _tag: "CancelEngageScope", cluster: "east", generation: "g1" }])
    expect(results.slice(1).map((r) => r.actions[0])).toMatchObject([
      { _tag: "DropRequest", reason: "ClusterNotFound", log: false },
      { _tag: "DropRequest", reason: "ClusterNotFound", log: false },
    ])
    expect(last.dropped).toBe(5)
    const fresh = run({ state: { _tag: "Engaged", generation: "g1" }, dropped: 0 }, [
      { _tag: "ClusterRemoved" },
      { _tag: "RequestArrived", namespace: "ns", name: "a" },
      { _tag: "RequestArrived", namespace: "ns", name: "b" },
    ])
    expect(fresh.results.slice(1).map((r) => r.actions[0])).toMatchObject([{ log: true }, { log: false }])
  })

  it("re-engages with the new credentials after a change: old scope cancelled, cache started for the new generation", () => {
    const engaged: Engagement = { state: { _tag: "Engaged", generation: "g1" }, dropped: 0 }
    const res = step(engaged, { _tag: "CredentialsChanged", generation: "g2" })
    expect(res.row).toBe("multicluster.engagement#16")
    expect(res.actions).toEqual([
      { _tag: "CancelEngageScope", cluster: "east", generation: "g1" },
      { _tag: "StartCache", cluster: "east", generation: "g2" },
    ])
    expect(step(res.status, { _tag: "CacheStarted", generation: "g1" }).row).toBe(
      "multicluster.engagement#24",
    )
  })

  it("retries a failed engagement exactly when due: 1 ms early re-arms the timer", () => {
    const waiting: Engagement = {
      state: { _tag: "WaitingForSync", generation: "g1", failures: 0 },
      dropped: 0,
    }
    const failed = step(waiting, { _tag: "CacheSyncFailed", generation: "g1", timedOut: true, error: "" })
    expect(failed.row).toBe("multicluster.engagement#14")
    expect(failed.status.state).toMatchObject({ _tag: "Failed", failures: 1, retryAt: NOW + 1_000 })
    const early = step(failed.status, { _tag: "RetryDue" }, provider, NOW + 999)
    expect(early.row).toBe("multicluster.engagement#21")
    expect(early.actions).toEqual([{ _tag: "RetryAfter", cluster: "east", after: 1 }])
    expect(step(failed.status, { _tag: "RetryDue" }, provider, NOW + 1_000).row).toBe(
      "multicluster.engagement#20",
    )
    expect(step(failed.status, { _tag: "RetryDue" }, provider, NOW + 1_001).row).toBe(
      "multicluster.engagement#20",
    )
  })
})

describe("engagement messages (what a user reads in the logs and in a dropped request)", () => {
  const logs = (r: EngagementResult) =>
    r.actions.flatMap((a) => (a._tag === "Log" ? [`${a.level}: ${a.message}`] : []))
  const engaging = (generation = "g1") =>
    run(absent, [
      { _tag: "ClusterAdded", generation },
      { _tag: "CacheStarted", generation },
    ]).last

  it("names the cluster and the reason it is not engaged", () => {
    const r = step(absent, { _tag: "ClusterAdded", generation: "g1" }, { ...provider, watches: [] })
    expect(logs(r)).toEqual([
      'info: not engaging cluster "east": no watch engages provider clusters (For/Owns are hub-only unless their own options say so)',
    ])
  })

  it("says when a cluster is engaged, and when a sync fails or times out, with the error if any", () => {
    const { results } = run(absent, [
      { _tag: "ClusterAdded", generation: "g1" },
      { _tag: "CacheStarted", generation: "g1" },
      { _tag: "CacheSynced", generation: "g1" },
      { _tag: "IndexesApplied", generation: "g1" },
      { _tag: "SourcesStarted", generation: "g1" },
    ])
    expect(logs(results.at(-1) as EngagementResult)).toEqual(['info: engaged cluster "east"'])
    const failed = (timedOut: boolean, error: string) =>
      logs(step(engaging(), { _tag: "CacheSyncFailed", generation: "g1", timedOut, error }))
    expect(failed(true, "")).toEqual([
      'warn: engaging cluster "east" failed: cache did not sync within 120000 ms',
    ])
    expect(failed(true, "forbidden")).toEqual([
      'warn: engaging cluster "east" failed: cache did not sync within 120000 ms: forbidden',
    ])
    expect(failed(false, "forbidden")).toEqual(['warn: engaging cluster "east" failed: forbidden'])
  })

  it("disengages an unhealthy cluster with the reason, a failed engagement too (no scope to cancel)", () => {
    const r = step(engaging(), { _tag: "ClusterUnhealthy", reason: "3 probes failed" })
    expect(logs(r)).toEqual(['info: disengaging unhealthy cluster "east": 3 probes failed'])
    const failed = step(engaging(), {
      _tag: "EngageFailed",
      generation: "g1",
      step: "startCache",
      error: "boom",
    })
    expect(failed.status.state._tag).toBe("Failed")
    const fromFailed = step(failed.status, { _tag: "ClusterUnhealthy", reason: "401" })
    expect(fromFailed.status.state).toEqual({ _tag: "Unhealthy", generation: "g1", reason: "401" })
    expect(fromFailed.actions.filter((a) => a._tag === "CancelEngageScope")).toEqual([])
  })

  it("a dropped request says why: not found, excluded, failed, unhealthy", () => {
    const detail = (e: Engagement) => {
      const a = step(e, { _tag: "RequestArrived", namespace: "ns", name: "x" }).actions.find(
        (x) => x._tag === "DropRequest",
      )
      return a?._tag === "DropRequest" ? [a.reason, a.detail] : undefined
    }
    expect(detail(absent)).toEqual(["ClusterNotFound", 'cluster "east" not found'])
    const excluded = step(
      absent,
      { _tag: "ClusterAdded", generation: "g1" },
      { ...provider, watches: [] },
    ).status
    expect(detail(excluded)).toEqual([
      "ClusterNotEngaged",
      'controller not engaged with cluster "east": no watch engages provider clusters (For/Owns are hub-only unless their own options say so)',
    ])
    const failed = step(engaging(), {
      _tag: "EngageFailed",
      generation: "g1",
      step: "startCache",
      error: "boom",
    }).status
    expect(detail(failed)).toEqual([
      "ClusterNotEngaged",
      'controller not engaged with cluster "east": engaging failed: startCache: boom',
    ])
    const unhealthy = step(engaging(), { _tag: "ClusterUnhealthy", reason: "401" }).status
    expect(detail(unhealthy)).toEqual([
      "ClusterNotEngaged",
      'controller not engaged with cluster "east": unhealthy',
    ])
  })
})
