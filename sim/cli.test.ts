import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { runSimulate, SimUsageError, type SimulateOptions } from "./cli.ts"
import type { SimSummary } from "./summary.ts"

const dir = mkdtempSync(join(tmpdir(), "krtt-sim-"))
const base: SimulateOptions = {
  clusters: 20,
  hours: 1,
  seed: 3,
  outageRate: 0.2,
  rotationRate: 0.1,
  slowRate: 0.1,
  deletionRate: 0.05,
  json: true,
}

const capture = () => {
  let out = ""
  let err = ""
  return {
    io: { stdout: (t: string) => (out += t), stderr: (t: string) => (err += t), tty: false },
    out: () => out,
    err: () => err,
  }
}

describe("krtt simulate", () => {
  it("prints the JSON summary: counts, decisions per row, invariants by name, trace hash", async () => {
    const c = capture()
    expect(await runSimulate(base, c.io)).toBe(0)
    const s = JSON.parse(c.out()) as SimSummary
    expect(s.clusters).toBe(20)
    expect(s.simulatedSeconds).toBe(3600)
    expect(s.transitions).toBeGreaterThan(10_000)
    expect(s.decisions["clustercache.reconciler#7"]).toBeGreaterThan(1_000)
    expect(s.invariants["retry-interval"]).toBe(0)
    expect(Object.keys(s.invariants)).toContain("provisioned-and-connected")
    expect(s.traceHash).toMatch(/^[0-9a-f]{64}$/)
    expect(c.err()).toBe("")
  })

  it("writes the HTML report and the text trace", async () => {
    const report = join(dir, "report.html")
    const trace = join(dir, "trace.txt")
    const c = capture()
    await runSimulate({ ...base, report, trace }, c.io)
    const html = readFileSync(report, "utf8")
    expect(html).toMatch(/^<!doctype html>/)
    expect(html.match(/<svg /g)?.length).toBe(4)
    expect(html).not.toMatch(/<script|https?:\/\/(?!www\.w3\.org)/)
    const lines = readFileSync(trace, "utf8").trimEnd().split("\n")
    const s = JSON.parse(c.out()) as SimSummary
    expect(lines.length).toBe(s.traceRecords)
    expect(lines[0]).toMatch(/^t=\d+\.\d{3}s slot=\d+ world created 0$/)
  })

  it("runs a scenario file and names the bad fields of a wrong one", async () => {
    const good = join(dir, "good.yaml")
    writeFileSync(good, "- {at: 30m, clusters: 0-9, incident: apiserver-down, for: 5m}\n")
    const c = capture()
    await runSimulate({ ...base, scenario: good }, c.io)
    expect((JSON.parse(c.out()) as SimSummary).totals.scenarioIncidents).toBe(10)
    const bad = join(dir, "bad.yaml")
    writeFileSync(bad, "- {at: 30m, clusters: 0-99, incident: apiserver-down}\n")
    await expect(runSimulate({ ...base, scenario: bad }, capture().io)).rejects.toThrow(
      /entry 0\.clusters: slot 99 is past the fleet[\s\S]*entry 0\.for: missing/,
    )
    await expect(runSimulate({ ...base, scenario: join(dir, "missing.yaml") }, capture().io)).rejects.toThrow(
      SimUsageError,
    )
  })

  it("rejects flag values it cannot run, naming the flag", async () => {
    await expect(runSimulate({ ...base, clusters: 0 }, capture().io)).rejects.toThrow(/--clusters/)
    await expect(runSimulate({ ...base, hours: -1 }, capture().io)).rejects.toThrow(/--hours/)
    await expect(runSimulate({ ...base, outageRate: -0.5 }, capture().io)).rejects.toThrow(/--outage-rate/)
  })

  it("shows progress on a terminal", async () => {
    const c = capture()
    await runSimulate({ ...base, json: false }, { ...c.io, tty: true })
    expect(c.err()).toMatch(/\[=+\] 1h\/1h {2}connected \d+\/\d+/)
    expect(c.out()).toMatch(/invariants: all held/)
  })
})
