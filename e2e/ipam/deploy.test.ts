// config/ipam on a real API server, and krtt ipam running as the krtt-ipam ServiceAccount with
// exactly that RBAC: a Cluster deleted and re-created under its name while the controller was
// down (its old ClusterConfig held by the finalizer after the garbage collector took it), state
// refresh cycles, IPv6, leader election (seed 004).
import { randomBytes } from "node:crypto"
import { readFileSync } from "node:fs"
import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { parse } from "yaml"
import { sharedControlPlane } from "../../testenv/vitest-context.ts"
import {
  apply,
  canI,
  expectStatus,
  type KubeObject,
  readManifests,
  repoRoot,
  serviceAccountToken,
  sleep,
  tokenKubeconfig,
  waitFor,
} from "../fixtures/index.ts"
import {
  appliedRules,
  CIDR_FINALIZER,
  CLUSTERS,
  cidrsOf,
  clusterObject,
  createCluster,
  GARDENER,
  type IpamProcess,
  installIpamCrds,
  listClusterConfigs,
  overlapping,
  startIpam,
} from "./support.ts"

const cp = sharedControlPlane()
const cluster = cp.clusters[1] ?? cp.clusters[0]
if (cluster === undefined) throw new Error("no cluster in the shared control plane")

const s = randomBytes(3).toString("hex")
const ns = `ipam-d-${s}`
const configName = `ipam-d-${s}`
const RUN = "e2e.krtt.dev/ipam-deploy"
const manifests = [
  ...readManifests(join(repoRoot, "config", "ipam", "deployment.yaml")),
  ...readManifests(join(repoRoot, "config", "ipam", "rbac.yaml")),
]
let dir: string
let kubeconfigPath: string
const running: Array<IpamProcess> = []
let ipam: IpamProcess | undefined
const context = () => ipam?.tail() ?? "krtt ipam is not running"

const config = (refresh: string) => ({
  apiVersion: "gardener.clusters.openmcp.cloud/v1alpha1",
  kind: "IPAMConfig",
  metadata: { name: configName },
  spec: {
    internalStateRefreshCycleDuration: refresh,
    parentCIDRs: { v4: ["10.50.0.0/16"], v6: ["fd00:50::/56"] },
    injectionRules: [
      {
        id: "dual",
        matchLabels: { [RUN]: s },
        injections: [
          { path: "/spec/networking/nodes", parents: ["v4"], subnetSize: 24 },
          { path: "/spec/networking/nodesV6", parents: ["v6"], subnetSize: 64 },
        ],
      },
    ],
  },
})

const start = async (extra: ReadonlyArray<string> = []) => {
  const p = await startIpam({ kubeconfigPath, dir, config: configName, args: ["--leader-elect", ...extra] })
  running.push(p)
  return p
}

const clusterPath = (name: string) => `${CLUSTERS}/namespaces/${ns}/clusters/${name}`
const get = async (path: string): Promise<KubeObject | undefined> => {
  const r = await expectStatus(cluster.request("GET", path), [200, 404], `GET ${path}`)
  return r.status === 404 ? undefined : (r.body as KubeObject)
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "krtt-ipam-deploy-"))
  await installIpamCrds(cluster)
  await expectStatus(
    cluster.request("POST", "/api/v1/namespaces", { body: { metadata: { name: ns } } }),
    [201],
    "namespace",
  )
}, 120_000)

afterAll(async () => {
  for (const p of running) await p.kill()
  await rm(dir, { recursive: true, force: true })
})

