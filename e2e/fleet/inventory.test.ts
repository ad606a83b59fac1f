// `krtt inventory` as users run it: a process of its own against a hub
// and three workload API servers of a control plane of this file's own (Nodes are cluster-scoped:
// the shared plane's other tests must not see ours). The hub identity has exactly the Role of
// config/inventory/hub.yaml, each workload identity exactly the ClusterRole of
// config/inventory/workload/workload.yaml. testenv has no kubelets: the test creates the Node objects and
// sets their Ready condition through the status subresource, as kubelets do.
//
// Rows: inventory.entry#1 (first engagement), #6 (Nodes created, made Ready, deleted: written
// after the debounce), #10 (a cluster's Secret deleted: it left the provider), #7 (a cluster
// stopped: unreachable after the provider's failed probes), #2 (back: reachable again).
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Cluster, type ControlPlane, type KubeResponse, startControlPlane } from "../../testenv/index.ts"
import { freePorts, type Managed, startProcess, stopProcess, tail } from "../../testenv/processes.ts"
import { apply, type KubeObject } from "../fixtures/kube.ts"
import { readManifests, repoRoot } from "../fixtures/manifests.ts"
import { startTcpProxy, type TcpProxy } from "../fixtures/proxy.ts"

const NS = "krtt-fleet"
const CM = `/api/v1/namespaces/${NS}/configmaps/krtt-inventory`
const hubManifests = readManifests(join(repoRoot, "config/inventory/hub.yaml"))
const workloadManifests = readManifests(join(repoRoot, "config/inventory/workload/workload.yaml"))
const rulesOf = (objects: ReadonlyArray<KubeObject>, kind: string) =>
  (objects.find((o) => o.kind === kind) as unknown as { rules: Array<never> }).rules

let plane: ControlPlane
let hub: Cluster
let workloads: ReadonlyArray<Cluster>
let proxy: TcpProxy
let inventory: Managed | undefined
let hubUser: { readonly kubeconfigPath: string } | undefined
const replicas: Array<Managed> = []
const dir = mkdtempSync(join(tmpdir(), "krtt-e2e-inventory-"))

beforeAll(async () => {
  plane = await startControlPlane({ clusters: 4, controllerManager: false })
  hub = plane.clusters[0] as Cluster
  workloads = plane.clusters.slice(1)
  proxy = await startTcpProxy((workloads[2] as Cluster).server)
})
afterAll(async () => {
  if (inventory !== undefined) await stopProcess(inventory)
  for (const r of replicas) await stopProcess(r)
  await proxy?.down()
  await plane?.stop()
})

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const until = async (what: string, check: () => Promise<boolean>, timeoutMs = 60_000) => {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (await check()) return
    await sleep(200)
  }
  throw new Error(
    `timed out after ${timeoutMs} ms: ${what}\ninventory: ${JSON.stringify(await entries())}\n${inventory === undefined ? "" : tail(inventory.logPath, 30)}`,
  )
}
const ok = async (p: Promise<KubeResponse>, what: string): Promise<KubeResponse> => {
  const r = await p
  if (r.status >= 300) throw new Error(`${what}: HTTP ${r.status}: ${r.text.slice(0, 500)}`)
  return r
}

type Entry = {
  cluster: string
  kubernetesVersion: string
  nodes: number
  readyNodes: number
  engagedSince: string
  lastChange: string
  reachable: boolean
  reason?: string
}
const entries = async (): Promise<Record<string, Entry>> => {
  const r = await hub.request("GET", CM)
  if (r.status === 404) return {}
  const data = ((r.body as { data?: Record<string, string> }).data ?? {}) as Record<string, string>
  return Object.fromEntries(Object.entries(data).map(([k, v]) => [k, JSON.parse(v) as Entry]))
}

const addNode = async (c: Cluster, name: string, ready: boolean) => {
  await ok(
    c.request("POST", "/api/v1/nodes", { body: { apiVersion: "v1", kind: "Node", metadata: { name } } }),
    `create Node ${name}`,
  )
  await setReady(c, name, ready)
}
const setReady = async (c: Cluster, name: string, ready: boolean) => {
  const node = (await ok(c.request("GET", `/api/v1/nodes/${name}`), `get Node ${name}`)).body as KubeObject
  await ok(
    c.request("PUT", `/api/v1/nodes/${name}/status`, {
      body: {
        ...node,
        status: {
          conditions: [
            {
              type: "Ready",
              status: ready ? "True" : "False",
              reason: ready ? "KubeletReady" : "KubeletNotReady",
              lastHeartbeatTime: new Date().toISOString(),
              lastTransitionTime: new Date().toISOString(),
            },
          ],
        },
      },
    }),
    `status of Node ${name}`,
  )
}

