import { describe, expect, it } from "vitest"
import type { ClusterAction } from "../core/cluster/index.ts"
import { reconcilerTransition } from "../core/clustercache/index.ts"
import { type SimConfigOverrides, simConfig } from "./config.ts"
import { clusterController, type SimCores } from "./cores.ts"
import type { CheckName } from "./invariants.ts"
import type { Incident } from "./scenario.ts"
import { Simulation } from "./simulation.ts"
import { decisions } from "./stats.ts"

const MIN = 60_000
const HOUR = 60 * MIN

/** A quiet fleet: no random faults, no churn, no stuck providers; only what a test asks for. */
const quiet = (o: SimConfigOverrides = {}) =>
  simConfig({
    clusters: 20,
    hours: 2,
    seed: 11,
    faults: { outage: 0, slow: 0, rotation: 0 },
    churn: { deletionRate: 0 },
    providers: { stuckFraction: 0 },
    ...o,
  })

const run = (o: SimConfigOverrides, cores?: Partial<SimCores>) => {
  const sim = new Simulation({ config: simConfig(o), ...(cores === undefined ? {} : { cores }) })
  return sim.runToEnd()
}

const connectedAmong = (sim: Simulation, slots: ReadonlyArray<number>): number =>
  slots.filter((i) => sim.isConnected(i)).length

const range = (from: number, to: number): Array<number> =>
  Array.from({ length: to - from + 1 }, (_, k) => from + k)

describe("Simulation determinism", () => {
  it("gives the same trace hash for the same seed and configuration", () => {
    const a = run({ clusters: 30, hours: 2, seed: 5 })
    const b = run({ clusters: 30, hours: 2, seed: 5 })
    expect(a.traceHash).toMatch(/^[0-9a-f]{64}$/)
    expect(b.traceHash).toBe(a.traceHash)
    expect(b.traceRecords).toBe(a.traceRecords)
    expect(b.measurements).toEqual(a.measurements)
  })

  it("gives different traces for different seeds", () => {
    const a = run({ clusters: 30, hours: 2, seed: 5 })
    const b = run({ clusters: 30, hours: 2, seed: 6 })
    expect(b.traceHash).not.toBe(a.traceHash)
  })

  it("gives each slot the same history whatever the fleet's split between workers", () => {
    const config = simConfig({ clusters: 12, hours: 1, seed: 9 })
    const whole = new Simulation({ config })
    const halves = [0, 1].map((index) => new Simulation({ config, shard: { index, count: 2 } }))
    whole.runToEnd()
    for (const h of halves) h.runToEnd()
    for (let i = 0; i < 12; i++) {
      const part = halves[i < 6 ? 0 : 1] as Simulation
      expect(part.accessor(i)).toEqual(whole.accessor(i))
      expect(part.slots[i]?.status).toEqual(whole.slots[i]?.status)
    }
  })
})

describe("Simulation with the default fault rates", () => {
  it("keeps every invariant while faults strike and Clusters come and go", () => {
    const r = run({
      clusters: 60,
      hours: 8,
      seed: 21,
      faults: { outage: 0.1, slow: 0.05, rotation: 0.05 },
      churn: { deletionRate: 0.05 },
    })
    const t = r.measurements.totals
    expect(r.violations.counts).toEqual(
      Object.fromEntries(Object.keys(r.violations.counts).map((k) => [k, 0])),
    )
    // The run really went through faults, reconnects and deletions.
    expect(t.outages).toBeGreaterThan(5)
    expect(t.slowPeriods).toBeGreaterThan(2)
    expect(t.rotations).toBeGreaterThan(2)
    expect(t.clustersDeleted).toBeGreaterThan(5)
    expect(t.disconnects).toBeGreaterThan(5)
    expect(r.measurements.timeToProvisioned.n).toBeGreaterThan(60)
    const d = decisions(r.measurements)
    for (const row of [
      "clustercache.reconciler#1",
      "clustercache.reconciler#4",
      "clustercache.reconciler#6",
      "clustercache.reconciler#7",
      "clustercache.reconciler#8",
      "clustercache.reconciler#9",
      "clustercache.reconciler#10",
      "clustercache.reconciler#11",
      "clustercache.reconciler#12",
      "clustercache.reconciler#13",
      "cluster.normal#13",
      "cluster.deletion#8",
    ] as const)
      expect(d[row], row).toBeGreaterThan(0)
  })

  it("runs with the documented defaults and no violations", () => {
    const r = run({ clusters: 50, hours: 4, seed: 1 })
    expect(r.violations.total).toBe(0)
    expect(r.measurements.series.connected.at(-1)).toBeGreaterThan(45)
  })
})

