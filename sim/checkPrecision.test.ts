/**
 * The simulator's checks are precise as well as strong: `brokenCores.test.ts`
 * shows that each check catches a broken core; this file shows that the checks blame a correct
 * core in none of the shapes that sit next to a violation (a Cluster deleted while its deadline
 * runs, readiness that ends and starts again, a Cluster re-created under the same name, a
 * connect at time 0), and that a violation carries the exact time, message and trace record.
 * Provider times are fixed here, so every Cluster is ready at a known instant.
 */
import { describe, expect, it } from "vitest"
import type { ClusterAction } from "../core/cluster/index.ts"
import { reconcilerTransition } from "../core/clustercache/index.ts"
import { type SimConfigOverrides, simConfig } from "./config.ts"
import { clusterController, type SimCores } from "./cores.ts"
import { type CheckName, CheckNames } from "./invariants.ts"
import type { Incident } from "./scenario.ts"
import { Simulation } from "./simulation.ts"
import { neverProvisioned } from "./testCores.ts"
import { textSink } from "./trace.ts"

const S = 1_000
const MIN = 60 * S

const every = (ms: number) => ({ min: ms, max: ms })

/**
 * A fleet whose Clusters are all created at t = 0 (a creation window of 1 ms) and become ready
 * (infrastructure provisioned, control plane initialized, kubeconfig written) at `readyAt`, each
 * with one MachineDeployment of one Machine; every deletion step takes `step` (a minute), and a
 * deleted Cluster is re-created `step` later when `deletionRate` deletes it.
 */
const fixed = (
  readyAt: number,
  o: SimConfigOverrides & { readonly step?: number; readonly deletionRate?: number } = {},
) => {
  const { step = MIN, deletionRate = 0, ...rest } = o
  return simConfig({
    clusters: 4,
    hours: 1,
    seed: 3,
    faults: { outage: 0, slow: 0, rotation: 0 },
    providers: {
      infrastructureProvision: every(readyAt / 2),
      controlPlaneInitialize: every(readyAt / 2),
      workerDelete: every(step),
      controlPlaneDelete: every(step),
      infrastructureDelete: every(step),
      stuckFraction: 0,
    },
    churn: {
      creationWindow: 1,
      deletionRate,
      recreateAfter: every(step),
      machineDeployments: every(1),
      machinesPerSet: every(1),
    },
    ...rest,
  })
}

const run = (config: ReturnType<typeof simConfig>, cores: Partial<SimCores> = {}) => {
  const r = new Simulation({ config, cores }).runToEnd()
  return {
    result: r,
    total: Object.values(r.violations.counts).reduce((a, b) => a + b, 0),
    counts: r.violations.counts,
    of: (check: CheckName) => r.violations.examples.filter((v) => v.check === check),
  }
}

describe("provisioned-and-connected: the deadline runs from the instant the world is ready", () => {
  it("a Cluster ready at exactly t = 0 is held to the deadline at exactly 90 s", () => {
    const { counts, of } = run(fixed(0), { cluster: neverProvisioned })
    expect(counts["provisioned-and-connected"]).toBe(4)
    const v = of("provisioned-and-connected")
    expect(v.map((x) => x.at)).toEqual([90 * S, 90 * S, 90 * S, 90 * S])
    expect(v[0]?.message).toBe(
      "ready since t=0.000s, yet 90 s later the phase is Provisioning and the accessor is connected",
    )
  })

  it("a Cluster ready at 2 min is held to the deadline at exactly 3.5 min, however often the world changes meanwhile", () => {
    const { counts, of } = run(fixed(2 * MIN), { cluster: neverProvisioned })
    expect(counts["provisioned-and-connected"]).toBe(4)
    expect(of("provisioned-and-connected").map((x) => x.at)).toEqual(Array(4).fill(3.5 * MIN))
  })

  it("a correct fleet ready at t = 0 violates nothing (no retry-interval for the first connect)", () => {
    expect(run(fixed(0)).total).toBe(0)
  })
})

