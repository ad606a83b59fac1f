/**
 * Every named invariant of the simulator proves itself: for each check, a
 * deliberately broken core that the check catches, with a violation naming the Cluster and the
 * rows. `simulation.test.ts` has the first three (retry-interval, failure-threshold,
 * infrastructure-after-control-plane); this file has the others.
 */
import { describe, expect, it } from "vitest"
import type { ClusterAction } from "../core/cluster/index.ts"
import {
  type ReconcilerAction,
  type ReconcilerResult,
  reconcilerTransition,
} from "../core/clustercache/index.ts"
import { type SimConfigOverrides, simConfig } from "./config.ts"
import { clusterController, type SimCores } from "./cores.ts"
import { type CheckName, CheckNames } from "./invariants.ts"
import type { Incident } from "./scenario.ts"
import { CLUSTER_SOURCE, Simulation } from "./simulation.ts"
import { flapping, neverProvisioned } from "./testCores.ts"

const MIN = 60_000
const HOUR = 60 * MIN

const quiet = (o: SimConfigOverrides = {}) =>
  simConfig({
    clusters: 12,
    hours: 2,
    seed: 7,
    faults: { outage: 0, slow: 0, rotation: 0 },
    churn: { deletionRate: 0 },
    providers: { stuckFraction: 0 },
    ...o,
  })

/** Runs a quiet fleet with broken cores; the violations of every check. */
const violations = (
  cores: Partial<SimCores>,
  scenario: ReadonlyArray<Incident> = [],
  overrides: SimConfigOverrides = {},
) => {
  const r = new Simulation({ config: quiet({ scenario, ...overrides }), cores }).runToEnd()
  return {
    counts: r.violations.counts,
    of: (check: CheckName) => r.violations.examples.filter((v) => v.check === check),
  }
}

/** Runs a quiet fleet with broken cores; the whole result. */
const run1 = (cores: Partial<SimCores>, overrides: SimConfigOverrides = {}) => ({
  result: new Simulation({ config: quiet(overrides), cores }).runToEnd(),
})

/** Rewrites every requeue the Reconciler asks for (directly or through row 12's phases). */
const requeues =
  (map: (after: number, row: string) => number): SimCores["reconciler"] =>
  (input, config) => {
    const r = reconcilerTransition(input, config)
    const actions = r.actions.map((a): ReconcilerAction => {
      if (a._tag === "Requeue") return { _tag: "Requeue", after: map(a.after, r.row) }
      if (a._tag === "Continue" && a.trigger._tag === "PhasesComplete") {
        return {
          _tag: "Continue",
          trigger: { ...a.trigger, requeueAfter: a.trigger.requeueAfter.map((x) => map(x, r.row)) },
        }
      }
      return a
    })
    return { ...r, actions }
  }

/** A Cluster controller that deletes `role`'s object together with the workers (descendants). */
const deletesWithWorkers =
  (role: "controlPlane" | "infrastructure"): SimCores["cluster"] =>
  (input, config) => {
    const step = clusterController(input, config)
    const worker = step.actions.find(
      (a): a is Extract<ClusterAction, { _tag: "DeleteObject" }> =>
        a._tag === "DeleteObject" && a.role === "descendant",
    )
    const ref = role === "controlPlane" ? input.desired.controlPlaneRef : input.desired.infrastructureRef
    if (worker === undefined || ref === undefined) return step
    const early: ClusterAction = { ...worker, role, ref: { ...worker.ref, kind: ref.kind, name: ref.name } }
    return { ...step, actions: [...step.actions, early] }
  }

const deleteAt = (at: number, clusters: [number, number]): Incident => ({
  at,
  clusters: [clusters],
  incident: "delete-cluster",
})

