// `testenv up` and `testenv down`, end to end, through spawned processes.
import { spawn } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import * as k8s from "@kubernetes/client-node"
import { afterAll, describe, expect, it } from "vitest"
import { isAlive } from "../../testenv/processes.ts"

const cli = fileURLToPath(new URL("../../testenv/cli.ts", import.meta.url))

const run = (args: ReadonlyArray<string>): Promise<{ code: number | null; stdout: string; stderr: string }> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], { stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d: Buffer) => {
      stdout += d.toString()
    })
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString()
    })
    child.on("error", reject)
    child.on("close", (code) => resolve({ code, stdout, stderr }))
  })

const parent = await mkdtemp(join(tmpdir(), "krtt-testenv-cli-"))
const dir = join(parent, "cp")

afterAll(async () => {
  // should the test fail half-way, leave nothing running
  await run(["down", "--dir", dir])
  await rm(parent, { recursive: true, force: true })
})

const namespaces = async (kubeconfigPath: string): Promise<ReadonlyArray<string | undefined>> => {
  const kc = new k8s.KubeConfig()
  kc.loadFromFile(kubeconfigPath)
  const list = await kc.makeApiClient(k8s.CoreV1Api).listNamespace()
  return list.items.map((n) => n.metadata?.name)
}

describe("testenv up / down", () => {
  it("starts two clusters in the background, refuses a second up, and stops without a trace", async () => {
    const up = await run(["up", "--clusters", "2", "--dir", dir])
    expect(up.stderr).toBe("")
    expect(up.code).toBe(0)
    expect(up.stdout).toMatch(/control plane up in \d+\.\d s: 2 cluster\(s\), Kubernetes v1\.34\.4/)
    expect(up.stdout).toContain("with kube-controller-manager")

    // The command has exited; the control plane lives on.
    for (const i of [0, 1]) {
      expect(await namespaces(join(dir, `cluster-${i}.kubeconfig`))).toContain("default")
      const refused = namespaces(join(dir, `cluster-${i}.noaccess.kubeconfig`))
      await expect(refused).rejects.toThrow(/403/)
    }
    expect(existsSync(join(dir, "cluster-2.kubeconfig"))).toBe(false)

    const again = await run(["up", "--clusters", "1", "--dir", dir])
    expect(again.code).toBe(1)
    expect(again.stderr).toContain(`a control plane is already running in ${dir}`)
    expect(await namespaces(join(dir, "cluster-0.kubeconfig"))).toContain("default")

    const state = JSON.parse(readFileSync(join(dir, "testenv.json"), "utf8")) as { pid: number }
    const pids = JSON.parse(readFileSync(join(dir, "run", "pids.json"), "utf8")) as Array<number>
    expect(pids).toHaveLength(5) // etcd, two kube-apiservers and their kube-controller-managers
    expect([state.pid, ...pids].every(isAlive)).toBe(true)

    const down = await run(["down", "--dir", dir])
    expect(down.code).toBe(0)
    expect(down.stdout).toContain("stopped")
    expect(existsSync(dir)).toBe(false)
    expect([state.pid, ...pids].filter(isAlive)).toEqual([])
  }, 300_000)

  it("--no-controller-manager starts etcd and the kube-apiserver only, and says so", async () => {
    const up = await run(["up", "--no-controller-manager", "--dir", dir])
    expect(up.code, up.stderr).toBe(0)
    expect(up.stdout).toContain("without kube-controller-manager")
    const pids = JSON.parse(readFileSync(join(dir, "run", "pids.json"), "utf8")) as Array<number>
    expect(pids).toHaveLength(2)
    const down = await run(["down", "--dir", dir])
    expect(down.code).toBe(0)
    expect(pids.filter(isAlive)).toEqual([])
  }, 300_000)
})
