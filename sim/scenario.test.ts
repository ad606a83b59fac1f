import { describe, expect, it } from "vitest"
import { appliesTo, formatDuration, parseDuration, parseScenario, ScenarioError } from "./scenario.ts"

const problems = (text: string, clusters?: number): ReadonlyArray<string> => {
  try {
    parseScenario(text, clusters)
  } catch (e) {
    if (e instanceof ScenarioError) return e.problems
    throw e
  }
  return []
}

describe("parseDuration", () => {
  it("reads units, compounds and plain seconds", () => {
    expect(parseDuration("2h")).toBe(7_200_000)
    expect(parseDuration("1h30m")).toBe(5_400_000)
    expect(parseDuration("250ms")).toBe(250)
    expect(parseDuration("1.5s")).toBe(1_500)
    expect(parseDuration(90)).toBe(90_000)
  })

  it("rejects what is not a duration", () => {
    for (const bad of ["", "2x", "h", "5 m", "-1s", -3, null, {}]) expect(parseDuration(bad)).toBeUndefined()
  })

  it("formats what it reads", () => {
    expect(formatDuration(5_400_000)).toBe("1h30m")
    expect(parseDuration(formatDuration(93_000))).toBe(93_000)
  })
})

describe("parseScenario", () => {
  it("reads a YAML timeline", () => {
    const incidents = parseScenario(
      `
- at: 2h
  clusters: 0-99
  incident: apiserver-down
  for: 5m
- at: 3h
  clusters: "10-19,42"
  incident: rotate-credentials
  fixAfter: 2m
- at: 4h
  incident: delete-cluster
`,
      100,
    )
    expect(incidents).toEqual([
      { at: 7_200_000, clusters: [[0, 99]], incident: "apiserver-down", for: 300_000 },
      {
        at: 10_800_000,
        clusters: [
          [10, 19],
          [42, 42],
        ],
        incident: "rotate-credentials",
        fixAfter: 120_000,
      },
      { at: 14_400_000, clusters: undefined, incident: "delete-cluster" },
    ])
    expect(appliesTo(incidents[1] as (typeof incidents)[number], 42)).toBe(true)
    expect(appliesTo(incidents[1] as (typeof incidents)[number], 20)).toBe(false)
    expect(appliesTo(incidents[2] as (typeof incidents)[number], 7)).toBe(true)
  })

  it("reads JSON, and a mapping with an incidents list", () => {
    const json = '{"incidents": [{"at": "90s", "clusters": 3, "incident": "apiserver-slow", "for": "1m"}]}'
    expect(parseScenario(json)).toEqual([
      { at: 90_000, clusters: [[3, 3]], incident: "apiserver-slow", for: 60_000 },
    ])
  })

  it("reports every bad entry, naming the field", () => {
    const found = problems(
      `
- at: 2x
  clusters: 0-9
  incident: apiserver-down
  for: 5m
- at: 1h
  clusters: 9-3
  incident: meteor
- at: 1h
  clusters: 0-500
  incident: apiserver-down
- at: 1h
  incident: rotate-credentials
  for: 5m
  colour: red
- 7
`,
      100,
    )
    expect(found).toEqual([
      'entry 0.at: expected a duration like "2h", "5m", "30s", got "2x"',
      'entry 1.incident: expected one of apiserver-down, apiserver-slow, rotate-credentials, delete-cluster, got "meteor"',
      'entry 1.clusters: range "9-3" ends before it starts',
      "entry 2.clusters: slot 500 is past the fleet (100 clusters: 0-99)",
      "entry 2.for: missing (how long the apiserver-down lasts)",
      "entry 3.colour: unknown field (known: at, clusters, incident, for, fixAfter)",
      "entry 3.for: not used by rotate-credentials",
      "entry 4: expected a mapping with at, clusters, incident, got number",
    ])
  })

  it("reports text that is not a list", () => {
    expect(problems("at: 2h")).toEqual(["expected a list of incidents, got object"])
    expect(problems("- [unclosed")[0]).toMatch(/^not YAML or JSON/)
  })
})
