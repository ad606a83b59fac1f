import { describe, expect, it } from "vitest"
import { PropagateDefaults, propagateConfig } from "./config.ts"

describe("PropagateDefaults", () => {
  it("holds the documented numbers: retry 5 s, cluster timeout 10 s, cluster poll 1 s, 10 at a time, permission recheck 10 s", () => {
    expect(PropagateDefaults).toEqual({
      retryInterval: 5_000,
      clusterTimeout: 10_000,
      clusterPollInterval: 1_000,
      concurrency: 10,
      permissionRecheckInterval: 10_000,
    })
  })
  it("overrides are checked: an unknown field and a non-positive number are named", () => {
    expect(propagateConfig({ retryInterval: 50 }).retryInterval).toBe(50)
    expect(() => propagateConfig({ retryIntervl: 1 } as never)).toThrow(
      /unknown field "retryIntervl"; did you mean "retryInterval"\?/,
    )
    expect(() => propagateConfig({ clusterTimeout: 0 })).toThrow(
      /clusterTimeout must be a positive number, got 0/,
    )
  })
  it("every field must be a finite number above 0; the smallest positive one is accepted", () => {
    for (const key of Object.keys(PropagateDefaults) as Array<keyof typeof PropagateDefaults>) {
      for (const bad of [0, -1, Number.NaN, Number.POSITIVE_INFINITY])
        expect(() => propagateConfig({ [key]: bad }), `${key}=${bad}`).toThrow(
          `${key} must be a positive number`,
        )
      expect(propagateConfig({ [key]: 1 })[key]).toBe(1)
    }
    expect(propagateConfig()).toEqual(PropagateDefaults)
  })
  it("the unknown-field error lists the known fields", () => {
    expect(() => propagateConfig({ x: 1 } as never)).toThrow(
      "(known: retryInterval, clusterTimeout, clusterPollInterval, concurrency, permissionRecheckInterval)",
    )
  })
})
