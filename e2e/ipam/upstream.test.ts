// krtt ipam as an openmcp platform team runs upstream's platform-service-gardener-ipam, on a
// cluster of the shared control plane that no other IPAM test uses (cluster 0: its rules select
// Clusters of any namespace there). The IPAMConfig of upstream's documentation, applied
// unchanged, allocates into its JSON Path and JSON Pointer paths; an exhausted Cluster is retried
// and gets its CIDR within seconds of another Cluster's release; `krtt ipam init` installs the
// webhooks and kube-apiserver calls them: Cluster references defaulted, IPAMConfigs validated.
// Seed 004 rows: ipam.reconcile#6, #7, #1; ipam.trigger#1, #20.
import { execFile } from "node:child_process"
import { randomBytes } from "node:crypto"
import { readFileSync } from "node:fs"
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { parse } from "yaml"
import { freePorts } from "../../testenv/processes.ts"
import { sharedControlPlane } from "../../testenv/vitest-context.ts"
import {
  apply,
  expectStatus,
  type KubeObject,
  mergePatch,
  repoRoot,
  sleep,
  waitFor,
} from "../fixtures/index.ts"
import {
  appliedRules,
  CLUSTERS,
  cidrsOf,
  clusterObject,
  createCluster,
  GARDENER,
  type IpamProcess,
  installIpamCrds,
  listClusterConfigs,
  rangeOf,
  startIpam,
} from "./support.ts"

const cp = sharedControlPlane()
const cluster = cp.clusters[0]
if (cluster === undefined) throw new Error("no cluster in the shared control plane")

const s = randomBytes(3).toString("hex")
const ns = `ipam-u-${s}`
const RUN = "e2e.krtt.dev/ipam-upstream"
/** upstream's docs/config/config.md IPAMConfig, as written there (name `ipam`). */
const upstreamConfig = parse(
  readFileSync(join(repoRoot, "core", "ipam", "testdata", "upstream-ipamconfig.yaml"), "utf8"),
) as KubeObject
const exhaustionConfig = `ipam-x-${s}`
const webhookConfig = `ipam-w-${s}`
const WEBHOOK_RUN = "e2e.krtt.dev/ipam-webhook"
const ADMISSION = "/apis/admissionregistration.k8s.io/v1"
const run = promisify(execFile)

let dir: string
let ipam: IpamProcess | undefined
const context = () => ipam?.tail() ?? "krtt ipam is not running"

const get = async (path: string): Promise<KubeObject | undefined> => {
  const r = await expectStatus(cluster.request("GET", path), [200, 404], `GET ${path}`)
  return r.status === 404 ? undefined : (r.body as KubeObject)
}
const clusterConfig = (managedBy: string, name: string) => async () =>
  (await listClusterConfigs(cluster, ns, managedBy)).find(
    (cc) => cc.metadata.name === name && cc.metadata.deletionTimestamp === undefined,
  )
const inside = (child: string, parent: string) => {
  const [c0, c1] = rangeOf(child)
  const [p0, p1] = rangeOf(parent)
  return p0 <= c0 && c1 <= p1
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "krtt-ipam-upstream-"))
  await installIpamCrds(cluster)
  await expectStatus(
    cluster.request("POST", "/api/v1/namespaces", { body: { metadata: { name: ns } } }),
    [201],
    "namespace",
  )
}, 120_000)

afterAll(async () => {
  await ipam?.kill()
  await cluster.request(
    "DELETE",
    `${ADMISSION}/mutatingwebhookconfigurations/mutate-clusters-openmcp-cloud-v1alpha1-cluster`,
  )
  await cluster.request(
    "DELETE",
    `${ADMISSION}/validatingwebhookconfigurations/validate-gardener-clusters-openmcp-cloud-v1alpha1-ipamconfig`,
  )
  for (const name of [upstreamConfig.metadata.name, exhaustionConfig, webhookConfig])
    await cluster.request("DELETE", `${GARDENER}/ipamconfigs/${name}`)
  await cluster.request("DELETE", `/api/v1/namespaces/${ns}`)
  await rm(dir, { recursive: true, force: true })
})

