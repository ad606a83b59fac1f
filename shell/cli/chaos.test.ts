import { assert, describe, it } from "vitest"
import { ControllerNames } from "../chaos/perturbations.ts"
import { chaosOptions } from "./chaos.ts"

const none = { _tag: "None" } as const
const some = <A>(value: A) => ({ _tag: "Some", value }) as const
const base = {
  controllers: "clustercache,cluster",
  seed: 1,
  budget: none,
  scenario: none,
  perturbation: none,
  at: none,
  mutant: none,
}

describe("krtt chaos flags", () => {
  it("without --budget: the fast campaign of every controller; with it, every point", () => {
    const fast = chaosOptions(base)
    assert.strictEqual(fast.depth, "fast")
    assert.deepStrictEqual(fast.controllers, ["clustercache", "cluster"])
    const full = chaosOptions({ ...base, budget: some(30) })
    assert.deepStrictEqual([full.depth, full.budgetSeconds], ["full", 30])
  })

  it("--controllers selects the later controllers' suites; the default is every controller", () => {
    assert.deepStrictEqual(
      chaosOptions({ ...base, controllers: "ipam,multicluster,propagate" }).controllers,
      ["ipam", "multicluster", "propagate"],
    )
    assert.deepStrictEqual(ControllerNames, ["clustercache", "cluster", "ipam", "multicluster", "propagate"])
    assert.throws(
      () => chaosOptions({ ...base, controllers: "ipam,multicluser" }),
      /--controllers: unknown value "multicluser"; did you mean "multicluster"\?/,
    )
    assert.throws(
      () => chaosOptions({ ...base, scenario: some("ipam-concurent") }),
      /--scenario: .*did you mean "ipam-concurrent"/,
    )
    assert.throws(
      () => chaosOptions({ ...base, controllers: "cluster", scenario: some("ipam-delete") }),
      /--scenario: ipam-delete is a scenario of the ipam suite, which --controllers cluster does not select \(add ipam\)/,
    )
    assert.throws(
      () => chaosOptions({ ...base, mutant: some("remember-cluster") }),
      /--mutant: .*did you mean "remember-clusters"/,
    )
  })

  it("a replay command's flags select one run", () => {
    const o = chaosOptions({
      ...base,
      seed: 7,
      scenario: some("delete"),
      perturbation: some("crash"),
      at: some(4),
      mutant: some("no-resync"),
    })
    assert.deepStrictEqual(
      [o.seed, o.scenarios, o.perturbations, o.at, o.mutant?.name],
      [7, ["delete"], ["crash"], 4, "no-resync"],
    )
  })

  it("refuses bad values with the flag's name and the closest known value", () => {
    assert.throws(
      () => chaosOptions({ ...base, controllers: "clustercache,clusterr" }),
      /--controllers: unknown value "clusterr"; did you mean "cluster"\?/,
    )
    assert.throws(
      () => chaosOptions({ ...base, scenario: some("provison") }),
      /--scenario: .*did you mean "provision"/,
    )
    assert.throws(
      () => chaosOptions({ ...base, perturbation: some("crashh") }),
      /--perturbation: .*did you mean "crash"/,
    )
    assert.throws(
      () => chaosOptions({ ...base, mutant: some("no-resink") }),
      /--mutant: .*did you mean "no-resync"/,
    )
    assert.throws(() => chaosOptions({ ...base, budget: some(0) }), /--budget: must be at least 1 second/)
    assert.throws(() => chaosOptions({ ...base, at: some(3) }), /--at: needs --perturbation/)
    assert.throws(
      () => chaosOptions({ ...base, controllers: " , " }),
      /--controllers: name at least one controller/,
    )
  })
})
