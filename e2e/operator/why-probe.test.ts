// `krtt why cluster --probe` against real workload API servers: the ClusterCache part of the
// diagnosis connects with the Cluster's kubeconfig Secret and makes one `GET /`, so the row that
// decides (ClusterCache Reconciler, rows 4 and 6) and what it waits on come from the workload
// server's answer: reachable with valid credentials, refused credentials, nothing listening, no
// Secret. Without `--probe` the diagnosis says the probe's answer is what it cannot know.
import { execFile } from "node:child_process"
import { createServer } from "node:net"
import { promisify } from "node:util"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Cluster, type ControlPlane, startControlPlane } from "../../testenv/index.ts"
import {
  clusterObject,
  create,
  createNamespace,
  installManagement,
  kubeconfigSecret,
  mergePatch,
  paths,
  repoRoot,
} from "../fixtures/index.ts"

const run = promisify(execFile)

let controlPlane: ControlPlane
let mgmt: Cluster
let workload: Cluster
let ns: string

/** A port nothing listens on: bound, read, and closed again. */
const closedPort = async (): Promise<number> => {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const address = server.address()
  await new Promise<void>((resolve) => server.close(() => resolve()))
  if (address === null || typeof address === "string") throw new Error("no port")
  return address.port
}

/** The workload admin's kubeconfig (a bearer token) with its server or its token replaced. */
const variant = (kubeconfig: string, change: { server?: string; token?: string }): string => {
  let text = kubeconfig
  if (change.server !== undefined) text = text.replace(/server: .*/, `server: ${change.server}`)
  if (change.token !== undefined) text = text.replace(/token: .*/, `token: ${change.token}`)
  if (text === kubeconfig) throw new Error("the kubeconfig has no server or token line to replace")
  return text
}

/** A Cluster whose infrastructure is provisioned (status written directly: no manager runs). */
const provisionedCluster = async (name: string, kubeconfig: string | undefined): Promise<void> => {
  await create(mgmt, paths.cluster(ns), clusterObject(ns, name))
  await mergePatch(mgmt, `${paths.cluster(ns, name)}/status`, {
    status: { initialization: { infrastructureProvisioned: true } },
  })
  if (kubeconfig !== undefined) await create(mgmt, paths.secret(ns), kubeconfigSecret(ns, name, kubeconfig))
}

interface CacheRow {
  readonly table: string
  readonly row: string
  readonly waitingOn?: string
}

const cacheRowOf = async (name: string, probe: boolean): Promise<CacheRow> => {
  const args = ["bin/krtt.js", "why", "cluster", `${ns}/${name}`, "--json"]
  const { stdout } = await run(
    process.execPath,
    [...args, ...(probe ? ["--probe"] : []), "--kubeconfig", mgmt.admin.kubeconfigPath],
    { cwd: repoRoot, timeout: 60_000 },
  )
  const report = JSON.parse(stdout) as { clusters: ReadonlyArray<{ rows: ReadonlyArray<CacheRow> }> }
  const row = report.clusters[0]?.rows.find((r) => r.table === "clustercache.reconciler")
  if (row === undefined) throw new Error(`no ClusterCache row in ${stdout}`)
  return row
}

beforeAll(async () => {
  controlPlane = await startControlPlane({ clusters: 2 })
  ;[mgmt, workload] = controlPlane.clusters as [Cluster, Cluster]
  await installManagement(mgmt)
  ns = await createNamespace(mgmt, "e2e-why-probe")
  const admin = workload.admin.kubeconfig
  await provisionedCluster("reachable", admin)
  await provisionedCluster("refused", variant(admin, { token: "not-a-valid-token" }))
  await provisionedCluster(
    "unreachable",
    variant(admin, { server: `https://127.0.0.1:${await closedPort()}` }),
  )
  await provisionedCluster("no-secret", undefined)
}, 300_000)

afterAll(async () => {
  await controlPlane?.stop()
})

describe("krtt why --probe on real workload API servers", () => {
  it("connects to a reachable server: row 4, nothing waited on", async () => {
    const row = await cacheRowOf("reachable", true)
    expect(row.row).toBe("clustercache.reconciler#4")
    expect(row.waitingOn).toBeUndefined()
  })

  it("a server that refuses the credentials or does not answer: Connect fails, row 6", async () => {
    for (const name of ["refused", "unreachable"]) {
      const row = await cacheRowOf(name, true)
      expect(row.row, name).toBe("clustercache.reconciler#6")
    }
  })

  it("no kubeconfig Secret: row 6, waiting on the Secret, by name", async () => {
    const row = await cacheRowOf("no-secret", true)
    expect(row.row).toBe("clustercache.reconciler#6")
    expect(row.waitingOn).toBe(`Secret ${ns}/no-secret-kubeconfig is missing`)
  })

  it("without --probe, the probe's answer is what it waits on", async () => {
    const row = await cacheRowOf("reachable", false)
    expect(row.waitingOn).toMatch(/give --probe to make it/)
  })
})
