// Aggregated and summarized condition messages, word for word as Cluster API v1.14.2's
// util/conditions writes them: grouped by message, control-plane Machines first, issues before
// unknowns, three names per line then ", ... (N more)", three lines then "And N ... with other
// issues", multi-line messages indented under their line.
import { describe, expect, it } from "vitest"
import { aggregateCondition, type Source } from "./aggregate.ts"
import { availableCondition } from "./available.ts"
import { sortConditions } from "./conditionOrder.ts"
import { indentIfMultiline } from "./merge.ts"
import type { Condition, ConditionStatus } from "./types.ts"

const reasons = { issue: "NotReady", unknown: "ReadyUnknown", info: "Ready" }
const machine = (name: string, status?: ConditionStatus, message = "", cp = false): Source => ({
  kind: "Machine",
  name,
  controlPlaneMachine: cp,
  conditions: status === undefined ? [] : [{ type: "Ready", status, reason: "R", message }],
})
const cond = (type: string, status: ConditionStatus, reason: string, message = ""): Condition => ({
  type,
  status,
  reason,
  message,
})

describe("aggregateCondition", () => {
  it("groups objects by message, most objects first, names sorted", () => {
    const a = aggregateCondition(
      [machine("m3", "False", "disk"), machine("m1", "False", "disk"), machine("m2", "False", "net")],
      "Ready",
      reasons,
      3,
    )
    expect(a).toEqual({
      status: "False",
      reason: "NotReady",
      message: "* Machines m1, m3: disk\n* Machine m2: net",
    })
  })

  it("lists control-plane Machines first, and their messages first", () => {
    const a = aggregateCondition(
      [machine("w1", "False", "a"), machine("w2", "False", "a"), machine("cp1", "False", "b", true)],
      "Ready",
      reasons,
      3,
    )
    expect(a.message).toBe("* Machine cp1: b\n* Machines w1, w2: a")
    const both = aggregateCondition(
      [machine("w1", "False", "a"), machine("cp1", "False", "a", true)],
      "Ready",
      reasons,
      3,
    )
    expect(both.message).toBe("* Machines cp1, w1: a")
  })

  it("shows three names then counts the rest, three lines then counts the objects left", () => {
    const many = ["m1", "m2", "m3", "m4", "m5"].map((n) => machine(n, "False", "x"))
    expect(aggregateCondition(many, "Ready", reasons, 3).message).toBe(
      "* Machines m1, m2, m3, ... (2 more): x",
    )
    const lines = [
      machine("a", "False", "1"),
      machine("b", "False", "2"),
      machine("c", "False", "3"),
      machine("d", "False", "4"),
      machine("e", "False", "5"),
      machine("f"),
    ]
    expect(aggregateCondition(lines, "Ready", reasons, 3).message).toBe(
      "* Machine a: 1\n* Machine b: 2\n* Machine c: 3\nAnd 2 Machines with other issues\nAnd 1 Machine with status unknown",
    )
  })

  it("lists issues before unknowns; an object that has not reported is unknown", () => {
    const a = aggregateCondition([machine("u"), machine("f", "False", "down")], "Ready", reasons, 3)
    expect(a).toEqual({
      status: "False",
      reason: "NotReady",
      message: "* Machine f: down\n* Machine u: Condition Ready not yet reported",
    })
    expect(aggregateCondition([machine("u", "Unknown", "?")], "Ready", reasons, 3)).toEqual({
      status: "Unknown",
      reason: "ReadyUnknown",
      message: "* Machine u: ?",
    })
  })

  it("when all is well, lists only the info messages that say something", () => {
    expect(
      aggregateCondition([machine("a", "True"), machine("b", "True", "fine")], "Ready", reasons, 3),
    ).toEqual({
      status: "True",
      reason: "Ready",
      message: "* Machine b: fine",
    })
  })

  it("negative polarity: True is the issue and makes the aggregate True", () => {
    const src = (name: string, status: ConditionStatus): Source => ({
      kind: "MachineDeployment",
      name,
      conditions: [{ type: "RollingOut", status, reason: "R", message: "" }],
    })
    const r = { issue: "RollingOut", unknown: "RollingOutUnknown", info: "NotRollingOut" }
    expect(aggregateCondition([src("a", "True"), src("b", "False")], "RollingOut", r, 3, true)).toEqual({
      status: "True",
      reason: "RollingOut",
      message: "* MachineDeployment a: ",
    })
    expect(aggregateCondition([src("b", "False")], "RollingOut", r, 3, true)).toEqual({
      status: "False",
      reason: "NotRollingOut",
      message: "",
    })
  })

  it("sorts kinds by name", () => {
    const a = aggregateCondition(
      [
        { kind: "MachineSet", name: "ms", conditions: [] },
        { kind: "KubeadmControlPlane", name: "cp", conditions: [] },
      ],
      "ScalingUp",
      reasons,
      3,
    )
    expect(a.message).toBe(
      "* KubeadmControlPlane cp: Condition ScalingUp not yet reported\n* MachineSet ms: Condition ScalingUp not yet reported",
    )
  })
})