describe("krtt ipam with upstream's IPAMConfig and upstream's retries", () => {
  it("takes the IPAMConfig of upstream's documentation unchanged and injects into its paths", async () => {
    await apply(cluster, upstreamConfig)
    await createCluster(cluster, clusterObject(ns, "mcp", { purposes: ["mcp"] }))
    await createCluster(
      cluster,
      clusterObject(ns, "test", { labels: { "clusters.openmcp.cloud/test": "true" }, purposes: ["test"] }),
    )
    ipam = await startIpam({
      kubeconfigPath: cluster.admin.kubeconfigPath,
      dir,
      config: "ipam",
    })
    const mcp = await waitFor(
      "the mcp-clusters ClusterConfig",
      clusterConfig("ipam", "mcp--ipam--mcp-clusters"),
      {
        context,
        timeoutMs: 90_000,
      },
    )
    const patches = (mcp.spec as { patches: ReadonlyArray<{ path: string; value: string }> }).patches
    // `.spec.network.cidr` and `.metadata.annotations[rootcidr]` as JSON Pointers, one /28
    expect(patches.map((p) => p.path).sort()).toEqual([
      "/metadata/annotations/rootcidr",
      "/spec/network/cidr",
    ])
    const [cidr] = cidrsOf(mcp)
    expect(cidrsOf(mcp)).toEqual([cidr, cidr])
    expect(cidr).toMatch(/\/28$/)
    expect(inside(cidr ?? "", "10.27.0.0/16") || inside(cidr ?? "", "10.28.0.0/24")).toBe(true)
    const test = await waitFor("the test ClusterConfig", clusterConfig("ipam", "test--ipam--test"), {
      context,
    })
    const applied = appliedRules((await get(`${CLUSTERS}/namespaces/${ns}/clusters/test`)) as KubeObject)
    const a = applied.test?.["/spec/network/subnetA"] ?? ""
    const b = applied.test?.["/spec/network/subnetB"] ?? ""
    expect(a).toMatch(/\/24$/)
    expect(b).toMatch(/\/30$/)
    expect(inside(a, "10.27.0.0/16")).toBe(true)
    expect(inside(b, a)).toBe(true)
    expect([...cidrsOf(test)].sort()).toEqual([a, b].sort())
    const config = (await get(`${GARDENER}/ipamconfigs/ipam`)) as KubeObject
    expect(
      (
        (config.status as { conditions?: ReadonlyArray<{ type: string; status: string }> } | undefined)
          ?.conditions ?? []
      ).find((c) => c.type === "Valid")?.status,
    ).toBe("True")
    await ipam.kill()
    ipam = undefined
  }, 180_000)

  it("retries an exhausted Cluster and allocates it within seconds of another Cluster's release", async () => {
    await apply(cluster, {
      apiVersion: "gardener.clusters.openmcp.cloud/v1alpha1",
      kind: "IPAMConfig",
      metadata: { name: exhaustionConfig },
      spec: {
        // room for two /28s
        parentCIDRs: { small: ["10.60.0.0/27"] },
        injectionRules: [
          {
            id: "small",
            matchLabels: { [RUN]: s },
            injections: [{ path: "spec.network.cidr", parents: ["small"], subnetSize: 28 }],
          },
        ],
      },
    })
    ipam = await startIpam({ kubeconfigPath: cluster.admin.kubeconfigPath, dir, config: exhaustionConfig })
    for (const name of ["x0", "x1"])
      await createCluster(cluster, clusterObject(ns, name, { labels: { [RUN]: s }, purposes: ["workload"] }))
    for (const name of ["x0", "x1"])
      await waitFor(`${name}'s ClusterConfig`, clusterConfig(exhaustionConfig, `${name}--ipam--small`), {
        context,
      })
    await createCluster(cluster, clusterObject(ns, "w", { labels: { [RUN]: s }, purposes: ["workload"] }))
    const warning = await waitFor(
      "a Warning Event on w: the parent is exhausted",
      async () => {
        const list = (
          await expectStatus(
            cluster.request(
              "GET",
              `/api/v1/namespaces/${ns}/events?fieldSelector=${encodeURIComponent("involvedObject.name=w")}`,
            ),
            [200],
            "events",
          )
        ).body as { items: ReadonlyArray<{ type: string; reason: string; message: string }> }
        return list.items.find((e) => e.type === "Warning" && e.reason === "CIDRManagementError")
      },
      { context },
    )
    expect(warning.message).toContain("exhausted")
    // Waiting: retried with the rate limiter (its backoff grows), no CIDR meanwhile.
    await sleep(8_000)
    expect(await clusterConfig(exhaustionConfig, "w--ipam--small")()).toBeUndefined()
    const requeues = (text: string) =>
      Number(/controller_runtime_reconcile_total\{[^}]*result="requeue"[^}]*\} (\d+)/.exec(text)?.[1] ?? "0")
    expect(requeues(await ipam.metrics())).toBeGreaterThan(1)
    const held = cidrsOf((await clusterConfig(exhaustionConfig, "x0--ipam--small")()) as KubeObject)
    await expectStatus(
      cluster.request("DELETE", `${CLUSTERS}/namespaces/${ns}/clusters/x0`),
      [200, 202],
      "delete x0",
    )
    // The release: x0's ClusterConfig gone once the garbage collector and the controller are done.
    await waitFor(
      "x0's ClusterConfig released",
      async () =>
        (await listClusterConfigs(cluster, ns, exhaustionConfig)).some(
          (cc) => cc.metadata.name === "x0--ipam--small",
        )
          ? undefined
          : true,
      { context, intervalMs: 100 },
    )
    const released = Date.now()
    const got = await waitFor("w's ClusterConfig", clusterConfig(exhaustionConfig, "w--ipam--small"), {
      context,
      intervalMs: 100,
    })
    expect(Date.now() - released).toBeLessThan(5_000)
    expect(cidrsOf(got)).toEqual(held)
    expect(await ipam.metrics()).toMatch(
      /krtt_ipam_decisions_total\{[^}]*row="ipam\.trigger#20"[^}]*\} [1-9]/,
    )
  }, 180_000)

  it("krtt ipam init installs the webhooks; kube-apiserver calls them: Cluster references defaulted, IPAMConfigs validated", async () => {
    await apply(cluster, {
      apiVersion: "gardener.clusters.openmcp.cloud/v1alpha1",
      kind: "IPAMConfig",
      metadata: { name: webhookConfig },
      spec: {
        parentCIDRs: { wh: ["10.61.0.0/16"] },
        injectionRules: [
          {
            id: "webhook",
            matchLabels: { [WEBHOOK_RUN]: s },
            injections: [{ path: "spec.network.cidr", parents: ["wh"], subnetSize: 24 }],
          },
        ],
      },
    })
    const [port] = await freePorts(1)
    const provider = `ipam-w-${s}`
    const init = await run(process.execPath, [
      join(repoRoot, "bin", "krtt.js"),
      "ipam",
      "init",
      "--kubeconfig",
      cluster.admin.kubeconfigPath,
      "--provider-name",
      provider,
      "--namespace",
      ns,
      `--webhooks-base-url=https://localhost:${port}`,
      "--webhooks-additional-sans=localhost",
    ])
    // What it did is logged, on standard error as every log of krtt.
    expect(init.stderr).toContain(
      "MutatingWebhookConfiguration mutate-clusters-openmcp-cloud-v1alpha1-cluster",
    )
    const mutating = (await get(
      `${ADMISSION}/mutatingwebhookconfigurations/mutate-clusters-openmcp-cloud-v1alpha1-cluster`,
    )) as KubeObject & { webhooks: ReadonlyArray<Record<string, unknown>> }
    expect(mutating.webhooks[0]).toMatchObject({
      name: "mcluster.clusters.openmcp.cloud",
      failurePolicy: "Fail",
      clientConfig: { url: `https://localhost:${port}/mutate-clusters-openmcp-cloud-v1alpha1-cluster` },
    })
    const validating = (await get(
      `${ADMISSION}/validatingwebhookconfigurations/validate-gardener-clusters-openmcp-cloud-v1alpha1-ipamconfig`,
    )) as KubeObject & { webhooks: ReadonlyArray<Record<string, unknown>> }
    expect(validating.webhooks[0]).toMatchObject({
      name: "vipamconfig.gardener.clusters.openmcp.cloud",
      failurePolicy: "Ignore",
    })
    // The certificate init stored, where the pod would mount it.
    const secret = (await get(`/api/v1/namespaces/${ns}/secrets/${provider}-webhook-tls`)) as KubeObject & {
      data: Record<string, string>
    }
    const certs = join(dir, "webhook-certs")
    await mkdir(certs, { recursive: true })
    for (const f of ["tls.crt", "tls.key"])
      await writeFile(join(certs, f), Buffer.from(secret.data[f] ?? "", "base64"))
    ipam = await startIpam({
      kubeconfigPath: cluster.admin.kubeconfigPath,
      dir,
      config: webhookConfig,
      webhooks: true,
      args: [`--webhook-cert-path=${certs}`, `--webhook-port=${port}`],
    })
    // Defaulted at admission: the create's answer already holds the reference.
    const created = await createCluster(cluster, clusterObject(ns, "wh", { labels: { [WEBHOOK_RUN]: s } }))
    expect((created.spec as { clusterConfigs?: unknown }).clusterConfigs).toEqual([
      { name: "wh--ipam--webhook" },
    ])
    await waitFor("wh's ClusterConfig", clusterConfig(webhookConfig, "wh--ipam--webhook"), { context })
    // A Cluster no rule selects is left alone.
    const other = await createCluster(
      cluster,
      clusterObject(ns, "wh-other", { labels: { [WEBHOOK_RUN]: "other" } }),
    )
    expect((other.spec as { clusterConfigs?: unknown }).clusterConfigs).toBeUndefined()
    // generateName: the placeholder while the name is unknown, the reference on the next write.
    const generated = (
      await expectStatus(
        cluster.request("POST", `${CLUSTERS}/namespaces/${ns}/clusters`, {
          body: {
            ...clusterObject(ns, "unused", { labels: { [WEBHOOK_RUN]: s } }),
            metadata: { generateName: "gen-", namespace: ns, labels: { [WEBHOOK_RUN]: s } },
          },
        }),
        [201],
        "create a Cluster with generateName",
      )
    ).body as KubeObject
    const name = generated.metadata.name ?? ""
    const refs = (generated.spec as { clusterConfigs: ReadonlyArray<{ name: string }> }).clusterConfigs
    expect([
      [{ name: "ipam-empty-cluster-name-placeholder" }],
      [{ name: `${name}--ipam--webhook` }],
    ]).toContainEqual(refs)
    const touched = await mergePatch(cluster, `${CLUSTERS}/namespaces/${ns}/clusters/${name}`, {
      metadata: { labels: { touched: "yes" } },
    })
    expect((touched.spec as { clusterConfigs: unknown }).clusterConfigs).toEqual([
      { name: `${name}--ipam--webhook` },
    ])
    // An IPAMConfig upstream's webhook refuses (an injection id that is also a parent id), refused here too.
    const refused = await cluster.request("POST", `${GARDENER}/ipamconfigs`, {
      body: {
        apiVersion: "gardener.clusters.openmcp.cloud/v1alpha1",
        kind: "IPAMConfig",
        metadata: { name: `ipam-bad-${s}` },
        spec: {
          parentCIDRs: { foo: ["10.62.0.0/16"] },
          injectionRules: [{ id: "r", injections: [{ id: "foo", path: "spec.a", subnetSize: 24 }] }],
        },
      },
    })
    expect(refused.status).toBe(422)
    expect(JSON.stringify(refused.body)).toContain("spec.injectionRules[0].injections[0].id")
    await ipam.kill()
    ipam = undefined
  }, 180_000)
})