describe("provisioned-and-connected: readiness that ends calls the deadline off", () => {
  it("a Cluster deleted 10 s after it became ready is not blamed when the deadline passes during its deletion", () => {
    // ready at 2 min, deleted at 2 min 10 s; the workers, the control plane and the
    // infrastructure take a minute each, so at 3.5 min the control plane still serves
    const deleted: Incident = { at: 2 * MIN + 10 * S, clusters: undefined, incident: "delete-cluster" }
    const { total, result } = run(fixed(2 * MIN, { scenario: [deleted] }))
    expect(result.measurements.totals.clustersDeleted).toBe(4)
    expect(total).toBe(0)
  })

  it("readiness that ends and starts again just before the first deadline is held to the second one", () => {
    // ready at 2 min and connected; credentials rotated at 2 min 5 s (the next probe's 401
    // disconnects); the kubeconfig is fixed at 3 min 29.5 s, half a second before the first
    // readiness's deadline, when the next connect attempt is still to come
    const rotated: Incident = {
      at: 2 * MIN + 5 * S,
      clusters: undefined,
      incident: "rotate-credentials",
      fixAfter: 84.5 * S,
    }
    const { total, result } = run(fixed(2 * MIN, { scenario: [rotated] }))
    expect(result.measurements.totals.rotations).toBe(4)
    expect(total).toBe(0)
  })
})

describe("a violation's record", () => {
  it("says the phase is unset when the Cluster controller never wrote a status", () => {
    const mute: SimCores["cluster"] = (input, config) => {
      const step = clusterController(input, config)
      return { ...step, status: undefined, actions: step.actions.filter((a) => a._tag !== "PatchStatus") }
    }
    const { of } = run(fixed(2 * MIN), { cluster: mute })
    expect(of("provisioned-and-connected")[0]?.message).toBe(
      "ready since t=120.000s, yet 90 s later the phase is unset and the accessor is not connected",
    )
  })

  it("is written to the trace, naming its check", () => {
    const lines: Array<string> = []
    new Simulation({
      config: fixed(0),
      cores: { cluster: neverProvisioned },
      trace: textSink((text) => lines.push(...text.split("\n").filter((l) => l !== "")), CheckNames),
    }).runToEnd()
    expect(lines.filter((l) => l.includes(" violation "))).toEqual([
      "t=90.000s slot=0 violation provisioned-and-connected",
      "t=90.000s slot=1 violation provisioned-and-connected",
      "t=90.000s slot=2 violation provisioned-and-connected",
      "t=90.000s slot=3 violation provisioned-and-connected",
    ])
  })
})

describe("no-accessor-for-deleted-cluster: the deadline is the removed Cluster's", () => {
  it("a Cluster re-created under the same name and connected within the deadline is not blamed", () => {
    // deletions every few minutes, each Cluster re-created 1 s after its removal and ready 2 s
    // later: the new Cluster's accessor exists when the old one's deadline (30 s) passes
    const { total, result } = run(fixed(2 * S, { step: S, deletionRate: 20 }))
    expect(result.measurements.totals.clustersDeleted).toBeGreaterThan(20)
    expect(total).toBe(0)
  })

  it("an older Cluster's deadline does not blame a newer one whose accessor is still being removed", () => {
    // Clusters deleted every 15 s or so and re-created a second later, behind API servers whose
    // probes and connects take 3-5 s all the time: a Cluster often goes while a probe or connect
    // is in flight, and its accessor stays until that returns, when an older Cluster's deadline
    // may pass
    const slow: Incident = { at: 0, clusters: undefined, incident: "apiserver-slow", for: 2 * 60 * MIN }
    const { total, result } = run(
      fixed(2 * S, {
        clusters: 24,
        step: S,
        deletionRate: 240,
        apiServer: {
          slowLatency: { min: 4 * S, max: 4.9 * S },
          connectDuration: { min: 3 * S, max: 4.9 * S },
        },
        scenario: [slow],
      }),
    )
    // (about 4,600 deletions; a check that took any removed Cluster's deadline for the current
    // one's blames a handful of them)
    expect(result.measurements.totals.clustersDeleted).toBeGreaterThan(4_000)
    expect(total).toBe(0)
  })
})