describe("krtt inventory on a hub and three workload API servers", () => {
  it("config/inventory passes a strict server-side dry run (the Deployment under the restricted Pod Security level)", async () => {
    await apply(hub, hubManifests.find((o) => o.kind === "Namespace") as KubeObject)
    for (const o of hubManifests.filter((o) => o.kind !== "Namespace")) await apply(hub, o, { dryRun: true })
    for (const o of workloadManifests) await apply(workloads[0] as Cluster, o, { dryRun: true })
    expect(rulesOf(workloadManifests, "ClusterRole")).toEqual([
      { apiGroups: [""], resources: ["nodes"], verbs: ["list", "watch"] },
      { nonResourceURLs: ["/", "/version"], verbs: ["get"] },
    ])
  })

  it("follows Nodes created, made Ready and deleted; removes a cluster that leaves; marks a stopped cluster unreachable and back", async () => {
    // Identities with exactly the manifests' rules.
    hubUser = await hub.userWithRules(rulesOf(hubManifests, "Role"), { namespace: NS })
    const users = await Promise.all(
      workloads.map((w) => w.userWithRules(rulesOf(workloadManifests, "ClusterRole"))),
    )
    const [w1, w2, w3] = workloads as [Cluster, Cluster, Cluster]
    const names = ["east", "west", "north"] as const
    const [u1, u2, u3] = users as [(typeof users)[0], (typeof users)[0], (typeof users)[0]]
    const kubeconfigs = [u1.kubeconfig, u2.kubeconfig, u3.kubeconfig.replace(w3.server, proxy.url)]
    for (const [i, name] of names.entries())
      await ok(
        hub.request("POST", `/api/v1/namespaces/${NS}/secrets`, {
          body: {
            apiVersion: "v1",
            kind: "Secret",
            metadata: { name, labels: { "sigs.k8s.io/multicluster-runtime-kubeconfig": "true" } },
            data: { kubeconfig: Buffer.from(kubeconfigs[i] as string).toString("base64") },
          },
        }),
        `Secret ${name}`,
      )
    await addNode(w1, "e1", true)
    await addNode(w1, "e2", false)
    await addNode(w2, "w1", false)

    const [health] = await freePorts(1)
    inventory = await startProcess(
      "krtt-inventory",
      process.execPath,
      [
        "bin/krtt.js",
        "inventory",
        "--kubeconfig",
        hubUser.kubeconfigPath,
        "--provider",
        "kubeconfig-secrets",
        "--provider-namespace",
        NS,
        "--namespace",
        NS,
        "--debounce=300ms",
        "--leader-elect",
        `--leader-elect-namespace=${NS}`,
        "--metrics-bind-address=0",
        `--health-probe-bind-address=127.0.0.1:${health}`,
        "--graceful-shutdown-timeout=10s",
      ],
      { cwd: repoRoot, logPath: join(dir, "inventory.log"), env: { ...process.env, KUBECONFIG: "" } },
    )

    // inventory.entry#1: a key per engaged cluster, at once.
    await until("east 2/1, west 1/0, north 0/0", async () => {
      const e = await entries()
      return (
        e.east?.nodes === 2 &&
        e.east.readyNodes === 1 &&
        e.west?.nodes === 1 &&
        e.west.readyNodes === 0 &&
        e.north?.nodes === 0 &&
        e.north.reachable === true
      )
    })
    const first = await entries()
    expect(first.east?.kubernetesVersion).toBe(plane.info.kubernetesVersion)
    expect(first.east?.engagedSince).toBe(first.east?.lastChange)
    const ready = await fetch(`http://127.0.0.1:${health}/readyz`)
    expect(ready.status).toBe(200)

    // inventory.entry#6: Nodes created, made Ready and deleted in the workload clusters.
    await addNode(w2, "w2", true)
    await setReady(w2, "w1", true)
    await addNode(w3, "n1", true)
    await ok(w1.request("DELETE", "/api/v1/nodes/e2"), "delete e2")
    await until("east 1/1, west 2/2, north 1/1", async () => {
      const e = await entries()
      return (
        e.east?.nodes === 1 &&
        e.east.readyNodes === 1 &&
        e.west?.nodes === 2 &&
        e.west.readyNodes === 2 &&
        e.north?.nodes === 1 &&
        e.north.readyNodes === 1
      )
    })
    const changed = await entries()
    expect(changed.east?.engagedSince).toBe(first.east?.engagedSince)
    expect(Date.parse(changed.east?.lastChange ?? "")).toBeGreaterThan(
      Date.parse(first.east?.lastChange ?? ""),
    )

    // inventory.entry#10: west's Secret deleted, west left the provider: its key goes.
    await ok(hub.request("DELETE", `/api/v1/namespaces/${NS}/secrets/west`), "delete Secret west")
    await until("west removed", async () => (await entries()).west === undefined)
    expect(Object.keys(await entries()).sort()).toEqual(["east", "north"])

    // inventory.entry#7: north stopped (its API server unreachable): after the provider's failed
    // probes (5, 10 s apart) it is marked unreachable, its last counts kept.
    await proxy.down()
    await until("north unreachable", async () => (await entries()).north?.reachable === false, 120_000)
    const down = (await entries()).north
    expect(down).toMatchObject({ nodes: 1, readyNodes: 1, engagedSince: changed.north?.engagedSince })
    expect(down?.reason).toMatch(/probe failed 5 times/)
    expect((await entries()).east?.reachable).toBe(true)

    // inventory.entry#2: north back: reachable again, a new engagement.
    await proxy.up()
    await until("north reachable", async () => (await entries()).north?.reachable === true, 60_000)
    const back = (await entries()).north
    expect(back?.reason).toBeUndefined()
    expect(Date.parse(back?.engagedSince ?? "")).toBeGreaterThan(Date.parse(down?.lastChange ?? ""))

    // Graceful stop: SIGTERM ends the process with exit code 0.
    process.kill(inventory.pid, "SIGTERM")
    const exit = await inventory.exited
    expect(exit, tail(inventory.logPath, 30)).toMatchObject({ code: 0 })
  }, 300_000)

  it("two replicas with --leader-elect: the standby is not ready; when the leader is killed (SIGKILL) it takes over and follows Nodes", async () => {
    // The clusters of the previous test (east, north) are still in the provider's namespace.
    if (hubUser === undefined) throw new Error("needs the previous test's hub identity")
    const user = hubUser
    const ports = await freePorts(2)
    const start = (name: string, port: number) =>
      startProcess(
        name,
        process.execPath,
        [
          "bin/krtt.js",
          "inventory",
          `--kubeconfig=${user.kubeconfigPath}`,
          "--provider=kubeconfig-secrets",
          `--provider-namespace=${NS}`,
          `--namespace=${NS}`,
          "--debounce=300ms",
          "--leader-elect",
          `--leader-elect-namespace=${NS}`,
          "--leader-elect-lease-duration=4s",
          "--leader-elect-renew-deadline=3s",
          "--leader-elect-retry-period=500ms",
          "--metrics-bind-address=0",
          `--health-probe-bind-address=127.0.0.1:${port}`,
        ],
        { cwd: repoRoot, logPath: join(dir, `${name}.log`), env: { ...process.env, KUBECONFIG: "" } },
      )
    const readyz = async (port: number) => {
      try {
        return (await fetch(`http://127.0.0.1:${port}/readyz`)).status
      } catch {
        return 0
      }
    }
    const [pa, pb] = ports as [number, number]
    const a = await start("replica-a", pa)
    replicas.push(a)
    await until("replica a ready (leading)", async () => (await readyz(pa)) === 200)
    const b = await start("replica-b", pb)
    replicas.push(b)
    await until("replica b serves its probes", async () => (await readyz(pb)) !== 0)
    expect(await readyz(pb)).toBe(503)
    // the leader follows a change
    const [w1] = workloads as [Cluster]
    await addNode(w1, "e3", true)
    await until("east 2 Nodes", async () => (await entries()).east?.nodes === 2)
    // the leader dies without a goodbye; the standby takes over after the Lease expires
    await stopProcess(a)
    await until("replica b ready (leading)", async () => (await readyz(pb)) === 200, 60_000)
    await addNode(w1, "e4", false)
    await until("east 3 Nodes, 2 Ready", async () => {
      const e = (await entries()).east
      return e?.nodes === 3 && e.readyNodes === 2
    })
  }, 180_000)
})
