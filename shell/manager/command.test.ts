import { execFile } from "node:child_process"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { describe, expect, it } from "vitest"
import { parseDuration, parseFeatureGates } from "./options.ts"

const run = promisify(execFile)

describe("krtt run", () => {
  it("without a cluster, says how to point it at one and runs the embedded simulated fleet", async () => {
    const home = mkdtempSync(join(tmpdir(), "krtt-home-"))
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, KUBECONFIG: "" }
    delete env.KUBERNETES_SERVICE_HOST
    const { stdout, stderr } = await run(process.execPath, ["bin/krtt.js", "run"], { env })
    expect(stderr).toContain("no cluster is configured")
    expect(stderr).toContain("--kubeconfig")
    expect(stdout).toMatch(/krtt live: \d+ simulated Clusters/)
    expect(stdout).toContain("invariants: all held")
  }, 120_000)

  it("refuses a bad flag value, naming the flag", async () => {
    const err = await run(process.execPath, ["bin/krtt.js", "run", "--kubeconfig", "/nonexistent/kc"]).catch(
      (e: { code: number; stderr: string }) => e,
    )
    expect("code" in err ? err.code : 0).toBe(2)
    expect(err.stderr).toContain("--kubeconfig /nonexistent/kc: no such file")
  }, 60_000)

  it("reads upstream's -v=2 as the log verbosity, not --version, and lists upstream's flags with --help", async () => {
    const err = await run(process.execPath, [
      "bin/krtt.js",
      "run",
      "-v=2",
      "--diagnostics-address=:8443",
      "--kubeconfig",
      "/nonexistent/kc",
    ]).catch((e: { code: number; stderr: string; stdout: string }) => e)
    expect("code" in err ? err.code : 0).toBe(2)
    expect(err.stderr).toContain("--kubeconfig /nonexistent/kc: no such file")
    const help = await run(process.execPath, ["bin/krtt.js", "run", "--help"])
    expect(help.stdout).toContain("--diagnostics-address")
    expect(help.stdout).toContain("(default :8443)")
    expect(help.stdout).toContain("--health-addr")
    const typo = await run(process.execPath, ["bin/krtt.js", "run", "--diagnostics-addres=:1"]).catch(
      (e: { code: number; stderr: string }) => e,
    )
    expect("code" in typo ? typo.code : 0).toBe(2)
    expect(typo.stderr).toContain("did you mean --diagnostics-address?")
  }, 60_000)
})

describe("flag values", () => {
  it("parses controller-runtime style durations", () => {
    expect(parseDuration("x", "15s")).toBe(15_000)
    expect(parseDuration("x", "1m30s")).toBe(90_000)
    expect(parseDuration("x", "500ms")).toBe(500)
    expect(() => parseDuration("leader-elect-lease-duration", "15")).toThrow(
      /--leader-elect-lease-duration: "15"/,
    )
  })
  it("parses feature gates and names a bad one", () => {
    const d = { runtimeSDK: false, clusterTopology: false, machinePool: true }
    expect(parseFeatureGates("ClusterTopology=true,RuntimeSDK=true", d)).toEqual({
      runtimeSDK: true,
      clusterTopology: true,
      machinePool: true,
    })
    expect(() => parseFeatureGates("Foo=true", d)).toThrow(/--feature-gates: "Foo=true"/)
  })
})
