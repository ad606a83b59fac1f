// The deprecated v1beta1 conditions as upstream v1.14.2 keeps them: each changed by its own
// step only, Ready as the severity-ordered summary, the transition time moved by any change of
// status, reason, severity or message, Ready listed first.
import { describe, expect, it } from "vitest"
import { clockAt } from "./conditions.ts"
import type { Condition } from "./types.ts"
import { type V1Beta1Input, v1beta1Conditions } from "./v1beta1.ts"

const T = "2026-01-01T00:00:00Z"
const NOW = Date.UTC(2026, 5, 1)
const NOW_TEXT = "2026-06-01T00:00:00Z"
const infraRef = { apiGroup: "infrastructure.cluster.x-k8s.io", kind: "DockerCluster", name: "c1" }
const cpRef = { apiGroup: "controlplane.cluster.x-k8s.io", kind: "KubeadmControlPlane", name: "cp" }
const found = (conditions: ReadonlyArray<Condition> = [], deletionTimestamp?: string) => ({
  _tag: "Found" as const,
  object: {
    metadata: deletionTimestamp === undefined ? {} : { deletionTimestamp },
    status: { conditions },
  },
})
const base: V1Beta1Input = {
  previous: undefined,
  phases: true,
  deleting: false,
  infrastructureRef: infraRef,
  infrastructure: { _tag: "NotFound" },
  provisioned: false,
  controlPlaneRef: cpRef,
  controlPlane: { _tag: "NotFound" },
  initialized: false,
  controlPlaneGone: false,
  infrastructureGone: false,
  descendants: undefined,
  time: clockAt(NOW),
}
const run = (o: Partial<V1Beta1Input>) => v1beta1Conditions({ ...base, ...o })
const get = (cs: ReadonlyArray<Condition>, type: string) => cs.find((c) => c.type === type)
const ready = (status: Condition["status"], o: Partial<Condition> = {}): Condition => ({
  type: "Ready",
  status,
  ...o,
})

