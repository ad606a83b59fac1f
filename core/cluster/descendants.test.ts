// The Deleting=WaitingForWorkersDeletion message and count (Cluster Deletion Flow): one line per
// kind still pending, in upstream's order (control-plane Machines, MachineDeployments,
// MachineSets, MachinePools, worker Machines), names sorted, at most `max` of them and
// "... (N more)" as upstream's list helper writes it; control-plane Machines only when no
// control-plane object manages them.
import { describe, expect, it } from "vitest"
import { ClusterControllerDefaults } from "./config.ts"
import { type Classified, filterOwned, pendingDeleteCount, pendingDeleteMessage } from "./descendants.ts"

const objs = (...names: Array<string>) => names.map((name) => ({ metadata: { name } }))
const classified = (c: Partial<Record<keyof Classified, ReadonlyArray<{ metadata: { name: string } }>>>) =>
  ({
    machineDeployments: [],
    machineSets: [],
    machinePools: [],
    controlPlaneMachines: [],
    workerMachines: [],
    ...c,
  }) as unknown as Classified

describe("pendingDeleteMessage", () => {
  const all = classified({
    machinePools: objs("mp-b", "mp-a"),
    machineDeployments: objs("md-a"),
    machineSets: objs("ms-c", "ms-a", "ms-b"),
    workerMachines: objs("w-5", "w-1", "w-3", "w-2"),
    controlPlaneMachines: objs("cp-1"),
  })

  it("lists each kind in upstream's order with sorted names, at most max and the rest counted", () => {
    expect(pendingDeleteMessage(all, false, 3)).toBe(
      [
        "* Control plane Machines: cp-1",
        "* MachineDeployments: md-a",
        "* MachineSets: ms-a, ms-b, ms-c",
        "* MachinePools: mp-a, mp-b",
        "* Worker Machines: w-1, w-2, w-3, ... (1 more)",
      ].join("\n"),
    )
    expect(pendingDeleteCount(all, false)).toBe(11)
  })

  it("leaves control-plane Machines to a control-plane object when there is one", () => {
    expect(pendingDeleteMessage(all, true, 2)).toBe(
      [
        "* MachineDeployments: md-a",
        "* MachineSets: ms-a, ms-b, ... (1 more)",
        "* MachinePools: mp-a, mp-b",
        "* Worker Machines: w-1, w-2, ... (2 more)",
      ].join("\n"),
    )
    expect(pendingDeleteCount(all, true)).toBe(10)
  })

  it("skips kinds with nothing pending; nothing pending is the empty message", () => {
    expect(pendingDeleteMessage(classified({ machineSets: objs("b", "a") }), false, 1)).toBe(
      "* MachineSets: a, ... (1 more)",
    )
    expect(pendingDeleteMessage(classified({}), false, 3)).toBe("")
    expect(pendingDeleteCount(classified({}), false)).toBe(0)
  })

  it("writes upstream's example: five names by default, then how many more", () => {
    const many = classified({
      controlPlaneMachines: objs("cp3", "cp1", "cp2"),
      machineDeployments: objs("md2", "md1"),
      machineSets: objs("ms1", "ms2"),
      workerMachines: objs("w8", "w7", "w6", "w5", "w4", "w3", "w2", "w1"),
    })
    expect(pendingDeleteMessage(many, false, ClusterControllerDefaults.maxNamesInDeletingMessage)).toBe(
      [
        "* Control plane Machines: cp1, cp2, cp3",
        "* MachineDeployments: md1, md2",
        "* MachineSets: ms1, ms2",
        "* Worker Machines: w1, w2, w3, w4, w5, ... (3 more)",
      ].join("\n"),
    )
    expect(ClusterControllerDefaults.maxNamesInDeletingMessage).toBe(5)
  })
})

describe("filterOwned", () => {
  const cluster = { name: "c1", namespace: "ns", uid: "u1" }
  const owned = (name: string, ownerReferences: ReadonlyArray<object>, deletionTimestamp?: string) => ({
    metadata: { name, ownerReferences, ...(deletionTimestamp === undefined ? {} : { deletionTimestamp }) },
  })
  const toCluster = { apiVersion: "cluster.x-k8s.io/v1beta2", kind: "Cluster", name: "c1", uid: "u1" }

  it("keeps the descendants with an owner reference to the Cluster, in deletion order", () => {
    const c = classified({
      machineSets: [owned("ms-1", [toCluster], "2026-01-01T00:00:00Z")] as never,
      machineDeployments: [
        owned("md-1", [toCluster]),
        owned("md-other", [{ ...toCluster, name: "c2" }]),
        owned("md-none", []),
      ] as never,
    })
    expect(filterOwned(c, false, cluster)).toEqual({
      _tag: "Owned",
      children: [
        {
          ref: { apiGroup: "cluster.x-k8s.io", kind: "MachineDeployment", namespace: "ns", name: "md-1" },
          deleting: false,
        },
        {
          ref: { apiGroup: "cluster.x-k8s.io", kind: "MachineSet", namespace: "ns", name: "ms-1" },
          deleting: true,
        },
      ],
    })
    expect(filterOwned(classified({}), false, cluster)).toEqual({ _tag: "Owned", children: [] })
  })

  it("is undecidable only for a reference to this Cluster whose apiVersion does not parse", () => {
    const bad = { ...toCluster, apiVersion: "a/b/c" }
    expect(filterOwned(classified({ machineSets: [owned("ms-1", [bad])] as never }), false, cluster)).toEqual(
      {
        _tag: "Undecidable",
        kind: "MachineSet",
        name: "ms-1",
        apiVersion: "a/b/c",
      },
    )
    // another Cluster's, or another kind's, malformed reference is no reference to this Cluster
    for (const other of [
      { ...bad, name: "c2" },
      { ...bad, kind: "MachineDeployment" },
    ])
      expect(
        filterOwned(classified({ machineSets: [owned("ms-1", [other])] as never }), false, cluster),
      ).toEqual({
        _tag: "Owned",
        children: [],
      })
  })
})