describe("config/ipam", () => {
  it("passes a server-side dry run with strict validation; the Deployment runs `node bin/krtt.js ipam` under the restricted Pod Security level", async () => {
    const namespace = manifests.find((o) => o.kind === "Namespace") as KubeObject
    expect(namespace.metadata.labels?.["pod-security.kubernetes.io/enforce"]).toBe("restricted")
    await apply(cluster, namespace)
    for (const o of manifests.filter((x) => x.kind !== "Namespace")) {
      const r = await apply(cluster, o, { dryRun: true })
      expect(r.headers.warning, `${o.kind} ${o.metadata.name}`).toBeUndefined()
    }
    const deployment = manifests.find((o) => o.kind === "Deployment") as KubeObject
    const template = deployment.spec.template as {
      spec: { containers: ReadonlyArray<{ args: ReadonlyArray<string> }> }
    }
    expect(template.spec.containers[0]?.args[0]).toBe("ipam")
    const pod = await cluster.request(
      "POST",
      `/api/v1/namespaces/krtt-ipam/pods?dryRun=All&fieldValidation=Strict`,
      {
        body: {
          apiVersion: "v1",
          kind: "Pod",
          metadata: { name: "krtt-ipam-template", namespace: "krtt-ipam" },
          spec: template.spec,
        },
      },
    )
    expect(pod.status, pod.text).toBe(201)
    expect(pod.headers.warning).toBeUndefined()
  }, 60_000)

  it("the CRDs take objects shaped as openmcp writes them, and docs/ipam.md's example, under strict field validation", async () => {
    // Every field of upstream's schemas (openmcp-operator's Cluster, cluster-provider-gardener's
    // ClusterConfig, platform-service-gardener-ipam's IPAMConfig), set once.
    const upstreamShaped: ReadonlyArray<KubeObject> = [
      {
        apiVersion: "clusters.openmcp.cloud/v1alpha1",
        kind: "Cluster",
        metadata: { namespace: ns, name: "upstream-shaped" },
        spec: {
          profile: "gardener-aws",
          clusterConfigRef: { apiGroup: "gardener.clusters.openmcp.cloud", kind: "ClusterConfig", name: "x" },
          kubernetes: { version: "1.34.4" },
          purposes: ["mcp", "workload"],
          tenancy: "Shared",
        },
      },
      {
        apiVersion: "gardener.clusters.openmcp.cloud/v1alpha1",
        kind: "ClusterConfig",
        metadata: { namespace: ns, name: "upstream-shaped" },
        spec: {
          patchOptions: { createMissingOnAdd: true, ignoreMissingOnRemove: false },
          patches: [
            { op: "add", path: "/spec/networking/nodes", value: "10.0.0.0/24" },
            { op: "copy", from: "/spec/a", path: "/spec/b" },
          ],
          extensions: [{ type: "shoot-dns-service", disabled: false, providerConfig: { any: { thing: 1 } } }],
          resources: [{ name: "r", resourceRef: { apiVersion: "v1", kind: "Secret", name: "s" } }],
        },
      },
      {
        apiVersion: "gardener.clusters.openmcp.cloud/v1alpha1",
        kind: "IPAMConfig",
        metadata: { name: `upstream-shaped-${s}` },
        spec: {
          internalStateRefreshCycleDuration: "24h",
          parentCIDRs: { foo: ["10.27.0.0/16"], bar: ["10.28.0.0/24"] },
          injectionRules: [
            {
              id: "all-selectors",
              matchIdentities: [{ name: "a", namespace: "b" }],
              matchLabels: { "clusters.openmcp.cloud/test": "true" },
              matchExpressions: [{ key: "k", operator: "In", values: ["v"] }],
              matchPurposes: [{ operator: "ContainsNone", values: ["onboarding"] }],
              injections: [
                { id: "n", path: "/spec/networking/nodes", parents: ["foo", "bar"], subnetSize: 24 },
                { paths: [".spec.networking.pods", "/spec/x"], parents: ["n"], subnetSize: 28 },
              ],
            },
          ],
        },
      },
    ]
    const docs = readFileSync(join(repoRoot, "docs", "ipam.md"), "utf8")
    const examples = [...docs.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => parse(m[1] ?? "") as KubeObject)
    expect(examples.map((o) => o.kind)).toEqual(["IPAMConfig", "Cluster"])
    for (const o of [...upstreamShaped, ...examples]) {
      const r = await apply(cluster, o, { dryRun: true })
      expect(r.headers.warning, `${o.kind} ${o.metadata.name}`).toBeUndefined()
    }
    // The schema's own check of an injection: path or paths.
    const noPath = await cluster.request("POST", `${GARDENER}/ipamconfigs?dryRun=All`, {
      body: {
        apiVersion: "gardener.clusters.openmcp.cloud/v1alpha1",
        kind: "IPAMConfig",
        metadata: { name: `no-path-${s}` },
        spec: { parentCIDRs: {}, injectionRules: [{ id: "r", injections: [{ subnetSize: 24 }] }] },
      },
    })
    expect(noPath.status).toBe(422)
    expect(noPath.text).toContain(
      "either 'path' must be non-empty or 'paths' must contain at least one entry",
    )
  }, 60_000)

  it("its RBAC is all krtt ipam needs: the controller runs as the krtt-ipam ServiceAccount", async () => {
    for (const o of manifests.filter((x) => x.kind !== "Deployment")) await apply(cluster, o)
    const user = "system:serviceaccount:krtt-ipam:krtt-ipam"
    await waitFor("RBAC to reach the authorizer", async () =>
      (await canI(cluster, user, {
        verb: "create",
        group: "gardener.clusters.openmcp.cloud",
        resource: "clusterconfigs",
      }))
        ? true
        : undefined,
    )
    expect(
      await canI(cluster, user, { verb: "delete", group: "clusters.openmcp.cloud", resource: "clusters" }),
    ).toBe(false)
    const token = await serviceAccountToken(cluster, "krtt-ipam", "krtt-ipam")
    kubeconfigPath = join(dir, "krtt-ipam.kubeconfig")
    await writeFile(kubeconfigPath, tokenKubeconfig(cluster, user, token), { mode: 0o600 })
    await apply(cluster, config("0s"))
    ipam = await start(["--leader-elect-namespace=krtt-ipam", `--leader-elect-id=ipam-${s}`])
    await createCluster(cluster, clusterObject(ns, "first", { labels: { [RUN]: s } }))
    const c = await waitFor(
      "the first Cluster allocated",
      async () => {
        const o = await get(clusterPath("first"))
        return o !== undefined && appliedRules(o).dual !== undefined ? o : undefined
      },
      { context },
    )
    expect(Object.values(appliedRules(c).dual ?? {}).sort()).toEqual(["10.50.0.0/24", "fd00:50::/64"])
  }, 120_000)
})

