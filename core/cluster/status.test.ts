// updateStatus's rules one by one, as upstream v1.14.2's cluster_controller_status.go words
// them: the Machine conditions' 10 s grace, Remediating and the unhealthy Machines' message,
// RollingOut/ScalingUp/ScalingDown's sources, the replica counters of stand-alone Machines, a
// provider condition without a reason.
import { describe, expect, it } from "vitest"
import { ClusterControllerDefaults } from "./config.ts"
import { reconcile } from "./reconcile.ts"
import type { ClusterInput, ClusterSpec, ClusterStatus, Condition, Descendants, Machine } from "./types.ts"

const NOW = Date.UTC(2026, 0, 1, 12, 0, 0)
const at = (msAgo: number) => new Date(NOW - msAgo).toISOString()
const cpRef = { apiGroup: "controlplane.cluster.x-k8s.io", kind: "KubeadmControlPlane", name: "cp" }
const infraRef = { apiGroup: "infrastructure.cluster.x-k8s.io", kind: "DockerCluster", name: "c1" }
const OWNER = [{ apiVersion: "cluster.x-k8s.io/v1beta2", kind: "Cluster", name: "c1", uid: "u1" }]
const EMPTY: Descendants = {
  _tag: "Listed",
  machineDeployments: [],
  machineSets: [],
  machinePools: [],
  machines: [],
}

const input = (
  o: { spec?: ClusterSpec; status?: ClusterStatus; observed?: Partial<ClusterInput["observed"]> } = {},
): ClusterInput => ({
  observed: {
    cluster: {
      _tag: "Found",
      object: {
        metadata: {
          name: "c1",
          namespace: "default",
          uid: "u1",
          generation: 1,
          finalizers: ["cluster.cluster.x-k8s.io"],
        },
        status: o.status ?? { conditions: [{ type: "Paused", status: "False", reason: "NotPaused" }] },
      },
    },
    clusterClass: { _tag: "NotFound" },
    infrastructure: { _tag: "NotFound" },
    controlPlane: { _tag: "NotFound" },
    descendants: EMPTY,
    kubeconfigSecret: { _tag: "Found" },
    featureGates: { runtimeSDK: false, clusterTopology: false, machinePool: true },
    remoteConnection: {},
    ...o.observed,
  },
  desired: o.spec ?? {},
  trigger: { _tag: "Reconcile" },
  now: NOW,
})
const statusOf = (i: ClusterInput) => reconcile(i, ClusterControllerDefaults).status
const says = (st: ClusterStatus | undefined, type: string) => {
  const c = st?.conditions?.find((x) => x.type === type)
  return [c?.status, c?.reason, c?.message]
}
const machine = (
  name: string,
  o: { cp?: boolean; created?: string; conditions?: ReadonlyArray<Condition> } = {},
): Machine => ({
  metadata: {
    name,
    labels: {
      "cluster.x-k8s.io/cluster-name": "c1",
      ...(o.cp === true ? { "cluster.x-k8s.io/control-plane": "" } : {}),
    },
    ownerReferences: OWNER,
    ...(o.created === undefined ? {} : { creationTimestamp: o.created }),
  },
  status: { conditions: o.conditions ?? [] },
})
const withMachines = (machines: ReadonlyArray<Machine>, spec: ClusterSpec = {}) =>
  statusOf(input({ spec, observed: { descendants: { ...EMPTY, machines } } }))
const c = (type: string, status: Condition["status"], message = ""): Condition => ({
  type,
  status,
  reason: "R",
  message,
})