describe("Simulation detects and handles injected faults", () => {
  it("disconnects an unreachable cluster at the fifth failed probe and reconnects after recovery", () => {
    const outage: Incident = { at: HOUR, clusters: [[0, 9]], incident: "apiserver-down", for: 5 * MIN }
    const sim = new Simulation({ config: quiet({ scenario: [outage] }) })
    const down = range(0, 9)
    sim.runUntil(HOUR)
    expect(connectedAmong(sim, down)).toBe(10)
    // Probes every 10 s: at most four failures within 35 s, the fifth before 50 s.
    sim.runUntil(HOUR + 35_000)
    expect(connectedAmong(sim, down)).toBe(10)
    sim.runUntil(HOUR + 50_000)
    expect(connectedAmong(sim, down)).toBe(0)
    expect(connectedAmong(sim, range(10, 19))).toBe(10)
    // Back after 5 minutes; the next attempt comes within the 30 s retry interval.
    sim.runUntil(HOUR + 5 * MIN + 33_000)
    expect(connectedAmong(sim, down)).toBe(10)
    const r = sim.runToEnd()
    expect(r.violations.total).toBe(0)
    const d = decisions(r.measurements)
    expect(d["clustercache.reconciler#10"]).toBe(10) // one threshold disconnect per cluster
    expect(d["clustercache.reconciler#9"]).toBe(40) // four failures below the threshold each
    expect(r.measurements.totals.disconnects).toBe(10)
  })

  it("disconnects on a 401 after a credential rotation and reconnects once the kubeconfig is fixed", () => {
    const rotation: Incident = {
      at: HOUR,
      clusters: [[0, 4]],
      incident: "rotate-credentials",
      fixAfter: 2 * MIN,
    }
    const sim = new Simulation({ config: quiet({ scenario: [rotation] }) })
    const rotated = range(0, 4)
    sim.runUntil(HOUR + 10_001)
    expect(connectedAmong(sim, rotated)).toBe(0)
    sim.runUntil(HOUR + 2 * MIN)
    expect(connectedAmong(sim, rotated)).toBe(0)
    sim.runUntil(HOUR + 2 * MIN + 33_000)
    expect(connectedAmong(sim, rotated)).toBe(5)
    const r = sim.runToEnd()
    expect(r.violations.total).toBe(0)
    const d = decisions(r.measurements)
    expect(d["clustercache.reconciler#11"]).toBe(5)
    expect(r.measurements.totals.probeUnauthorized).toBe(5)
    // The 1 ms requeue tries again at once, and fails with the stale kubeconfig.
    expect(d["clustercache.accessor#5"]).toBeGreaterThanOrEqual(5)
  })

  it("deletes in the documented order and drops the accessor of a deleted Cluster", () => {
    const deletion: Incident = { at: HOUR, clusters: [[0, 19]], incident: "delete-cluster" }
    const sim = new Simulation({ config: quiet({ scenario: [deletion] }) })
    const r = sim.runToEnd()
    expect(r.violations.total).toBe(0)
    expect(r.measurements.totals.clustersDeleted).toBe(20)
    for (let i = 0; i < 20; i++) {
      expect(sim.slots[i]?.exists).toBe(false)
      expect(sim.accessor(i)).toBeUndefined()
    }
    const d = decisions(r.measurements)
    expect(d["cluster.deletion#8"]).toBe(20)
    expect(d["clustercache.reconciler#13"]).toBe(20)
  })
})

