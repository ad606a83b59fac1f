// etcd compaction mid-watch: the operator's reflectors are watching; their
// connections are cut (a TCP proxy between the operator and its API server goes down); while they
// are away, Clusters and their providers change, one Cluster is deleted and one created; etcd is
// compacted past every version the reflectors saw; the proxy comes back. Each reflector resumes
// its watch from its last resourceVersion, gets 410 Gone (Expired) from etcd, and relists
// (reflector seed behaviour: "on 410 Gone, relist", shell/reflector/reflector.ts). No event lost:
// every change made in the window shows in what the operator writes afterwards.
//
// How the 410 is provoked for real: the watch cache is off on this API server
// (`--watch-cache=false`, as e2e/testenv/compaction.test.ts), so a watch from a compacted
// resourceVersion reaches etcd and is refused; with the cache on, a fresh watch from a recent
// version is served from memory whether or not etcd compacted it. The operator's Lease is
// lengthened (60 s, renewed within 45 s) so that the cut, which also stops its renewals, cannot
// end its leadership: the test is about the reflectors, and the cut lasts a few seconds.
import { writeFile } from "node:fs/promises"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Cluster } from "../../testenv/index.ts"
import { sharedControlPlane } from "../../testenv/vitest-context.ts"
import {
  CLUSTER_FINALIZER,
  createNamespace,
  endpointOf,
  type OperatorProcess,
  paths,
  startOperator,
  startTcpProxy,
  type TcpProxy,
  tokenKubeconfig,
  waitFor,
} from "../fixtures/index.ts"
import {
  conditionOf,
  type Management,
  messageOf,
  startManagement,
  steady,
  steadyCluster,
  steadyGet,
  steadyList,
  steadyProvision,
} from "./support.ts"

const workload = sharedControlPlane().clusters[0] as Cluster

let m: Management
let proxy: TcpProxy
let op: OperatorProcess

beforeAll(async () => {
  m = await startManagement("compaction", { apiserverArgs: ["--watch-cache=false"] })
  proxy = await startTcpProxy(m.mgmt.server)
  const kubeconfigPath = join(m.dir, "through-proxy.kubeconfig")
  await writeFile(kubeconfigPath, tokenKubeconfig(m.mgmt, m.identity.user, m.identity.token, proxy.url), {
    mode: 0o600,
  })
  op = await startOperator({
    kubeconfigPath,
    dir: m.dir,
    args: ["--leader-elect-lease-duration=60s", "--leader-elect-renew-deadline=45s", "-v=4"],
  })
}, 300_000)

afterAll(async () => {
  await op?.kill()
  await proxy?.down()
  await m?.stop()
})

const context = () => op.tail(30)
const phaseOf = async (ns: string, name: string) =>
  (await steadyGet(m.mgmt, paths.cluster(ns, name)))?.status?.phase
/** Waits until the Cluster's phase (written by the operator) is `phase`. */
const untilPhase = (ns: string, name: string, phase: string) =>
  waitFor(`${name} ${phase}`, async () => ((await phaseOf(ns, name)) === phase ? true : undefined), {
    context,
  })

describe("etcd compacted while the operator's watches are away", () => {
  it("each reflector gets 410 on its resume, relists, and no change made meanwhile is lost", async () => {
    const mgmt = m.mgmt
    const ns = await createNamespace(mgmt, `chaos-compact-${Date.now().toString(36)}`)
    const kubeconfig = workload.admin.kubeconfig
    const endpoint = endpointOf(workload.server)

    // Before: four Clusters waiting for their providers, one Provisioned.
    const waiting = ["w-0", "w-1", "w-2", "w-3"]
    for (const name of waiting)
      await steadyCluster(mgmt, ns, name, kubeconfig, endpoint, { provisioned: false })
    await steadyCluster(mgmt, ns, "doomed", kubeconfig, endpoint)
    for (const name of waiting) await untilPhase(ns, name, "Provisioning")
    await untilPhase(ns, "doomed", "Provisioned")
    const expiredBefore = op.logs().filter((l) => messageOf(l) === "reflector: Expired").length

    // The cut: every connection of the operator to its API server reset, new ones refused.
    await proxy.down()
    const cutAt = Date.now()
    // Meanwhile: three providers finish, one Cluster paused, one deleted, one created.
    for (const name of waiting.slice(0, 3)) await steadyProvision(mgmt, ns, name)
    await steady(mgmt, "PATCH", paths.cluster(ns, "w-3"), {
      body: { spec: { paused: true } },
      contentType: "application/merge-patch+json",
      ok: [200],
    })
    await steady(mgmt, "DELETE", paths.cluster(ns, "doomed"), { ok: [200, 202] })
    await steadyCluster(mgmt, ns, "newcomer", kubeconfig, endpoint)
    const revision = await m.plane.compact()
    await proxy.up()
    const backAt = Date.now()

    // The reflectors resume into a 410 and relist, each after its own backoff since the reset:
    // wait for the Clusters' one (the others are reported with it).
    const expiredSince = () =>
      op
        .logs()
        .filter((l) => messageOf(l) === "reflector: Expired")
        .slice(expiredBefore)
    const reflectorOf = (l: Record<string, unknown>) => (l as Record<string, string>).reflector
    await waitFor(
      "the Clusters' reflector to get 410 Gone and relist",
      () => (expiredSince().some((l) => reflectorOf(l) === "clusters") ? true : undefined),
      {
        timeoutMs: 60_000,
        context: () => `expired so far: ${JSON.stringify(expiredSince().map(reflectorOf))}\n${context()}`,
      },
    )

    // No event lost: what the operator writes reflects each change of the window.
    for (const name of waiting.slice(0, 3)) await untilPhase(ns, name, "Provisioned")
    await waitFor(
      "w-3 Paused",
      async () =>
        conditionOf(await steadyGet(mgmt, paths.cluster(ns, "w-3")), "Paused")?.status === "True"
          ? true
          : undefined,
      { context },
    )
    await waitFor(
      "doomed gone, with its providers",
      async () =>
        (await steadyGet(mgmt, paths.cluster(ns, "doomed"))) === undefined &&
        (await steadyGet(mgmt, paths.infra(ns, "doomed"))) === undefined &&
        (await steadyGet(mgmt, paths.controlPlane(ns, "doomed"))) === undefined
          ? true
          : undefined,
      { context },
    )
    const newcomer = await waitFor(
      "newcomer Provisioned with the finalizer",
      async () => {
        const c = await steadyGet(mgmt, paths.cluster(ns, "newcomer"))
        return c?.status?.phase === "Provisioned" && c.metadata.finalizers?.includes(CLUSTER_FINALIZER)
          ? c
          : undefined
      },
      { context },
    )
    expect(newcomer.metadata.finalizers).toContain(CLUSTER_FINALIZER)
    // w-3 is paused and its providers still wait: Provisioning still.
    expect(await phaseOf(ns, "w-3")).toBe("Provisioning")
    expect((await steadyList(mgmt, paths.cluster(ns))).map((c) => c.metadata.name).sort()).toEqual([
      "newcomer",
      "w-0",
      "w-1",
      "w-2",
      "w-3",
    ])
    expect(op.exit(), context()).toBeUndefined()
    const reflectors = [...new Set(expiredSince().map(reflectorOf))].sort()
    expect(reflectors, "the Clusters' reflector resumed into a 410").toContain("clusters")
    console.log(
      JSON.stringify({
        figures: "compaction",
        compactedAt: revision,
        cutMs: backAt - cutAt,
        expiredReflectors: reflectors,
        recoveredMs: Date.now() - backAt,
      }),
    )
  }, 240_000)
})
