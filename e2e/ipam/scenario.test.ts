// The IPAM controller (`node bin/krtt.js ipam`) on the real control plane with its
// kube-controller-manager: 50 Clusters across rules and purposes, the process
// killed mid-way and restarted (state restored from the cluster), Clusters deleted (CIDRs
// released only once the Cluster is fully gone and the garbage collector took its
// ClusterConfigs), re-created while the old CIDRs are still held, the reconcile annotation, a rule
// change, an invalid config; CIDRs pairwise disjoint and inside their parents at the end.
// Seed 004 rows: ipam.trigger#1,2,3,5,6,7,9; ipam.reconcile#1,4,6.
import { randomBytes } from "node:crypto"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { INJECTION_RULE_LABEL } from "../../core/ipam/index.ts"
import { sharedControlPlane } from "../../testenv/vitest-context.ts"
import { apply, expectStatus, type KubeObject, mergePatch, waitFor } from "../fixtures/index.ts"
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
  listClusters,
  OPERATION_ANNOTATION,
  overlapping,
  rangeOf,
  startIpam,
} from "./support.ts"

const cp = sharedControlPlane()
const cluster = cp.clusters[2] ?? cp.clusters[0]
if (cluster === undefined) throw new Error("no cluster in the shared control plane")

const s = randomBytes(3).toString("hex")
const ns = `ipam-${s}`
const configName = `ipam-${s}`
const RUN = "e2e.krtt.dev/ipam-run"
const HOLD = "e2e.krtt.dev/hold"
const PARENTS = { a: ["10.40.0.0/16"], b: ["10.41.0.0/20"] }

const rules = (extra: ReadonlyArray<unknown> = []) => [
  {
    id: "mcp",
    matchLabels: { [RUN]: s },
    matchPurposes: [{ operator: "ContainsAll", values: ["mcp"] }],
    injections: [
      { id: "nodes", path: "/spec/networking/nodes", parents: ["a"], subnetSize: 24 },
      { path: ".spec.networking.pods", parents: ["nodes"], subnetSize: 26 },
    ],
  },
  {
    id: "workload",
    matchLabels: { [RUN]: s },
    matchPurposes: [{ operator: "ContainsAny", values: ["workload"] }],
    injections: [{ path: "/spec/networking/services", parents: ["b", "a"], subnetSize: 26 }],
  },
  ...extra,
]

const ipamConfig = (spec: Record<string, unknown>) => ({
  apiVersion: "gardener.clusters.openmcp.cloud/v1alpha1",
  kind: "IPAMConfig",
  metadata: { name: configName },
  spec,
})

/** Purposes by index: 0-24 mcp, 25-39 workload, 40-44 both, 45-49 platform (no rule). */
const purposesOf = (i: number): ReadonlyArray<string> =>
  i < 25 ? ["mcp"] : i < 40 ? ["workload"] : i < 45 ? ["mcp", "workload"] : ["platform"]
const expectedRules = (purposes: ReadonlyArray<string>): ReadonlyArray<string> =>
  [
    purposes.includes("mcp") ? "mcp" : undefined,
    purposes.includes("workload") ? "workload" : undefined,
  ].filter((x): x is string => x !== undefined)

let dir: string
let ipam: IpamProcess | undefined
const context = () => ipam?.tail() ?? "krtt ipam is not running"

const get = async (path: string): Promise<KubeObject | undefined> => {
  const r = await expectStatus(cluster.request("GET", path), [200, 404], `GET ${path}`)
  return r.status === 404 ? undefined : (r.body as KubeObject)
}

/** Every Cluster of the run has exactly its rules' ClusterConfigs, and its annotation says the same. */
const converged = async (names: ReadonlyArray<string>): Promise<true | undefined> => {
  const clusters = new Map((await listClusters(cluster, ns)).map((c) => [c.metadata.name, c]))
  const ccs = await listClusterConfigs(cluster, ns, configName)
  for (const name of names) {
    const c = clusters.get(name)
    if (c === undefined) return undefined
    const want = expectedRules((c.spec as { purposes: ReadonlyArray<string> }).purposes)
    const have = ccs
      .filter(
        (cc) =>
          cc.metadata.name?.startsWith(`${name}--ipam--`) && cc.metadata.deletionTimestamp === undefined,
      )
      .map((cc) => cc.metadata.labels?.[INJECTION_RULE_LABEL] ?? "")
      .sort()
    if (JSON.stringify(have) !== JSON.stringify([...want].sort())) return undefined
    if (JSON.stringify(Object.keys(appliedRules(c)).sort()) !== JSON.stringify([...want].sort()))
      return undefined
  }
  return true
}

