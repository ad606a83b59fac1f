import { describe, expect, it } from "vitest"
import { Mutants } from "../chaos/mutants.ts"
import { ControllerNames, PerturbationKinds } from "../chaos/perturbations.ts"
import { Scenarios } from "../chaos/suites.ts"
import { ChaosFlagNames } from "./chaosCommand.ts"

describe("krtt chaos's flags", () => {
  it("list shell/chaos's controllers, scenarios, perturbations and mutants, in its order", () => {
    expect(ChaosFlagNames).toEqual({
      controllers: ControllerNames,
      scenarios: Scenarios.map((s) => s.name),
      perturbations: PerturbationKinds,
      mutants: Mutants.map((m) => m.name),
    })
  })
})
