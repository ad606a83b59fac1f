import { execFile } from "node:child_process"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { describe, expect, it } from "vitest"
import { decodeInput, explainInput, renderTables, UsageError } from "./explain.ts"

const run = promisify(execFile)
const dir = mkdtempSync(join(tmpdir(), "krtt-explain-"))
const file = (name: string, content: string) => {
  const p = join(dir, name)
  writeFileSync(p, content)
  return p
}

const probeDue = {
  observed: {
    accessor: {
      connected: true,
      lastProbeTime: 0,
      consecutiveFailures: 0,
      watches: [],
      lastEventSent: {},
      privateKeyGenerated: false,
    },
  },
  desired: { cluster: { _tag: "Found", infrastructureProvisioned: true, deleting: false }, sources: [] },
  trigger: { _tag: "Reconcile" },
  now: 10_000,
}

describe("krtt explain", () => {
  it("names the deciding row with its documented text (ClusterCache Reconciler, row 7)", () => {
    const e = explainInput("clustercache.reconciler", JSON.stringify(probeDue))
    expect(e.row).toBe("clustercache.reconciler#7")
    expect(e.text["Reconciliation Action"]).toContain("GET")
    expect(e.actions).toContainEqual({ _tag: "Probe", path: "/", timeout: 5_000 })
    expect(e.conforms).toBe(true)
  })

  it("names every malformed field", () => {
    const bad = { ...probeDue, now: "soon", trigger: { _tag: "Later" } }
    expect(() => decodeInput("clustercache.reconciler", JSON.stringify(bad))).toThrow(UsageError)
    try {
      decodeInput("clustercache.reconciler", JSON.stringify(bad))
    } catch (e) {
      expect((e as Error).message).toContain("input.now")
      expect((e as Error).message).toContain("input.trigger")
    }
  })

  it("refuses an unknown table and text that is not JSON, with a message", () => {
    expect(() => decodeInput("nope", "{}")).toThrow(/unknown table "nope"/)
    expect(() => decodeInput("clustercache.errors", "{")).toThrow(/not valid JSON/)
  })

  it("lists every table and row", () => {
    const text = renderTables()
    expect(text).toContain("clustercache.reconciler#13")
    expect(text).toContain("clustercache.errors#7")
  })

  it("the binary prints the row as JSON, and a clear error without a stack trace for bad input", async () => {
    const ok = await run("node", [
      "bin/krtt.js",
      "explain",
      "clustercache.reconciler",
      "--input",
      file("ok.json", JSON.stringify(probeDue)),
      "--json",
    ])
    expect(JSON.parse(ok.stdout)).toMatchObject({ row: "clustercache.reconciler#7", conforms: true })
    const bad = await run("node", [
      "bin/krtt.js",
      "explain",
      "clustercache.reconciler",
      "--input",
      file("bad.json", '{"now":1}'),
    ]).catch((e: { code: number; stderr: string }) => e)
    expect("code" in bad ? bad.code : 0).toBe(2)
    expect(bad.stderr).toContain("input.observed")
    expect(bad.stderr).not.toMatch(/\n\s+at /)
    const missing = await run("node", [
      "bin/krtt.js",
      "explain",
      "clustercache.errors",
      "--input",
      join(dir, "none.json"),
    ]).catch((e: { code: number; stderr: string }) => e)
    expect(missing.stderr).toContain("cannot read the input file")
  })
})
