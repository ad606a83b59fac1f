// The differential suite against upstream Cluster API v1.14.2's core manager (e2e/conformance/
// run.ts): every scenario under upstream's manager and under `krtt run`, compared field by
// field. It finds exactly the divergences listed with their reasons in divergences.ts: a new
// one, or a listed one that is gone, fails the test. Runs only when upstream's manager binary is
// already built (`npm run conformance:upstream` builds it, in about 10 minutes).
import { existsSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { upstreamManagerPath } from "../../bench/compare-upstream.ts"
import { compareRuns, type Divergence, normalise, RUN_SUFFIX, WATCH_FILTER_LABEL } from "./compare.ts"
import { DOCUMENTED, type Documented, UPSTREAM_VERSION } from "./divergences.ts"
import { unexplained } from "./match.ts"
import { runSuite } from "./run.ts"
import { SCENARIOS } from "./scenarios.ts"

const binary = upstreamManagerPath(UPSTREAM_VERSION)
const cached = existsSync(binary)
if (!cached)
  console.log(
    `conformance: skipped, upstream's manager ${UPSTREAM_VERSION} is not built at ${binary} (npm run conformance:upstream builds it)`,
  )

const where = (d: Divergence) => `${d.scenario} ${d.field}`

describe("the documented divergences", () => {
  it("each have a reason, name a scenario of the suite, and are listed once", () => {
    const names = new Set(SCENARIOS.map((s) => s.name))
    for (const d of DOCUMENTED) {
      expect(d.reason.length, where(d)).toBeGreaterThan(20)
      expect(names.has(d.scenario), where(d)).toBe(true)
    }
    expect(new Set(DOCUMENTED.map(where)).size).toBe(DOCUMENTED.length)
  })

  it("match exactly, and intermittent ones on their scenario and field", () => {
    const steady: Documented = { scenario: "a", field: "f", upstream: "1", krtt: "2", reason: "r" }
    const flaky: Documented = { ...steady, scenario: "b", intermittent: true }
    const docs = [steady, flaky]
    expect(unexplained([steady], docs)).toEqual({ unexpected: [], missing: [] })
    expect(unexplained([steady, { ...flaky, krtt: "3" }], docs)).toEqual({ unexpected: [], missing: [] })
    const other = { ...steady, krtt: "3" }
    expect(unexplained([other], docs)).toEqual({ unexpected: [other], missing: [steady] })
    const stray = { ...steady, field: "g" }
    expect(unexplained([steady, stray], docs)).toEqual({ unexpected: [stray], missing: [] })
  })
})

describe.skipIf(!cached)(`krtt beside upstream Cluster API ${UPSTREAM_VERSION}'s manager`, () => {
  it("finds exactly the documented divergences", async () => {
    const report = await runSuite({
      binary,
      version: UPSTREAM_VERSION,
      scenarios: SCENARIOS,
      log: () => undefined,
    })
    expect(report.scenarios).toBe(SCENARIOS.length)
    expect(report.scenarios).toBeGreaterThanOrEqual(20)
    expect(report.fields).toBeGreaterThan(1_000)
    expect(unexplained(report.divergences, DOCUMENTED)).toEqual({ unexpected: [], missing: [] })
  }, 900_000)
})

describe("the run-beside-run comparison", () => {
  const cluster = (ns: string, status: Record<string, unknown>, finalizers: ReadonlyArray<string>) => ({
    apiVersion: "cluster.x-k8s.io/v1beta2",
    kind: "Cluster",
    metadata: { name: "c", namespace: ns, finalizers, labels: { [WATCH_FILTER_LABEL]: ns } },
    status,
  })
  const run = (ns: string, status: Record<string, unknown>, finalizers: ReadonlyArray<string> = []) => ({
    ns,
    snapshot: {
      settled: true,
      cluster: cluster(ns, status, finalizers),
      providers: {},
      events: [],
      descendants: [],
    },
  })

  it("normalises times, the namespace, and an empty object or list to absent", () => {
    expect(normalise("probe last succeeded at 2026-01-01T00:00:00Z in ns-1", "ns-1")).toBe(
      "probe last succeeded at <time> in <ns>",
    )
    expect(normalise({})).toBe("<absent>")
    expect(normalise([])).toBe("<absent>")
    expect(normalise(undefined)).toBe("<absent>")
  })

  it("finds a different finalizer and a different condition message, and nothing else", () => {
    const u = run(
      "u-a",
      {
        phase: "Provisioned",
        conditions: [{ type: "Ready", status: "True", reason: "R", message: "in u-a" }],
      },
      ["f"],
    )
    const k = run("k-a", {
      phase: "Provisioned",
      conditions: [{ type: "Ready", status: "True", reason: "R", message: "other" }],
    })
    const { divergences, fields } = compareRuns("a", u, k)
    expect(divergences).toEqual([
      { scenario: "a", field: "Cluster.metadata.finalizers", upstream: '["f"]', krtt: "<absent>" },
      {
        scenario: "a",
        field: `status.conditions[Ready].message${RUN_SUFFIX}`,
        upstream: "in <ns>",
        krtt: "other",
      },
    ])
    expect(fields).toBeGreaterThan(10)
    expect(compareRuns("a", u, run("k-a", u.snapshot.cluster.status, ["f"])).divergences).toEqual([])
    const unsettled = { ...u, snapshot: { ...u.snapshot, settled: false } }
    expect(compareRuns("a", unsettled, unsettled).divergences).toEqual([
      { scenario: "a", field: "settled", upstream: "false", krtt: "false" },
    ])
  })
})
