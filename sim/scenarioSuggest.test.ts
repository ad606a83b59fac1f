import { describe, expect, it } from "vitest"
import { parseScenario } from "./scenario.ts"

describe("scenario files refuse typos", () => {
  it("an unknown field names the closest known one", () => {
    expect(() =>
      parseScenario("- at: 1h\n  clusters: 0-9\n  incident: rotate-credentials\n  fixAfer: 5m\n", 10),
    ).toThrow(
      'entry 0.fixAfer: unknown field; did you mean "fixAfter"? (known: at, clusters, incident, for, fixAfter)',
    )
  })
})