/** Runs a quiet fleet with a broken core and returns the violations of one check. */
const caught = (check: CheckName, cores: Partial<SimCores>, scenario: ReadonlyArray<Incident> = []) => {
  const r = new Simulation({ config: quiet({ scenario }), cores }).runToEnd()
  return {
    count: r.violations.counts[check],
    examples: r.violations.examples.filter((v) => v.check === check),
  }
}

describe("The invariants catch a broken core", () => {
  it("catches a Reconciler that does not wait out the retry interval", () => {
    const eager: SimCores["reconciler"] = (input, config) => {
      const r = reconcilerTransition(input, config)
      // Row 5 says wait; this one connects at once.
      return r.row === "clustercache.reconciler#5"
        ? {
            actions: [{ _tag: "Connect" }],
            status: { ...r.status, done: false },
            row: "clustercache.reconciler#4",
          }
        : r
    }
    const { count, examples } = caught("retry-interval", { reconciler: eager })
    expect(count).toBeGreaterThan(0)
    const v = examples[0]
    expect(v?.cluster).toMatch(/^cluster-\d{5}$/)
    expect(v?.rows).toContain("clustercache.reconciler#4")
    expect(v?.message).toMatch(/^connection attempt \d+ ms after a failed one \(retry interval 30000 ms\)$/)
    expect(Number(/attempt (\d+) ms/.exec(v?.message ?? "")?.[1])).toBeLessThan(30_000)
  })

  it("catches a Reconciler that ignores the failure threshold", () => {
    const stubborn: SimCores["reconciler"] = (input, config) => {
      const r = reconcilerTransition(input, config)
      if (r.row !== "clustercache.reconciler#10") return r
      // Keep the connection: drop the disconnect, as if the failure were below the threshold.
      const accessor = input.observed.accessor
      return {
        actions: r.actions
          .filter((a) => a._tag === "Continue")
          .map(() => ({
            _tag: "Continue" as const,
            trigger: {
              _tag: "PhasesComplete" as const,
              didConnect: false,
              didDisconnect: false,
              requeueAfter: [config.healthProbe.interval],
            },
          })),
        status: {
          accessor:
            accessor === undefined
              ? undefined
              : { ...accessor, consecutiveFailures: accessor.consecutiveFailures + 1 },
          done: false,
        },
        row: "clustercache.reconciler#9",
      }
    }
    const outage: Incident = { at: HOUR, clusters: [[0, 3]], incident: "apiserver-down", for: 5 * MIN }
    const { count, examples } = caught("failure-threshold", { reconciler: stubborn }, [outage])
    expect(count).toBeGreaterThan(0)
    expect(examples[0]?.message).toMatch(/still connected after 5 consecutive failed probes/)
  })

  it("catches a Cluster controller that deletes the infrastructure with the control plane", () => {
    const hasty: SimCores["cluster"] = (input, config) => {
      const step = clusterController(input, config)
      const cp = step.actions.find(
        (a): a is Extract<ClusterAction, { _tag: "DeleteObject" }> =>
          a._tag === "DeleteObject" && a.role === "controlPlane",
      )
      if (cp === undefined) return step
      const infra: ClusterAction = {
        _tag: "DeleteObject",
        role: "infrastructure",
        ref: { ...cp.ref, kind: "SimCluster" },
      }
      return { ...step, actions: [...step.actions, infra] }
    }
    const deletion: Incident = { at: HOUR, clusters: [[0, 4]], incident: "delete-cluster" }
    const { count, examples } = caught("infrastructure-after-control-plane", { cluster: hasty }, [deletion])
    expect(count).toBe(5)
    expect(examples[0]?.message).toBe("the infrastructure was deleted while the control-plane object exists")
    expect(examples[0]?.rows.some((r) => r.startsWith("cluster.deletion#"))).toBe(true)
  })
})