describe("v1beta1Conditions", () => {
  it("keeps what nothing sets, lists Ready first then by type, other types kept", () => {
    const previous: ReadonlyArray<Condition> = [
      { type: "Zeta", status: "True", lastTransitionTime: T },
      {
        type: "InfrastructureReady",
        status: "False",
        reason: "Booting",
        severity: "Warning",
        lastTransitionTime: T,
      },
      { type: "ControlPlaneReady", status: "True", lastTransitionTime: T },
      { type: "ControlPlaneInitialized", status: "True", lastTransitionTime: T },
      { type: "Alpha", status: "False", reason: "X", lastTransitionTime: T },
    ]
    const out = run({ previous })
    expect(out.map((c) => c.type)).toEqual([
      "Ready",
      "Alpha",
      "ControlPlaneInitialized",
      "ControlPlaneReady",
      "InfrastructureReady",
      "Zeta",
    ])
    expect(get(out, "InfrastructureReady")).toEqual(previous[1])
    expect(get(out, "Ready")).toEqual({
      type: "Ready",
      status: "False",
      severity: "Warning",
      reason: "Booting",
      lastTransitionTime: NOW_TEXT,
    })
    // nothing at all: no Ready either
    expect(run({})).toEqual([])
    expect(run({ phases: false, infrastructureRef: undefined })).toEqual([])
  })

  it("takes the most severe for Ready: Error, Warning, Info, True, Unknown, then False without a severity", () => {
    const summarize = (cp: Condition, infra: Condition) =>
      get(run({ controlPlane: found([cp]), infrastructure: found([infra]) }), "Ready")
    const f = (severity: Condition["severity"], reason: string) =>
      ready("False", severity === undefined ? { reason } : { reason, severity })
    expect(summarize(f("Info", "I"), f("Error", "E"))).toMatchObject({
      status: "False",
      reason: "E",
      severity: "Error",
    })
    expect(summarize(f("Warning", "W"), f("Info", "I"))).toMatchObject({ reason: "W", severity: "Warning" })
    expect(summarize(f("Info", "A"), f("Info", "B"))).toMatchObject({ reason: "A", severity: "Info" })
    expect(
      summarize(ready("True", { reason: "R" }), ready("Unknown", { reason: "U", message: "m" })),
    ).toEqual({
      type: "Ready",
      status: "True",
      lastTransitionTime: NOW_TEXT,
    })
    expect(summarize(f(undefined, "N"), ready("Unknown", { reason: "U", message: "m" }))).toEqual({
      type: "Ready",
      status: "Unknown",
      reason: "U",
      message: "m",
      lastTransitionTime: NOW_TEXT,
    })
    expect(summarize(f(undefined, "N"), ready("True"))).toMatchObject({ status: "True" })
  })

  it("moves the transition time when status, reason, severity or message changes", () => {
    const was: Condition = {
      type: "InfrastructureReady",
      status: "False",
      reason: "R",
      severity: "Warning",
      message: "m",
      lastTransitionTime: T,
    }
    const time = (c: Condition) =>
      get(run({ previous: [was], infrastructure: found([{ ...c, type: "Ready" }]) }), "InfrastructureReady")
        ?.lastTransitionTime
    expect(time(was)).toBe(T)
    expect(time({ ...was, status: "Unknown" })).toBe(NOW_TEXT)
    expect(time({ ...was, reason: "S" })).toBe(NOW_TEXT)
    expect(time({ ...was, severity: "Error" })).toBe(NOW_TEXT)
    expect(time({ ...was, message: "n" })).toBe(NOW_TEXT)
  })

  it("sets each condition from its own step only", () => {
    // an InfraCluster being deleted: Deleting; a provisioned one: True; gone during deletion: Deleted
    expect(get(run({ deleting: true, infrastructure: found() }), "InfrastructureReady")).toMatchObject({
      status: "False",
      reason: "Deleting",
      severity: "Info",
    })
    expect(get(run({ infrastructure: found(), provisioned: true }), "InfrastructureReady")?.status).toBe(
      "True",
    )
    expect(
      get(run({ deleting: true, infrastructureGone: true, controlPlaneGone: true }), "ControlPlaneReady"),
    ).toMatchObject({ status: "False", reason: "Deleted" })
    expect(get(run({ deleting: true, infrastructureGone: true }), "InfrastructureReady")?.reason).toBe(
      "Deleted",
    )
    // without an infrastructureRef: True, unless deleting (then kept)
    expect(get(run({ infrastructureRef: undefined }), "InfrastructureReady")).toEqual({
      type: "InfrastructureReady",
      status: "True",
      lastTransitionTime: NOW_TEXT,
    })
    expect(get(run({ infrastructureRef: undefined, deleting: true }), "InfrastructureReady")).toBeUndefined()
    // ControlPlaneInitialized: not from a control plane being deleted, and never back from True
    const cp = (t?: string) => found([], t)
    expect(get(run({ controlPlane: cp("2026-01-01T00:00:00Z") }), "ControlPlaneInitialized")).toBeUndefined()
    expect(get(run({ controlPlane: cp() }), "ControlPlaneInitialized")?.reason).toBe(
      "WaitingForControlPlaneProviderInitialized",
    )
    const initialized: Condition = { type: "ControlPlaneInitialized", status: "True", lastTransitionTime: T }
    expect(get(run({ previous: [initialized], controlPlane: cp() }), "ControlPlaneInitialized")).toEqual(
      initialized,
    )
    expect(get(run({ controlPlane: cp(), initialized: true }), "ControlPlaneReady")?.status).toBe("True")
    expect(
      get(run({ controlPlane: cp(), initialized: true, deleting: true }), "ControlPlaneReady")?.reason,
    ).toBe("Deleting")
    // without a controlPlaneRef, not while deleting, nor once True
    const listed = {
      controlPlaneMachines: [],
      workerMachines: [],
      machineDeployments: [],
      machineSets: [],
      machinePools: [],
    }
    const noRef = { controlPlaneRef: undefined, descendants: listed as never }
    expect(get(run(noRef), "ControlPlaneInitialized")?.reason).toBe("MissingNodeRef")
    expect(get(run({ ...noRef, deleting: true }), "ControlPlaneInitialized")).toBeUndefined()
    expect(get(run({ ...noRef, previous: [initialized] }), "ControlPlaneInitialized")).toEqual(initialized)
  })

  it("cuts a long message, and drops a reason the CRD refuses (none when True)", () => {
    const long = "x".repeat(10_241)
    const out = run({
      infrastructure: found([ready("False", { reason: "R", message: long })]),
      controlPlane: found([ready("True", { reason: "y".repeat(257) })]),
    })
    expect(get(out, "InfrastructureReady")?.message).toBe(`${"x".repeat(10_237)}...`)
    expect(get(out, "ControlPlaneReady")?.reason).toBeUndefined()
    expect(get(out, "InfrastructureReady")?.severity).toBeUndefined()
  })
})