/** CIDRs held by the run's ClusterConfigs: pairwise disjoint across Clusters, each inside a parent. */
const checkDisjoint = async (): Promise<ReadonlyArray<{ owner: string; cidr: string }>> => {
  const ccs = await listClusterConfigs(cluster, ns, configName)
  const held = ccs.flatMap((cc) =>
    cidrsOf(cc).map((cidr) => ({
      owner: cc.metadata.labels?.["ipam.gardener.clusters.openmcp.cloud/cluster"] ?? "",
      cidr,
    })),
  )
  expect(overlapping(held)).toEqual([])
  const parents = [...PARENTS.a, ...PARENTS.b].map(rangeOf)
  for (const h of held) {
    const [lo, hi] = rangeOf(h.cidr)
    expect(
      parents.some(([p0, p1]) => p0 <= lo && hi <= p1),
      `${h.cidr} inside a parent`,
    ).toBe(true)
  }
  return held
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "krtt-ipam-e2e-"))
  await installIpamCrds(cluster)
  await expectStatus(
    cluster.request("POST", "/api/v1/namespaces", { body: { metadata: { name: ns } } }),
    [201],
    "namespace",
  )
  await apply(cluster, ipamConfig({ parentCIDRs: PARENTS, injectionRules: rules() }))
}, 120_000)

afterAll(async () => {
  await ipam?.kill()
  await rm(dir, { recursive: true, force: true })
})