describe("krtt ipam, restarted", () => {
  it("a Cluster deleted and re-created under its name while it was down: the old ClusterConfig (garbage-collected, held by the finalizer) is released, the new Cluster served", async () => {
    const old = (await get(clusterPath("first"))) as KubeObject
    const oldCcs = await listClusterConfigs(cluster, ns, configName)
    expect(oldCcs.length).toBe(1)
    await (ipam as IpamProcess).kill()
    await expectStatus(cluster.request("DELETE", clusterPath("first")), [200], "delete first")
    // The garbage collector deletes the ClusterConfig; the controller's finalizer holds it.
    await waitFor("the old ClusterConfig to be terminating", async () => {
      const ccs = await listClusterConfigs(cluster, ns, configName)
      return ccs[0]?.metadata.deletionTimestamp !== undefined ? true : undefined
    })
    expect((await listClusterConfigs(cluster, ns, configName))[0]?.metadata.finalizers).toContain(
      CIDR_FINALIZER,
    )
    const fresh = await createCluster(cluster, clusterObject(ns, "first", { labels: { [RUN]: s } }))
    expect(fresh.metadata.uid).not.toBe(old.metadata.uid)
    ipam = await start(["--leader-elect-namespace=krtt-ipam", `--leader-elect-id=ipam-${s}`])
    await waitFor(
      "the old ClusterConfig gone and the new Cluster served",
      async () => {
        const ccs = await listClusterConfigs(cluster, ns, configName)
        const c = await get(clusterPath("first"))
        return ccs.length === 1 &&
          ccs[0]?.metadata.ownerReferences?.[0]?.uid === fresh.metadata.uid &&
          c !== undefined &&
          appliedRules(c).dual !== undefined
          ? true
          : undefined
      },
      { context },
    )
  }, 180_000)

  it("a Cluster deleted while it was down, its ClusterConfig garbage-collected before the restart: released after the restart", async () => {
    await createCluster(cluster, clusterObject(ns, "deleted-while-down", { labels: { [RUN]: s } }))
    const mine = async () =>
      (await listClusterConfigs(cluster, ns, configName)).filter((cc) =>
        cc.metadata.name?.startsWith("deleted-while-down--"),
      )
    await waitFor("its ClusterConfig", async () => ((await mine()).length === 1 ? true : undefined), {
      context,
    })
    await (ipam as IpamProcess).kill()
    await expectStatus(cluster.request("DELETE", clusterPath("deleted-while-down")), [200], "delete")
    await waitFor("the garbage collector to mark its ClusterConfig", async () =>
      (await mine())[0]?.metadata.deletionTimestamp !== undefined ? true : undefined,
    )
    ipam = await start(["--leader-elect-namespace=krtt-ipam", `--leader-elect-id=ipam-${s}`])
    // Listed with its deletion timestamp: ipam.trigger#5, then ipam.reconcile#1.
    await waitFor(
      "the ClusterConfig released and gone",
      async () => ((await mine()).length === 0 ? true : undefined),
      {
        context,
      },
    )
  }, 180_000)

  it("rebuilds its state every internalStateRefreshCycleDuration while it allocates, without handing a CIDR out twice", async () => {
    await apply(cluster, config("1s"))
    const restores = async () =>
      Number(
        /^krtt_ipam_state_restores_total(?:\{[^}]*\})? (\d+)/m.exec(
          await (ipam as IpamProcess).metrics(),
        )?.[1] ?? 0,
      )
    const before = await restores()
    for (let i = 0; i < 20; i++) {
      await createCluster(cluster, clusterObject(ns, `r${i}`, { labels: { [RUN]: s } }))
      await sleep(100)
    }
    await waitFor(
      "20 more Clusters allocated and three refreshes",
      async () => {
        const ccs = await listClusterConfigs(cluster, ns, configName)
        return ccs.length === 21 && (await restores()) >= before + 3 ? true : undefined
      },
      { context, timeoutMs: 120_000 },
    )
    const held = (await listClusterConfigs(cluster, ns, configName)).flatMap((cc) =>
      cidrsOf(cc)
        .filter((c) => !c.includes(":"))
        .map((cidr) => ({ owner: cc.metadata.name ?? "", cidr })),
    )
    expect(held.length).toBe(21)
    expect(overlapping(held)).toEqual([])
    const v6 = (await listClusterConfigs(cluster, ns, configName))
      .flatMap(cidrsOf)
      .filter((c) => c.includes(":"))
    expect(new Set(v6).size).toBe(21)
  }, 180_000)

  it("with --leader-elect, a second replica waits: only the leader serves, and it takes over when the leader stops", async () => {
    const standby = await startIpamUnready()
    // Not ready while it waits for the Lease.
    expect((await fetch(`${standby.healthUrl}/readyz`)).status).toBe(503)
    const stopped = await (ipam as IpamProcess).terminate()
    expect(stopped.code).toBe(0)
    await waitFor(
      "the standby to lead and be ready",
      async () =>
        (await fetch(`${standby.healthUrl}/readyz`).then(
          (r) => r.status,
          () => 0,
        )) === 200
          ? true
          : undefined,
      { timeoutMs: 60_000, context: standby.tail },
    )
    ipam = standby
    await createCluster(cluster, clusterObject(ns, "after-takeover", { labels: { [RUN]: s } }))
    await waitFor(
      "the new leader to serve",
      async () => {
        const c = await get(clusterPath("after-takeover"))
        return c !== undefined && appliedRules(c).dual !== undefined ? true : undefined
      },
      { context },
    )
  }, 240_000)
})

/** Starts a replica without waiting for readiness (a standby waiting for the Lease). */
const startIpamUnready = async (): Promise<IpamProcess> => {
  const p = await startIpam({
    kubeconfigPath,
    dir,
    config: configName,
    args: ["--leader-elect", "--leader-elect-namespace=krtt-ipam", `--leader-elect-id=ipam-${s}`],
    waitReady: false,
  })
  running.push(p)
  return p
}