describe("retry-interval at time 0", () => {
  it("a connect that failed at exactly t = 0 is the start of the retry interval", () => {
    // ready at t = 0 with the API server down for 15 s: the first connect fails at 0
    const down: Incident = { at: 0, clusters: undefined, incident: "apiserver-down", for: 15 * S }
    const soon: SimCores["reconciler"] = (input, config) =>
      reconcilerTransition(input, { ...config, connectionCreationRetryInterval: 10 * S })
    const { of } = run(fixed(0, { scenario: [down] }), { reconciler: soon })
    // (the requeue of 10 s is a violation of its own, at the failure)
    const early = of("retry-interval").filter((v) => v.message.startsWith("connection attempt"))
    expect(early[0]?.at).toBe(10 * S)
    expect(early[0]?.message).toBe("connection attempt 10000 ms after a failed one (retry interval 30000 ms)")
  })
})

describe("the world answers the Cluster controller's writes as an API server does", () => {
  const deleted: Incident = { at: 10 * MIN, clusters: undefined, incident: "delete-cluster" }
  type Delete = Extract<ClusterAction, { _tag: "DeleteObject" }>

  it("a second delete of a control plane or an infrastructure already going away changes nothing (no reconcile of its own)", () => {
    // A Cluster controller that repeats, on every later reconcile, each delete it ever asked for.
    const asked = new Map<string, Array<Delete>>()
    const repeating: SimCores["cluster"] = (input, config) => {
      const step = clusterController(input, config)
      const name = input.desired.infrastructureRef?.name ?? ""
      const before = asked.get(name) ?? []
      const now = step.actions.filter(
        (a): a is Delete => a._tag === "DeleteObject" && a.role !== "descendant",
      )
      asked.set(name, [...before, ...now])
      return { ...step, actions: [...step.actions, ...before] }
    }
    const { total, result } = run(fixed(2 * MIN, { scenario: [deleted] }), { cluster: repeating })
    expect(result.measurements.totals.clustersDeleted).toBe(4)
    expect(total).toBe(0)
  })

  it("the delete of the control plane or the infrastructure reconciles the Cluster at once, status patch or not", () => {
    // A Cluster controller that writes no status in the step that deletes either; the object's
    // deletionTimestamp is a change the controller watches all the same.
    const calls: Array<{ readonly at: number; readonly deletes: ReadonlyArray<string> }> = []
    const quiet: SimCores["cluster"] = (input, config) => {
      const step = clusterController(input, config)
      const deletes = step.actions.flatMap((a) =>
        a._tag === "DeleteObject" && a.role !== "descendant" ? [a.role] : [],
      )
      if (input.desired.infrastructureRef?.name === "cluster-00000") calls.push({ at: input.now, deletes })
      if (deletes.length === 0) return step
      return { ...step, status: undefined, actions: step.actions.filter((a) => a._tag !== "PatchStatus") }
    }
    run(fixed(2 * MIN, { scenario: [deleted] }), { cluster: quiet })
    for (const role of ["controlPlane", "infrastructure"]) {
      const k = calls.findIndex((c) => c.deletes.includes(role))
      expect(k, role).toBeGreaterThan(0)
      expect(calls[k + 1]?.at, role).toBe(calls[k]?.at)
    }
  })

  it("removing a finalizer the Cluster does not have changes nothing (no reconcile of its own)", () => {
    // A Cluster controller that, every reconcile, asks to remove a finalizer no one added.
    const stray: SimCores["cluster"] = (input, config) => {
      const step = clusterController(input, config)
      const cluster = { namespace: "default", name: input.desired.infrastructureRef?.name ?? "" }
      return {
        ...step,
        actions: [...step.actions, { _tag: "RemoveFinalizer", cluster, finalizer: "example.com/other" }],
      }
    }
    const { counts, result } = run(fixed(2 * MIN), { cluster: stray })
    expect(result.measurements.totals.clusterReconciles).toBe(
      run(fixed(2 * MIN)).result.measurements.totals.clusterReconciles,
    )
    expect(counts["no-reconcile-storm"]).toBe(0)
  })
})
