import { spawnSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { MINIMUM_NODE, tooOld, tooOldMessage } from "../../bin/node-version.js"

describe("bin/node-version.js", () => {
  it("tooOld() draws the line at 22.19 (the dependencies' engines)", () => {
    for (const v of ["18.20.0", "20.20.2", "v20.0.0", "21.9.0", "22.0.0", "22.17.9", "22.18.0"]) {
      expect(tooOld(v), v).toBe(true)
    }
    for (const v of ["22.19.0", "v22.19.0", "22.19.1", "23.0.0", "23.5.1", "24.0.0", "24.21.0", "26.1.0"]) {
      expect(tooOld(v), v).toBe(false)
    }
  })
  it("the message is one line naming the needed and the running version", () => {
    const m = tooOldMessage("v20.20.2")
    expect(m).not.toContain("\n")
    expect(m).toContain(`Node.js ${MINIMUM_NODE} or later`)
    expect(m).toContain("this is Node.js 20.20.2")
  })
  it("package.json's engines.node names the same minimum, no lower than any runtime dependency's", () => {
    const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"))
    expect(pkg.engines.node).toBe(`>=${MINIMUM_NODE}`)
    const lock = JSON.parse(readFileSync(new URL("../../package-lock.json", import.meta.url), "utf8"))
    const needs = Object.entries(
      lock.packages as Record<string, { dev?: boolean; engines?: { node?: string } }>,
    )
      .filter(
        ([path, p]) => path !== "" && p.dev !== true && /^>=\s*\d+\.\d+\.\d+$/.test(p.engines?.node ?? ""),
      )
      .map(([path, p]) => [path, (p.engines?.node ?? "").replace(/^>=\s*/, "")] as const)
    expect(needs.length).toBeGreaterThan(0)
    for (const [path, version] of needs) {
      const [a, b, c] = version.split(".").map(Number)
      const [x, y, z] = MINIMUM_NODE.split(".").map(Number)
      expect((a ?? 0) * 1e6 + (b ?? 0) * 1e3 + (c ?? 0), path).toBeLessThanOrEqual(
        (x ?? 0) * 1e6 + (y ?? 0) * 1e3 + (z ?? 0),
      )
    }
  })
  it("bin/krtt.js under the running Node starts (prints its usage)", () => {
    const r = spawnSync(process.execPath, ["bin/krtt.js", "--help"], { encoding: "utf8" })
    expect(r.status).toBe(0)
    expect(r.stdout).toContain("krtt")
  })
})