describe("updateStatus", () => {
  it("leaves out of MachinesUpToDate a Machine without UpToDate created at most 10 s ago", () => {
    const notReported = ["Unknown", "UpToDateUnknown", "* Machine w: Condition UpToDate not yet reported"]
    expect(says(withMachines([machine("w", { created: at(5_000) })]), "WorkerMachinesUpToDate")).toEqual([
      "True",
      "NoReplicas",
      "",
    ])
    expect(says(withMachines([machine("w", { created: at(10_000) })]), "WorkerMachinesUpToDate")[1]).toBe(
      "NoReplicas",
    )
    expect(says(withMachines([machine("w", { created: at(10_001) })]), "WorkerMachinesUpToDate")).toEqual(
      notReported,
    )
    expect(says(withMachines([machine("w", { created: "not a time" })]), "WorkerMachinesUpToDate")).toEqual(
      notReported,
    )
    // a new Machine that reports UpToDate counts, and Ready knows no grace
    const fresh = withMachines([
      machine("w", { created: at(1_000), conditions: [c("UpToDate", "False", "old")] }),
    ])
    expect(says(fresh, "WorkerMachinesUpToDate")).toEqual(["False", "NotUpToDate", "* Machine w: old"])
    expect(says(fresh, "WorkerMachinesReady")).toEqual([
      "Unknown",
      "ReadyUnknown",
      "* Machine w: Condition Ready not yet reported",
    ])
    expect(says(withMachines([]), "ControlPlaneMachinesReady")).toEqual(["True", "NoReplicas", ""])
    const cp = withMachines([
      machine("cp", { cp: true, created: at(1_000), conditions: [c("Ready", "True")] }),
    ])
    expect(says(cp, "ControlPlaneMachinesUpToDate")).toEqual(["True", "NoReplicas", ""])
    expect(says(cp, "ControlPlaneMachinesReady")).toEqual(["True", "Ready", ""])
  })

  it("names the unhealthy Machines not to be remediated, sorted, three then the count", () => {
    const unhealthy = (name: string) => machine(name, { conditions: [c("HealthCheckSucceeded", "False")] })
    expect(says(withMachines([unhealthy("w1")]), "Remediating")).toEqual([
      "False",
      "NotRemediating",
      "Machine w1 is not healthy (not to be remediated)",
    ])
    expect(says(withMachines(["d", "b", "a", "c"].map(unhealthy)), "Remediating")).toEqual([
      "False",
      "NotRemediating",
      "Machines a, b, c, ... (1 more) are not healthy (not to be remediated)",
    ])
    expect(says(withMachines(["b", "a", "c"].map(unhealthy)), "Remediating")[2]).toBe(
      "Machines a, b, c are not healthy (not to be remediated)",
    )
  })

  it("aggregates RollingOut, ScalingUp, ScalingDown over the control plane reporting it, MachineDeployments and owned MachineSets", () => {
    const cp = (conditions: ReadonlyArray<Condition>) => ({
      _tag: "Found" as const,
      object: { kind: "KubeadmControlPlane", metadata: { name: "cp" }, status: { conditions } },
    })
    const run = (controlPlane: ClusterInput["observed"]["controlPlane"], descendants: Descendants = EMPTY) =>
      statusOf(input({ spec: { controlPlaneRef: cpRef }, observed: { controlPlane, descendants } }))
    const rolling = run(cp([c("RollingOut", "True", "1 of 3 replaced")]))
    expect(says(rolling, "RollingOut")).toEqual([
      "True",
      "RollingOut",
      "* KubeadmControlPlane cp: 1 of 3 replaced",
    ])
    // a control plane that does not report the type is no source
    expect(says(rolling, "ScalingUp")).toEqual(["False", "NotScalingUp", ""])
    expect(says(run(cp([c("ScalingDown", "False")])), "ScalingDown")).toEqual(["False", "NotScalingDown", ""])
    expect(says(run({ _tag: "GetFailed", error: "x" }), "ScalingUp")).toEqual([
      "Unknown",
      "InternalError",
      "Please check controller logs for errors",
    ])
    const ms = {
      metadata: { name: "ms", ownerReferences: OWNER },
      status: { conditions: [c("ScalingUp", "False")] },
    }
    const foreign = { metadata: { name: "other" }, status: { conditions: [c("ScalingUp", "True")] } }
    const sets = run({ _tag: "NotFound" }, { ...EMPTY, machineSets: [ms, foreign] })
    expect(says(sets, "ScalingUp")).toEqual(["False", "NotScalingUp", ""])
    expect(says(sets, "ScalingDown")).toEqual([
      "Unknown",
      "ScalingDownUnknown",
      "* MachineSet ms: Condition ScalingDown not yet reported",
    ])
    expect(says(sets, "RollingOut")).toEqual(["False", "NotRollingOut", ""])
  })

  it("aggregates WorkersAvailable over the MachineDeployments", () => {
    const md = (name: string, status: Condition["status"]) => ({
      metadata: { name },
      status: { conditions: [c("Available", status, status === "True" ? "" : "0 available")] },
    })
    const run = (mds: ReadonlyArray<ReturnType<typeof md>>) =>
      says(
        statusOf(input({ observed: { descendants: { ...EMPTY, machineDeployments: mds } } })),
        "WorkersAvailable",
      )
    expect(run([md("a", "True")])).toEqual(["True", "Available", ""])
    expect(run([md("a", "True"), md("b", "False")])).toEqual([
      "False",
      "NotAvailable",
      "* MachineDeployment b: 0 available",
    ])
  })

  it("counts stand-alone Machines: the control plane's and the workers the Cluster owns", () => {
    const ready = [c("Ready", "True"), c("Available", "True"), c("UpToDate", "True")]
    const st = withMachines([
      machine("cp1", { cp: true, conditions: ready }),
      machine("cp2", { cp: true }),
      machine("w1", { conditions: [c("Ready", "True")] }),
      machine("w2", { conditions: [c("Available", "True")] }),
      machine("w3", { conditions: [c("UpToDate", "True")] }),
      { ...machine("w4"), metadata: { name: "w4" } },
    ])
    expect(st?.controlPlane).toEqual({
      desiredReplicas: 2,
      replicas: 2,
      readyReplicas: 1,
      availableReplicas: 1,
      upToDateReplicas: 1,
    })
    expect(st?.workers).toEqual({
      desiredReplicas: 3,
      replicas: 3,
      readyReplicas: 1,
      availableReplicas: 1,
      upToDateReplicas: 1,
    })
    expect(withMachines([machine("w", { conditions: [c("Ready", "False")] })])?.workers).toEqual({
      desiredReplicas: 1,
      replicas: 1,
    })
  })

  it("keeps the control plane's versions when they do not read, drops them when it has none", () => {
    const before: ClusterStatus = {
      conditions: [{ type: "Paused", status: "False", reason: "NotPaused" }],
      controlPlane: { versions: [{ version: "v1.30.0", replicas: 1 }] },
    }
    const run = (status: object) =>
      statusOf(
        input({
          spec: { controlPlaneRef: cpRef },
          status: before,
          observed: {
            controlPlane: { _tag: "Found", object: { metadata: { name: "cp" }, status } as never },
          },
        }),
      )?.controlPlane
    expect(run({ versions: "not a list" })).toEqual({ versions: [{ version: "v1.30.0", replicas: 1 }] })
    expect(run({})).toBeUndefined()
    expect(run({ versions: [{ version: "v1.31.0", replicas: 2 }] })).toEqual({
      versions: [{ version: "v1.31.0", replicas: 2 }],
    })
  })

  it("mirrors a provider condition without a reason as NoReasonReported, or its True reason", () => {
    const run = (conditions: ReadonlyArray<Condition>) =>
      says(
        statusOf(
          input({
            spec: { infrastructureRef: infraRef },
            observed: {
              infrastructure: { _tag: "Found", object: { metadata: { name: "c1" }, status: { conditions } } },
            },
          }),
        ),
        "InfrastructureReady",
      )
    expect(run([{ type: "Ready", status: "False", message: "booting" }])).toEqual([
      "False",
      "NoReasonReported",
      "booting",
    ])
    expect(run([{ type: "Ready", status: "True", reason: "" }])).toEqual(["True", "Ready", ""])
    expect(run([{ type: "Ready", status: "False", reason: "not valid!" }])).toEqual(["False", "NotReady", ""])
    expect(run([{ type: "Ready", status: "Unknown", reason: "Probing" }])).toEqual(["Unknown", "Probing", ""])
  })
})
