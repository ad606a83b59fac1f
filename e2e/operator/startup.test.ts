// krtt run on a cluster without the Cluster CRD: a clear error that says how to fix it, exit 1,
// instead of a manager that retries for ever.
import { execFile } from "node:child_process"
import { promisify } from "node:util"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type ControlPlane, startControlPlane } from "../../testenv/index.ts"

const run = promisify(execFile)
let controlPlane: ControlPlane | undefined

beforeAll(async () => {
  controlPlane = await startControlPlane({ clusters: 1 })
}, 300_000)
afterAll(async () => {
  await controlPlane?.stop()
})

describe("krtt run on a bare cluster", () => {
  it("stops with exit code 1 and names the missing CRD and the command that installs it", async () => {
    const cluster = controlPlane?.clusters[0]
    if (cluster === undefined) throw new Error("no cluster")
    const result = await run(
      process.execPath,
      [
        "bin/krtt.js",
        "run",
        "--kubeconfig",
        cluster.admin.kubeconfigPath,
        "--metrics-bind-address",
        "0",
        "--health-probe-bind-address",
        "0",
      ],
      { timeout: 60_000 },
    ).then(
      (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
      (e: { code: number; stdout: string; stderr: string }) => ({
        code: e.code,
        stdout: e.stdout,
        stderr: e.stderr,
      }),
    )
    // The manager's log, on standard error as upstream's.
    expect(result.code).toBe(1)
    expect(result.stderr).toContain("clusters.cluster.x-k8s.io is not installed")
    expect(result.stderr).toContain("kubectl apply -k config/crd")
  }, 90_000)
})