describe("The invariants catch a broken core (the other eight checks)", () => {
  it("a correct fleet violates nothing (the baseline for every test below)", () => {
    const { counts } = violations({}, [
      deleteAt(HOUR, [0, 3]),
      { at: HOUR, clusters: [[4, 7]], incident: "rotate-credentials", fixAfter: 5 * MIN },
    ])
    expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(0)
  })

  it("probe-interval: a Reconciler that probes every 5 s instead of 10 s", () => {
    const eager: SimCores["reconciler"] = (input, config) => {
      const accessor = input.observed.accessor
      // Every reconcile finds the probe due, and the probe requeues after half the interval.
      const due =
        accessor === undefined
          ? input
          : { ...input, observed: { accessor: { ...accessor, lastProbeTime: undefined } } }
      return requeues((after) => (after === config.healthProbe.interval ? after / 2 : after))(due, config)
    }
    const { counts, of } = violations({ reconciler: eager })
    expect(counts["probe-interval"]).toBeGreaterThan(0)
    expect(of("probe-interval")[0]?.message).toMatch(/sooner than the 10000 ms interval/)
  })

  it("probe-interval: a Reconciler that probes every 20 s", () => {
    const lazy = requeues((after, row) =>
      row === "clustercache.reconciler#12" && after === 10_000 ? 20_000 : after,
    )
    const { counts, of } = violations({ reconciler: lazy })
    expect(counts["probe-interval"]).toBeGreaterThan(0)
    expect(of("probe-interval")[0]?.message).toMatch(/later than interval \+ timeout/)
  })

  it("unauthorized-disconnect: a Reconciler that requeues a 401 after 10 s instead of 1 ms", () => {
    const slow: SimCores["reconciler"] = (input, config) => {
      const r = reconcilerTransition(input, config)
      if (r.row !== "clustercache.reconciler#11") return r
      return requeues((after) => (after === config.unauthorizedRequeueAfter ? 10_000 : after))(input, config)
    }
    const rotation: Incident = {
      at: HOUR,
      clusters: [[0, 3]],
      incident: "rotate-credentials",
      fixAfter: 5 * MIN,
    }
    const { counts, of } = violations({ reconciler: slow }, [rotation])
    expect(counts["unauthorized-disconnect"]).toBeGreaterThan(0)
    expect(of("unauthorized-disconnect")[0]?.message).toMatch(/instead of 1 ms after a 401/)
    expect(of("unauthorized-disconnect")[0]?.rows).toContain("clustercache.reconciler#11")
  })

  it("connect-disconnect-events: a Reconciler that sends no event on connect", () => {
    const silent: SimCores["reconciler"] = (input, config) => {
      const r = reconcilerTransition(input, config)
      return { ...r, actions: r.actions.filter((a) => a._tag !== "SendEvent") }
    }
    const { counts, of } = violations({ reconciler: silent })
    expect(counts["connect-disconnect-events"]).toBeGreaterThan(0)
    expect(of("connect-disconnect-events")[0]?.message).toMatch(
      /^0 connect and 0 disconnect events for 1 connect/,
    )
  })

  it("no-accessor-for-deleted-cluster: a Reconciler that keeps the accessor of a deleted Cluster", () => {
    const clinging: SimCores["reconciler"] = (input, config): ReconcilerResult => {
      const r = reconcilerTransition(input, config)
      if (input.desired.cluster._tag !== "NotFound" || input.observed.accessor === undefined) return r
      return {
        ...r,
        actions: r.actions.filter((a) => a._tag !== "DeleteAccessor"),
        status: { ...r.status, accessor: input.observed.accessor },
      }
    }
    const { counts, of } = violations({ reconciler: clinging }, [deleteAt(HOUR, [0, 3])])
    expect(counts["no-accessor-for-deleted-cluster"]).toBeGreaterThan(0)
    // (a kept accessor ends its reconcile without a requeue, and no probe is missed for it:
    // the Cluster is gone)
    expect(counts["probe-interval"]).toBe(0)
    expect(of("no-accessor-for-deleted-cluster")[0]?.message).toMatch(/accessor was kept/)
    // The world's own deadline sees it too, with no rows (no step decided it).
    const late = of("no-accessor-for-deleted-cluster").find((v) =>
      v.message.startsWith("the accessor still exists"),
    )
    expect(late?.message).toMatch(/^the accessor still exists \d+ ms after the Cluster was removed$/)
    expect(late?.rows).toEqual([])
  })

  it("no-accessor-for-deleted-cluster: a Reconciler that ignores the deletion and keeps a connected accessor is blamed for the accessor only", () => {
    const blind: SimCores["reconciler"] = (input, config): ReconcilerResult => {
      const cluster = input.desired.cluster
      if (cluster._tag === "Found" && cluster.deleting)
        return reconcilerTransition(
          { ...input, desired: { ...input.desired, cluster: { ...cluster, deleting: false } } },
          config,
        )
      const r = reconcilerTransition(input, config)
      if (cluster._tag !== "NotFound" || input.observed.accessor === undefined) return r
      return { ...r, actions: [], status: { ...r.status, accessor: input.observed.accessor } }
    }
    // deletion steps of a second each: the Cluster is gone before failed probes could disconnect
    const second = { min: 1_000, max: 1_000 }
    const fast = { workerDelete: second, controlPlaneDelete: second, infrastructureDelete: second }
    const { counts, of } = violations({ reconciler: blind }, [deleteAt(HOUR, [0, 3])], {
      providers: { ...fast, stuckFraction: 0 },
    })
    expect(of("no-accessor-for-deleted-cluster")[0]?.message).toBe(
      "the Cluster is gone but its accessor was kept",
    )
    // still connected, and no requeue: but a Cluster that is gone is not to be probed
    expect(counts["probe-interval"]).toBe(0)
  })

  it("delete-after-descendants: a Cluster controller that deletes the control plane with the workers", () => {
    const hasty = deletesWithWorkers("controlPlane")
    const { counts, of } = violations({ cluster: hasty }, [deleteAt(HOUR, [0, 3])])
    expect(counts["delete-after-descendants"]).toBeGreaterThan(0)
    expect(of("delete-after-descendants")[0]?.message).toMatch(
      /control plane was deleted while descendants remain/,
    )
    expect(of("delete-after-descendants")[0]?.rows.some((r) => r.startsWith("cluster."))).toBe(true)
  })

  it("finalizer-last: a Cluster controller that removes the finalizer as soon as deletion starts", () => {
    let finalizer: string | undefined
    const early: SimCores["cluster"] = (input, config) => {
      const step = clusterController(input, config)
      for (const a of step.actions) if (a._tag === "AddFinalizer") finalizer = a.finalizer
      const deleting = step.actions.find((a) => a._tag === "DeleteObject")
      if (deleting === undefined || finalizer === undefined) return step
      const add = step.actions.find((a) => a._tag === "PatchStatus")
      const cluster =
        add !== undefined && "cluster" in add ? add.cluster : { namespace: "default", name: "x" }
      return { ...step, actions: [...step.actions, { _tag: "RemoveFinalizer", cluster, finalizer }] }
    }
    // every Cluster has a MachineDeployment: all three kinds remain when deletion starts
    const { counts, of } = violations({ cluster: early }, [deleteAt(HOUR, [0, 3])], {
      churn: { deletionRate: 0, machineDeployments: { min: 1, max: 1 } },
    })
    expect(counts["finalizer-last"]).toBeGreaterThan(0)
    expect(of("finalizer-last")[0]?.message).toBe(
      "finalizer removed while descendants, the control plane, the infrastructure remain",
    )
  })

  it("provisioned-and-connected: a Cluster controller that never reports Provisioned", () => {
    const { counts, of } = violations({ cluster: neverProvisioned })
    expect(counts["provisioned-and-connected"]).toBeGreaterThan(0)
    const v = of("provisioned-and-connected")[0]
    expect(v?.message).toMatch(
      /^ready since t=\d+\.\d{3}s, yet \d+(\.\d+)? s later the phase is Provisioning and the accessor is (connected|not connected)$/,
    )
    const [, since, waited] = /t=(\d+\.\d{3})s, yet (\S+) s/.exec(v?.message ?? "") ?? []
    expect(Number(since) * 1000 + Number(waited) * 1000).toBeCloseTo(v?.at ?? Number.NaN, 0)
    expect(v?.rows).toEqual([])
  })

  it("provisioned-and-connected: a Reconciler that waits hours to reconnect once it has disconnected, seen after an outage, a slow period or a rotation ends", () => {
    // Readiness ends with the incident and starts again when it is over: the deadline starts
    // anew then (a check that kept the first readiness would never see this core).
    for (const incident of [
      { at: 30 * MIN, clusters: [[0, 2]], incident: "apiserver-down", for: 5 * MIN },
      { at: 30 * MIN, clusters: [[0, 2]], incident: "apiserver-slow", for: 5 * MIN },
      { at: 30 * MIN, clusters: [[0, 2]], incident: "rotate-credentials", fixAfter: 5 * MIN },
    ] satisfies ReadonlyArray<Incident>) {
      let disconnected = false
      const slow: SimCores["reconciler"] = (input, config) => {
        const r = reconcilerTransition(input, config)
        if (r.actions.some((a) => a._tag === "StopCache")) disconnected = true
        if (!disconnected) return r
        return requeues(() => 2 * HOUR)(input, config)
      }
      const { counts, of } = violations({ reconciler: slow }, [incident])
      expect(counts["provisioned-and-connected"], incident.incident).toBeGreaterThan(0)
      expect(of("provisioned-and-connected")[0]?.message, incident.incident).toMatch(
        /the accessor is not connected$/,
      )
    }
  })

  it("no-reconcile-storm: a Cluster controller whose status never settles is stopped at the bound, not looped", () => {
    // A short run: every instant of a flapping Cluster costs the bound's 20 reconciles.
    const { counts, of } = violations({ cluster: flapping() }, [], { clusters: 2, hours: 1 })
    expect(counts["no-reconcile-storm"]).toBeGreaterThan(0)
    expect(of("no-reconcile-storm")[0]?.message).toMatch(/reconciled more than 20 times at one instant/)
    expect(of("no-reconcile-storm")[0]?.rows).toEqual([])
  })

  it("no-reconcile-storm: a storm is reported once per Cluster and instant, however many reconciles the instant brings", () => {
    // A Reconciler whose every reconcile ends with an event for the Cluster controller: the
    // ClusterCache reconcile of a status change reconciles the Cluster again, also past the bound.
    const chatty: SimCores["reconciler"] = (input, config) => {
      const r = reconcilerTransition(input, config)
      if (!r.status.done) return r
      return { ...r, actions: [...r.actions, { _tag: "SendEvent", source: CLUSTER_SOURCE, reasons: [] }] }
    }
    const { result } = run1(
      { cluster: flapping(), reconciler: chatty },
      { clusters: 2, hours: 1, checks: { keepExamples: 10_000 } },
    )
    const storms = result.violations.examples.filter((v) => v.check === "no-reconcile-storm")
    expect(storms.length).toBeGreaterThan(0)
    expect(result.violations.counts["no-reconcile-storm"]).toBe(storms.length)
    expect(new Set(storms.map((v) => `${v.cluster}@${v.at}`)).size).toBe(storms.length)
  })

  it("no-reconcile-storm: a Cluster controller that requeues after 0 ms", () => {
    const zero: SimCores["cluster"] = (input, config) => {
      const step = clusterController(input, config)
      return { ...step, actions: [...step.actions, { _tag: "Requeue", after: 0 }] }
    }
    const { counts, of } = violations({ cluster: zero })
    expect(counts["no-reconcile-storm"]).toBeGreaterThan(0)
    expect(of("no-reconcile-storm")[0]?.message).toBe("requeued after 0 ms")
  })

  it("no-reconcile-storm: a Reconciler whose probe-not-due requeue is 0 ms fails the run instead of hanging it", () => {
    const zero = requeues((after, row) => (row === "clustercache.reconciler#15" ? 0 : after))
    // Row 15 (probe not due) happens when a Cluster event reconciles between probes.
    const { counts, of } = violations({ reconciler: zero })
    expect(counts["no-reconcile-storm"]).toBeGreaterThan(0)
    expect(of("no-reconcile-storm")[0]?.message).toMatch(/requeued after 0 ms/)
    expect(of("no-reconcile-storm")[0]?.rows).toContain("clustercache.reconciler#15")
    // a 0 ms requeue is a storm, not a reconcile that ended without a requeue
    expect(counts["probe-interval"]).toBe(0)
  })

  it("no-reconcile-storm: a Reconciler that never ends its reconcile is stopped at the bound, naming its rows", () => {
    // Once connected, every reconcile asks to be reconciled again, at once, forever.
    const endless: SimCores["reconciler"] = (input, config) => {
      const r = reconcilerTransition(input, config)
      if (input.trigger._tag !== "Reconcile" || input.observed.accessor?.connected !== true) return r
      const again: ReconcilerAction = { _tag: "Continue", trigger: { _tag: "Reconcile" } }
      return { ...r, actions: [again], status: { ...r.status, done: false } }
    }
    const { counts, of } = violations({ reconciler: endless }, [], { clusters: 2, hours: 1 })
    expect(counts["no-reconcile-storm"]).toBeGreaterThan(0)
    expect(of("no-reconcile-storm")[0]?.message).toBe("a reconcile did not end within 32 transitions")
    expect(of("no-reconcile-storm")[0]?.rows.length).toBe(32)
  })

  it("probe-interval: a probe exactly interval + timeout (15 s) after the last is on time, 1 ms later is late", () => {
    const at = (ms: number) =>
      violations({
        reconciler: requeues((after, row) =>
          row === "clustercache.reconciler#12" && after === 10_000 ? ms : after,
        ),
      })
    expect(at(15_000).counts["probe-interval"]).toBe(0)
    expect(at(15_001).counts["probe-interval"]).toBeGreaterThan(0)
    expect(at(15_001).of("probe-interval")[0]?.message).toMatch(
      /^probed 15001 ms after the previous probe, later than interval \+ timeout \(15000 ms\)$/,
    )
  })

  it("probe-interval: a Reconciler that leaves a connected accessor without a requeue", () => {
    const forgetful: SimCores["reconciler"] = (input, config) => {
      const r = reconcilerTransition(input, config)
      if (r.row !== "clustercache.reconciler#12" || r.status.accessor?.connected !== true) return r
      return { ...r, actions: r.actions.filter((a) => a._tag !== "Requeue") }
    }
    const { counts, of } = violations({ reconciler: forgetful })
    expect(counts["probe-interval"]).toBeGreaterThan(0)
    expect(of("probe-interval")[0]?.message).toBe(
      "a connected accessor's reconcile ended without a requeue: it will not be probed again",
    )
  })

  /** Four Clusters whose API servers are down for 5 minutes: probes fail, then connects fail. */
  const outage: Incident = { at: HOUR, clusters: [[0, 3]], incident: "apiserver-down", for: 5 * MIN }
  const threshold =
    (failureThreshold: number): SimCores["reconciler"] =>
    (input, config) =>
      reconcilerTransition(input, { ...config, healthProbe: { ...config.healthProbe, failureThreshold } })

  it("failure-threshold: a Reconciler that disconnects at the 3rd failed probe, before the threshold of 5", () => {
    const { counts, of } = violations({ reconciler: threshold(3) }, [outage])
    expect(counts["failure-threshold"]).toBeGreaterThan(0)
    expect(of("failure-threshold")[0]?.message).toBe(
      "disconnected after 3 consecutive failed probes, before the threshold 5",
    )
    expect(of("failure-threshold")[0]?.rows).toContain("clustercache.reconciler#10")
  })

  it("failure-threshold: a Reconciler that disconnects at the threshold but requeues after 10 s, not the retry interval", () => {
    const soon = requeues((after, row) => (row === "clustercache.reconciler#10" ? 10_000 : after))
    const { counts, of } = violations({ reconciler: soon }, [outage])
    expect(counts["failure-threshold"]).toBeGreaterThan(0)
    expect(of("failure-threshold")[0]?.message).toBe(
      "requeued after 10000 ms instead of the retry interval 30000 ms after the threshold disconnect",
    )
  })

  it("retry-interval: a Reconciler that requeues a failed connect after 10 s instead of 30 s", () => {
    const soon = requeues((after, row) => (row === "clustercache.reconciler#6" ? 10_000 : after))
    const { counts, of } = violations({ reconciler: soon }, [outage])
    expect(counts["retry-interval"]).toBeGreaterThan(0)
    expect(of("retry-interval").map((v) => v.message)).toContain(
      "a failed connect requeued after 10000 ms instead of 30000 ms",
    )
  })

  it("unauthorized-disconnect: a Reconciler that stays connected after a 401", () => {
    const deaf: SimCores["reconciler"] = (input, config) =>
      input.trigger._tag === "ProbeFinished" && input.trigger.outcome === "unauthorized"
        ? reconcilerTransition({ ...input, trigger: { _tag: "ProbeFinished", outcome: "success" } }, config)
        : reconcilerTransition(input, config)
    const rotation: Incident = {
      at: HOUR,
      clusters: [[0, 3]],
      incident: "rotate-credentials",
      fixAfter: 5 * MIN,
    }
    const { counts, of } = violations({ reconciler: deaf }, [rotation])
    expect(counts["unauthorized-disconnect"]).toBeGreaterThan(0)
    expect(of("unauthorized-disconnect")[0]?.message).toBe("still connected after a 401 from the probe")
  })

  it("connect-disconnect-events: a Reconciler that sends the connect event twice", () => {
    const twice: SimCores["reconciler"] = (input, config) => {
      const r = reconcilerTransition(input, config)
      return {
        ...r,
        actions: r.actions.flatMap(
          (a): ReadonlyArray<ReconcilerAction> => (a._tag === "SendEvent" ? [a, a] : [a]),
        ),
      }
    }
    const { counts, of } = violations({ reconciler: twice })
    expect(counts["connect-disconnect-events"]).toBeGreaterThan(0)
    expect(of("connect-disconnect-events")[0]?.message).toBe(
      "2 connect and 0 disconnect events for 1 connect and 0 disconnect",
    )
  })

  it("delete-after-descendants: a Cluster controller that deletes the infrastructure with the workers", () => {
    const hasty = deletesWithWorkers("infrastructure")
    const { counts, of } = violations({ cluster: hasty }, [deleteAt(HOUR, [0, 3])])
    expect(counts["delete-after-descendants"]).toBeGreaterThan(0)
    expect(of("delete-after-descendants").map((v) => v.message)).toContain(
      "the infrastructure was deleted while descendants remain",
    )
  })

  it("a Cluster controller that always fails is retried on controller-runtime's backoff (5 ms doubling to 1000 s), not in a storm", () => {
    const failing: SimCores["cluster"] = (input, config) => ({
      ...clusterController(input, config),
      actions: [{ _tag: "ReturnError", error: "boom" }],
    })
    const run = (hours: number) =>
      new Simulation({ config: quiet({ clusters: 1, hours }), cores: { cluster: failing } }).runToEnd()
    // the first reconcile, 18 retries 5 ms · 2^k apart (k = 0..17, 1310.7 s in all), then one
    // every 1000 s: 2 more in the first hour, 3 in the second
    const hour = run(1)
    expect(hour.measurements.totals.clusterReconciles).toBe(1 + 18 + 2)
    expect(run(2).measurements.totals.clusterReconciles).toBe(1 + 18 + 2 + 3)
    expect(hour.violations.counts["no-reconcile-storm"]).toBe(0)
  })

  it("hands each violation to onViolation as it is found", () => {
    const seen: Array<string> = []
    const r = new Simulation({
      config: quiet(),
      // a Reconciler that sends no event on connect: one violation per connect
      cores: {
        reconciler: (input, config) => {
          const r = reconcilerTransition(input, config)
          return { ...r, actions: r.actions.filter((a) => a._tag !== "SendEvent") }
        },
      },
      onViolation: (v) => seen.push(`${v.check} ${v.cluster} ${v.at}`),
    }).runToEnd()
    const total = Object.values(r.violations.counts).reduce((a, b) => a + b, 0)
    expect(total).toBeGreaterThan(0)
    expect(seen).toHaveLength(total)
    expect(seen.slice(0, r.violations.examples.length)).toEqual(
      r.violations.examples.map((v) => `${v.check} ${v.cluster} ${v.at}`),
    )
  })

  it("no-reconcile-storm: a ClusterCache reconcile of exactly 32 transitions is within the bound, one of 33 is not", () => {
    // A Reconciler that never connects: each reconcile continues `length - 1` times, then
    // requeues after the retry interval.
    // (A reconcile without I/O runs to its end before the next one starts: one count will do.)
    const chain = (length: number): SimCores["reconciler"] => {
      let transitions = 0
      return (input, config) => {
        const r = reconcilerTransition(input, config)
        if (++transitions < length)
          return {
            row: r.row,
            actions: [{ _tag: "Continue", trigger: { _tag: "Reconcile" } }],
            status: { accessor: input.observed.accessor, done: false },
          }
        transitions = 0
        return {
          row: r.row,
          actions: [{ _tag: "Requeue", after: config.connectionCreationRetryInterval }],
          status: { accessor: input.observed.accessor, done: true },
        }
      }
    }
    const at = (length: number) => violations({ reconciler: chain(length) }, [], { clusters: 2, hours: 1 })
    expect(at(32).counts["no-reconcile-storm"]).toBe(0)
    expect(at(33).counts["no-reconcile-storm"]).toBeGreaterThan(0)
    expect(at(33).of("no-reconcile-storm")[0]?.rows.length).toBe(32)
  })

  it("connect-disconnect-events: a Reconciler that sends a disconnect event while it stays connected", () => {
    const liar: SimCores["reconciler"] = (input, config) => {
      const r = reconcilerTransition(input, config)
      const source = input.desired.sources[0]?.name
      if (r.row !== "clustercache.reconciler#15" || source === undefined) return r
      return { ...r, actions: [{ _tag: "SendEvent", source, reasons: ["disconnect"] }, ...r.actions] }
    }
    const { counts, of } = violations({ reconciler: liar })
    expect(counts["connect-disconnect-events"]).toBeGreaterThan(0)
    expect(of("connect-disconnect-events")[0]?.message).toBe(
      "0 connect and 1 disconnect events for 0 connect and 0 disconnect",
    )
  })

  it("connect-disconnect-events: a disconnect after a successful probe is not a health-check disconnect, and its event is one too many", () => {
    // The Reconciler takes every successful probe for a failure past a threshold of 1.
    const gloomy: SimCores["reconciler"] = (input, config) =>
      input.trigger._tag === "ProbeFinished" && input.trigger.outcome === "success"
        ? reconcilerTransition(
            { ...input, trigger: { _tag: "ProbeFinished", outcome: "failure" } },
            { ...config, healthProbe: { ...config.healthProbe, failureThreshold: 1 } },
          )
        : reconcilerTransition(input, config)
    const { counts, of } = violations({ reconciler: gloomy })
    expect(counts["connect-disconnect-events"]).toBeGreaterThan(0)
    expect(of("connect-disconnect-events")[0]?.message).toBe(
      "0 connect and 1 disconnect events for 0 connect and 0 disconnect",
    )
  })

  it("every named check has a broken-core test in this file or in simulation.test.ts", () => {
    const here: ReadonlyArray<CheckName> = [
      "probe-interval",
      "unauthorized-disconnect",
      "connect-disconnect-events",
      "no-accessor-for-deleted-cluster",
      "delete-after-descendants",
      "finalizer-last",
      "provisioned-and-connected",
      "no-reconcile-storm",
    ]
    const there: ReadonlyArray<CheckName> = [
      "retry-interval",
      "failure-threshold",
      "infrastructure-after-control-plane",
    ]
    expect(new Set([...here, ...there])).toEqual(new Set(CheckNames.filter((c) => !c.startsWith("ipam"))))
  })
})