describe("indentIfMultiline", () => {
  it("keeps a one-line message on the line, indents lines and bullets under it", () => {
    expect(indentIfMultiline("a")).toBe(" a")
    expect(indentIfMultiline("* a")).toBe("\n  * a")
    expect(indentIfMultiline("a\nb")).toBe("\n  * a\n  * b")
    expect(indentIfMultiline("head\n* a")).toBe("\n  * head\n    * a")
  })
})

describe("availableCondition", () => {
  const healthy = [
    cond("Deleting", "False", "NotDeleting"),
    cond("RemoteConnectionProbe", "True", "ProbeSucceeded"),
    cond("InfrastructureReady", "True", "Ready"),
    cond("ControlPlaneAvailable", "True", "Available"),
    cond("WorkersAvailable", "True", "NoWorkers"),
  ]
  it("is True with the info messages that say something", () => {
    expect(availableCondition({ conditions: healthy, deleting: false, topology: false, gates: [] })).toEqual({
      status: "True",
      reason: "Available",
      message: "",
    })
    const noted = healthy.map((c) => (c.type === "InfrastructureReady" ? { ...c, message: "all good" } : c))
    expect(
      availableCondition({ conditions: noted, deleting: false, topology: false, gates: [] }).message,
    ).toBe("* InfrastructureReady: all good")
  })

  it("requires TopologyReconciled with a topology, and takes a False one as an issue only when it failed", () => {
    expect(availableCondition({ conditions: healthy, deleting: false, topology: true, gates: [] })).toEqual({
      status: "Unknown",
      reason: "AvailableUnknown",
      message: "* TopologyReconciled: Condition not yet reported",
    })
    const pending = [...healthy, cond("TopologyReconciled", "False", "ClusterUpgrading", "upgrading")]
    expect(
      availableCondition({ conditions: pending, deleting: false, topology: true, gates: [] }).status,
    ).toBe("True")
    const failed = [...healthy, cond("TopologyReconciled", "False", "ReconcileFailed", "boom")]
    expect(availableCondition({ conditions: failed, deleting: false, topology: true, gates: [] })).toEqual({
      status: "False",
      reason: "NotAvailable",
      message: "* TopologyReconciled: boom",
    })
  })

  it("while deleting: Deleting is the issue, a gone provider object is not", () => {
    const deleting = [
      cond("Deleting", "True", "WaitingForInfrastructureDeletion", "Waiting for DockerCluster to be deleted"),
      cond("RemoteConnectionProbe", "True", "ProbeSucceeded"),
      cond("InfrastructureReady", "False", "Deleting", "being deleted"),
      cond("ControlPlaneAvailable", "False", "ObjectDeleted", "KubeadmControlPlane has been deleted"),
      cond("WorkersAvailable", "True", "NoWorkers"),
    ]
    expect(availableCondition({ conditions: deleting, deleting: true, topology: false, gates: [] })).toEqual({
      status: "False",
      reason: "NotAvailable",
      message: "* Deleting: Waiting for DockerCluster to be deleted\n* InfrastructureReady: being deleted",
    })
  })

  it("takes a negative gate True as an issue, and writes the reason of a condition without a message", () => {
    const gated = [...healthy, cond("Quiet", "True", "Loud")]
    expect(
      availableCondition({
        conditions: gated,
        deleting: false,
        topology: false,
        gates: [{ conditionType: "Quiet", polarity: "Negative" }],
      }),
    ).toEqual({ status: "False", reason: "NotAvailable", message: "* Quiet: Loud" })
  })
})

describe("sortConditions", () => {
  it("orders the Cluster's conditions as upstream does, other types by name before Paused and Deleting", () => {
    const types = [
      "Deleting",
      "Paused",
      "Zeta",
      "Alpha",
      "WorkerMachinesUpToDate",
      "RemoteConnectionProbe",
      "Available",
      "InfrastructureReady",
      "TopologyReconciled",
    ]
    expect(sortConditions(types.map((t) => cond(t, "True", "R"))).map((c) => c.type)).toEqual([
      "Available",
      "RemoteConnectionProbe",
      "InfrastructureReady",
      "TopologyReconciled",
      "WorkerMachinesUpToDate",
      "Alpha",
      "Zeta",
      "Paused",
      "Deleting",
    ])
  })
})