describe("krtt ipam on a real control plane", () => {
  const names = Array.from({ length: 50 }, (_, i) => `c${String(i).padStart(2, "0")}`)
  const held = names.filter((_, i) => i % 2 === 1) // created with a finalizer: deleted later, half of them

  it("allocates for 50 Clusters across rules and purposes, survives a SIGKILL mid-way and restores its state", async () => {
    ipam = await startIpam({ kubeconfigPath: cluster.admin.kubeconfigPath, dir, config: configName })
    const create = (name: string, i: number) =>
      createCluster(
        cluster,
        clusterObject(ns, name, {
          labels: { [RUN]: s, ...(i % 3 === 0 ? { tier: "gold" } : {}) },
          purposes: purposesOf(i),
          ...(held.includes(name) ? { finalizers: [HOLD] } : {}),
        }),
      )
    for (const [i, name] of names.slice(0, 25).entries()) await create(name, i)
    // Killed while it works through the first half.
    await waitFor(
      "a few ClusterConfigs",
      async () => ((await listClusterConfigs(cluster, ns, configName)).length >= 5 ? true : undefined),
      { context, timeoutMs: 90_000 },
    )
    await ipam.kill()
    for (const [i, name] of names.slice(25).entries()) await create(name, i + 25)
    ipam = await startIpam({ kubeconfigPath: cluster.admin.kubeconfigPath, dir, config: configName })
    await waitFor("every Cluster to have its rules' ClusterConfigs", () => converged(names), {
      context,
      timeoutMs: 180_000,
    })
    // Clusters matching no rule (platform) got nothing.
    for (const name of names.slice(45)) {
      const c = await get(`${CLUSTERS}/namespaces/${ns}/clusters/${name}`)
      expect(appliedRules(c as KubeObject)).toEqual({})
    }
    // Every ClusterConfig: owned by its Cluster (controller reference, uid), finalizer, labels.
    for (const cc of await listClusterConfigs(cluster, ns, configName)) {
      expect(cc.metadata.finalizers).toContain(CIDR_FINALIZER)
      const owner = cc.metadata.ownerReferences?.[0]
      expect(owner?.kind).toBe("Cluster")
      expect(owner?.controller).toBe(true)
      const c = await get(`${CLUSTERS}/namespaces/${ns}/clusters/${owner?.name}`)
      expect(owner?.uid).toBe(c?.metadata.uid)
    }
    // An injection whose parent is an earlier injection of the rule lies inside it.
    for (const name of names.slice(0, 25)) {
      const c = (await get(`${CLUSTERS}/namespaces/${ns}/clusters/${name}`)) as KubeObject
      const mcp = appliedRules(c).mcp ?? {}
      const nodes = rangeOf(mcp["/spec/networking/nodes"] ?? "")
      const pods = rangeOf(mcp["/spec/networking/pods"] ?? "")
      expect(nodes[0] <= pods[0] && pods[1] <= nodes[1]).toBe(true)
    }
    await checkDisjoint()
  }, 400_000)

  it("holds the CIDRs of deleted Clusters until they are fully gone, never hands them out meanwhile, then releases them", async () => {
    const before = await listClusterConfigs(cluster, ns, configName)
    const heldCidrs = new Set(
      before.filter((cc) => held.some((n) => cc.metadata.name?.startsWith(`${n}--`))).flatMap(cidrsOf),
    )
    expect(heldCidrs.size).toBeGreaterThan(0)
    for (const name of held) {
      await expectStatus(
        cluster.request("DELETE", `${CLUSTERS}/namespaces/${ns}/clusters/${name}`),
        [200],
        `delete ${name}`,
      )
    }
    // Terminating (our finalizer holds them): no reconcile, the ClusterConfigs keep their CIDRs.
    // New Clusters created now must get other CIDRs.
    const fresh = held.map((n) => `r${n}`)
    for (const [i, name] of fresh.entries()) {
      await createCluster(
        cluster,
        clusterObject(ns, name, { labels: { [RUN]: s }, purposes: purposesOf(i * 2 + 1) }),
      )
    }
    await waitFor("the re-created Clusters to be served", () => converged(fresh), {
      context,
      timeoutMs: 180_000,
    })
    const now = await listClusterConfigs(cluster, ns, configName)
    for (const name of held.filter((n) => expectedRules(purposesOf(names.indexOf(n))).length > 0)) {
      const cc = now.filter((x) => x.metadata.name?.startsWith(`${name}--`))
      expect(cc.length, `${name} keeps its ClusterConfigs while it is terminating`).toBeGreaterThan(0)
      expect(cc.every((x) => x.metadata.finalizers?.includes(CIDR_FINALIZER))).toBe(true)
    }
    const freshCidrs = now
      .filter((cc) => fresh.some((n) => cc.metadata.name?.startsWith(`${n}--`)))
      .flatMap(cidrsOf)
    expect(freshCidrs.filter((c) => heldCidrs.has(c))).toEqual([])
    await checkDisjoint()

    // Fully gone: the garbage collector deletes the ClusterConfigs (owner references), the
    // controller removes its finalizer and releases their CIDRs.
    for (const name of held) {
      await mergePatch(cluster, `${CLUSTERS}/namespaces/${ns}/clusters/${name}`, {
        metadata: { finalizers: null },
      })
    }
    await waitFor(
      "the deleted Clusters' ClusterConfigs to be gone",
      async () => {
        const ccs = await listClusterConfigs(cluster, ns, configName)
        return ccs.some((cc) => held.some((n) => cc.metadata.name?.startsWith(`${n}--`))) ? undefined : true
      },
      { context, timeoutMs: 120_000 },
    )
    // Released: Clusters re-created under the old names may get the old CIDRs back.
    for (const [i, name] of held.entries()) {
      await createCluster(
        cluster,
        clusterObject(ns, name, { labels: { [RUN]: s }, purposes: purposesOf(i * 2 + 1) }),
      )
    }
    await waitFor("the Clusters re-created under their old names to be served", () => converged(held), {
      context,
      timeoutMs: 180_000,
    })
    const reused = (await listClusterConfigs(cluster, ns, configName))
      .flatMap(cidrsOf)
      .filter((c) => heldCidrs.has(c))
    expect(reused.length, "released CIDRs are allocated again").toBeGreaterThan(0)
    await checkDisjoint()
  }, 600_000)

  it("the reconcile annotation re-triggers a reconcile and is removed", async () => {
    const name = names[0] as string
    const path = `${CLUSTERS}/namespaces/${ns}/clusters/${name}`
    const want = appliedRules((await get(path)) as KubeObject)
    // Lost annotation: an update alone triggers nothing (ipam.trigger#8) ...
    await mergePatch(cluster, path, {
      metadata: { annotations: { "ipam.gardener.clusters.openmcp.cloud/applied-injection-rules": null } },
    })
    // ... the reconcile annotation does (ipam.trigger#3): restored from the ClusterConfigs (ipam.reconcile#4).
    await mergePatch(cluster, path, { metadata: { annotations: { [OPERATION_ANNOTATION]: "reconcile" } } })
    const after = await waitFor(
      "the annotation restored and the reconcile annotation removed",
      async () => {
        const c = (await get(path)) as KubeObject
        return c.metadata.annotations?.[OPERATION_ANNOTATION] === undefined &&
          JSON.stringify(appliedRules(c)) === JSON.stringify(want)
          ? c
          : undefined
      },
      { context },
    )
    expect(appliedRules(after)).toEqual(want)
  }, 120_000)

  it("a rule change re-reconciles exactly the Clusters the new rule matches", async () => {
    const gold = {
      id: "gold",
      matchLabels: { [RUN]: s, tier: "gold" },
      injections: [{ path: "/spec/networking/extra", subnetSize: 28 }],
    }
    const clusters = await listClusters(cluster, ns)
    const versions = new Map(clusters.map((c) => [c.metadata.name, c.metadata.resourceVersion]))
    const goldNames = clusters
      .filter((c) => c.metadata.labels?.tier === "gold")
      .map((c) => c.metadata.name as string)
    expect(goldNames.length).toBeGreaterThan(0)
    // The Clusters that match a rule of the new config (ipam.trigger#6 enqueues exactly those).
    const matching = clusters.filter(
      (c) =>
        c.metadata.labels?.tier === "gold" ||
        expectedRules((c.spec as { purposes: ReadonlyArray<string> }).purposes).length > 0,
    ).length
    // Successful reconciles: a status write refused by a Conflict (the Cluster store behind the
    // controller's own last write) fails its reconcile and is retried, which is one more attempt
    // for the same Cluster, not one more Cluster enqueued.
    const reconciles = async () =>
      [
        ...(await (ipam as IpamProcess).metrics()).matchAll(
          /^controller_runtime_reconcile_total\{(?=[^}]*controller="ipam")(?=[^}]*result="success")[^}]*\} (\d+)/gm,
        ),
      ]
        .map((m) => Number(m[1]))
        .reduce((a, b) => a + b, 0)
    const reconcilesBefore = await reconciles()
    await apply(cluster, ipamConfig({ parentCIDRs: PARENTS, injectionRules: rules([gold]) }))
    await waitFor(
      "every gold Cluster to have the gold rule",
      async () => {
        const now = await listClusters(cluster, ns)
        return now
          .filter((c) => goldNames.includes(c.metadata.name as string))
          .every((c) => appliedRules(c).gold !== undefined)
          ? true
          : undefined
      },
      { context },
    )
    const now = await listClusters(cluster, ns)
    for (const c of now) {
      const isGold = goldNames.includes(c.metadata.name as string)
      expect(appliedRules(c).gold !== undefined, `${c.metadata.name}`).toBe(isGold)
      // Clusters the new rule does not match were not written.
      if (!isGold)
        expect(c.metadata.resourceVersion, `${c.metadata.name} untouched`).toBe(versions.get(c.metadata.name))
    }
    await waitFor(
      "one reconcile per matching Cluster",
      async () => ((await reconciles()) - reconcilesBefore >= matching ? true : undefined),
      { context },
    )
    expect((await reconciles()) - reconcilesBefore).toBe(matching)
    await checkDisjoint()
  }, 180_000)

  it("refuses an invalid IPAMConfig with a condition and an Event naming the field, and keeps the last valid one", async () => {
    const bad = { parentCIDRs: { ...PARENTS, c: ["10.40.128.0/17"] }, injectionRules: rules() }
    await apply(cluster, ipamConfig(bad))
    const refused = await waitFor(
      "Valid=False",
      async () => {
        const o = await get(`${GARDENER}/ipamconfigs/${configName}`)
        const c = (
          o?.status as { conditions?: ReadonlyArray<{ type: string; status: string; message: string }> }
        )?.conditions?.find((x) => x.type === "Valid")
        return c?.status === "False" ? c : undefined
      },
      { context },
    )
    expect(refused.message).toContain("spec.parentCIDRs")
    const events = await waitFor(
      "an Event naming the field",
      async () => {
        const r = await cluster.request(
          "GET",
          `/api/v1/namespaces/default/events?fieldSelector=${encodeURIComponent(`involvedObject.name=${configName}`)}`,
        )
        const items = (r.body as { items: ReadonlyArray<{ reason: string; message: string }> }).items
        return items.find((e) => e.reason === "InvalidConfig")
      },
      { context },
    )
    expect(events.message).toContain("spec.parentCIDRs")
    // The last valid config stays in force: a new Cluster gets its CIDRs from it.
    await createCluster(
      cluster,
      clusterObject(ns, "after-invalid", { labels: { [RUN]: s }, purposes: ["mcp"] }),
    )
    await waitFor(
      "the new Cluster to be served under the last valid config",
      () => converged(["after-invalid"]),
      {
        context,
      },
    )
    await checkDisjoint()
    const ipamMetrics = await (ipam as IpamProcess).metrics()
    expect(ipamMetrics).toMatch(/krtt_ipam_allocated_addresses\{[^}]*parent="10\.40\.0\.0\/16"[^}]*\} [1-9]/)
    expect(ipamMetrics).toMatch(/krtt_ipam_free_addresses\{[^}]*parent="10\.41\.0\.0\/20"/)
    const stopped = await (ipam as IpamProcess).terminate()
    expect(stopped.code).toBe(0)
  }, 180_000)
})
