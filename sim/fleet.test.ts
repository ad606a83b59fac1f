import { describe, expect, it } from "vitest"
import { simConfig } from "./config.ts"
import type { Progress } from "./fleet.ts"
import { runFleet } from "./fleet.ts"

describe("runFleet", () => {
  it("gives the same trace hash and measurements with one thread or two workers", async () => {
    const config = simConfig({
      clusters: 40,
      hours: 2,
      seed: 4,
      faults: { outage: 0.2, rotation: 0.1, slow: 0.1 },
    })
    const progress: Array<Progress> = []
    const one = await runFleet(config, { workers: 1, onProgress: (p) => progress.push(p) })
    const two = await runFleet(config, { workers: 2 })
    expect(two.summary.traceHash).toBe(one.summary.traceHash)
    expect(two.summary.traceRecords).toBe(one.summary.traceRecords)
    expect(two.summary.decisions).toEqual(one.summary.decisions)
    expect(two.summary.invariants).toEqual(one.summary.invariants)
    expect(two.measurements.series).toEqual(one.measurements.series)
    expect(one.summary.violations).toBe(0)
    expect(progress.at(-1)?.now).toBe(2 * 3_600_000)
    expect(progress.length).toBe(12)
  })

  it("refuses custom cores in workers", async () => {
    await expect(runFleet(simConfig({ clusters: 4 }), { workers: 2, cores: {} })).rejects.toThrow(
      /this thread only/,
    )
  })
})
