// The Deleting=WaitingForWorkersDeletion message and count (Cluster Deletion Flow): one line per
// kind still pending, in the order the controller deletes them, names sorted, at most
// `maxNamesInMessage` of them and "and N more"; control-plane Machines only when no control-plane
// object manages them.
import { describe, expect, it } from "vitest"
import { type Classified, pendingDeleteCount, pendingDeleteMessage } from "./descendants.ts"

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

  it("lists each kind in deletion order with sorted names, at most max and the rest counted", () => {
    expect(pendingDeleteMessage(all, false, 3)).toBe(
      [
        "* MachinePools: mp-a, mp-b",
        "* MachineDeployments: md-a",
        "* MachineSets: ms-a, ms-b, ms-c",
        "* Worker Machines: w-1, w-2, w-3 and 1 more",
        "* Control plane Machines: cp-1",
      ].join("\n"),
    )
    expect(pendingDeleteCount(all, false)).toBe(11)
  })

  it("leaves control-plane Machines to a control-plane object when there is one", () => {
    expect(pendingDeleteMessage(all, true, 2)).toBe(
      [
        "* MachinePools: mp-a, mp-b",
        "* MachineDeployments: md-a",
        "* MachineSets: ms-a, ms-b and 1 more",
        "* Worker Machines: w-1, w-2 and 2 more",
      ].join("\n"),
    )
    expect(pendingDeleteCount(all, true)).toBe(10)
  })

  it("skips kinds with nothing pending; nothing pending is the empty message", () => {
    expect(pendingDeleteMessage(classified({ machineSets: objs("b", "a") }), false, 1)).toBe(
      "* MachineSets: a and 1 more",
    )
    expect(pendingDeleteMessage(classified({}), false, 3)).toBe("")
    expect(pendingDeleteCount(classified({}), false)).toBe(0)
  })
})
