import { describe, expect, it } from "vitest"
import { ClusterCacheDefaults, clusterCacheConfig } from "../../core/clustercache/index.ts"
import { ClusterCacheDocumented as D } from "./documented.ts"

describe("seed 000's documented numbers hold core's ClusterCacheDefaults", () => {
  const c = ClusterCacheDefaults
  const pairs: ReadonlyArray<readonly [string, number, { value: number; source: string }]> = [
    ["healthProbe.timeout", c.healthProbe.timeout, D.probeTimeout],
    ["healthProbe.interval", c.healthProbe.interval, D.probeInterval],
    ["healthProbe.failureThreshold", c.healthProbe.failureThreshold, D.failureThreshold],
    ["connectionCreationRetryInterval", c.connectionCreationRetryInterval, D.connectionCreationRetryInterval],
    ["initialSyncTimeout", c.initialSyncTimeout, D.initialSyncTimeout],
    ["defaultRequeueAfter", c.defaultRequeueAfter, D.defaultRequeueAfter],
    ["unauthorizedRequeueAfter", c.unauthorizedRequeueAfter, D.unauthorizedRequeueAfter],
    ["client.timeout", c.client.timeout, D.clientTimeout],
    ["client.qps", c.client.qps, D.clientQps],
    ["client.burst", c.client.burst, D.clientBurst],
  ]
  for (const [field, actual, documented] of pairs) {
    it(`${field} is ${documented.value} (${documented.source})`, () => {
      expect(actual).toBe(documented.value)
    })
  }
  it("every documented value is checked above", () => {
    expect(pairs.map(([, , d]) => d)).toEqual(expect.arrayContaining(Object.values(D)))
    expect(pairs).toHaveLength(Object.keys(D).length)
  })
  it("clusterCacheConfig() overrides one value and keeps the documented others", () => {
    const k = clusterCacheConfig({ healthProbe: { timeout: 1 } })
    expect(k.healthProbe).toEqual({ timeout: 1, interval: D.probeInterval.value, failureThreshold: 5 })
    expect(k.client.qps).toBe(D.clientQps.value)
  })
})
