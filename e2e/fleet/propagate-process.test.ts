// `krtt propagate` as users run it: the binary as a child process on the
// run's shared control plane (hub cluster-0, workloads cluster-1 and cluster-2), the hub identity
// holding exactly config/propagate/hub.yaml's rules and each workload identity exactly
// config/propagate/workload/role.yaml's; every manifest of config/propagate passes a strict
// server-side dry run; SIGTERM ends the process with exit code 0; Secret data never reaches the log.
import { mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import type { Cluster } from "../../testenv/index.ts"
import { freePorts, type Managed, startProcess, stopProcess, tail } from "../../testenv/processes.ts"
import { sharedControlPlane } from "../../testenv/vitest-context.ts"
import { apply, type KubeObject } from "../fixtures/kube.ts"
import { readManifests, repoRoot } from "../fixtures/manifests.ts"

const plane = sharedControlPlane()
const [hub, w1, w2] = plane.clusters as [Cluster, Cluster, Cluster]
const id = Math.random().toString(16).slice(2, 8)
const NS = `krtt-propagate-${id}`
const TEAM = `team-${id}`
const hubManifests = readManifests(join(repoRoot, "config/propagate/hub.yaml"))
const workloadManifests = readManifests(join(repoRoot, "config/propagate/workload/role.yaml"))
const dir = mkdtempSync(join(tmpdir(), "krtt-e2e-propagate-"))
let child: Managed | undefined
afterAll(async () => {
  if (child !== undefined) await stopProcess(child)
})

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const until = async (what: string, check: () => Promise<boolean>, timeoutMs = 60_000) => {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return
    await sleep(200)
  }
  throw new Error(
    `timed out after ${timeoutMs} ms: ${what}${child === undefined ? "" : `\n${tail(child.logPath, 40)}`}`,
  )
}
const json = async (cluster: Cluster, path: string): Promise<KubeObject | undefined> => {
  const r = await cluster.request("GET", path)
  return r.status === 200 ? (r.body as KubeObject) : undefined
}
const must = async (cluster: Cluster, method: "POST" | "DELETE", path: string, body?: unknown) => {
  const r = await cluster.request(method, path, body === undefined ? {} : { body })
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${r.text}`)
}

/** `objects` for namespace `ns` (NAMESPACE and the hub's own namespace replaced), bound to `user`, cluster-level names suffixed. */
const bound = (objects: ReadonlyArray<KubeObject>, ns: string, user: string): ReadonlyArray<KubeObject> =>
  objects.map((o) => {
    const namespaced = o.metadata.namespace !== undefined
    const subjects = (o.subjects as ReadonlyArray<Record<string, unknown>> | undefined)?.map(() => ({
      kind: "User",
      apiGroup: "rbac.authorization.k8s.io",
      name: user,
    }))
    const roleRef = o.roleRef as Record<string, string> | undefined
    return {
      ...o,
      metadata: namespaced
        ? { ...o.metadata, namespace: ns }
        : { ...o.metadata, name: `${o.metadata.name}-${id}` },
      ...(subjects === undefined ? {} : { subjects }),
      ...(roleRef === undefined || namespaced
        ? {}
        : { roleRef: { ...roleRef, name: `${roleRef.name}-${id}` } }),
    }
  })
const rbacOnly = (objects: ReadonlyArray<KubeObject>) =>
  objects.filter((o) => ["Role", "RoleBinding", "ClusterRole", "ClusterRoleBinding"].includes(o.kind ?? ""))

describe("krtt propagate as a process, with exactly config/propagate's permissions", () => {
  it("every manifest of config/propagate passes a strict server-side dry run", async () => {
    // The namespaced objects into a namespace that exists (a dry-run Namespace is not created).
    await must(hub, "POST", "/api/v1/namespaces", { metadata: { name: `dry-${id}` } })
    for (const o of hubManifests) {
      const moved =
        o.metadata.namespace === undefined ? o : { ...o, metadata: { ...o.metadata, namespace: `dry-${id}` } }
      expect((await apply(hub, moved, { dryRun: true })).status).toBeLessThan(300)
    }
    await must(w1, "POST", "/api/v1/namespaces", { metadata: { name: `dry-${id}` } })
    for (const o of bound(workloadManifests, `dry-${id}`, "krtt-propagate"))
      expect((await apply(w1, o, { dryRun: true })).status).toBeLessThan(300)
  })

  it("propagates a ConfigMap and a Secret to both clusters, removes them when the source is deleted, and stops on SIGTERM", async () => {
    // Hub: the fleet namespace, the source namespace, an identity with hub.yaml's rules.
    await must(hub, "POST", "/api/v1/namespaces", { metadata: { name: NS } })
    await must(hub, "POST", "/api/v1/namespaces", { metadata: { name: TEAM } })
    const hubUser = await hub.newUser()
    for (const o of bound(rbacOnly(hubManifests), NS, hubUser.user)) await apply(hub, o)
    // Workloads: the namespace and workload-role.yaml's rules for an identity of each.
    const kubeconfigs: Array<string> = []
    for (const w of [w1, w2]) {
      await must(w, "POST", "/api/v1/namespaces", { metadata: { name: TEAM } })
      const user = await w.newUser()
      for (const o of bound(workloadManifests, TEAM, user.user)) await apply(w, o)
      kubeconfigs.push(user.kubeconfig)
    }
    for (const [i, name] of ["east", "west"].entries())
      await must(hub, "POST", `/api/v1/namespaces/${NS}/secrets`, {
        metadata: { name, labels: { "sigs.k8s.io/multicluster-runtime-kubeconfig": "true" } },
        data: { kubeconfig: Buffer.from(kubeconfigs[i] as string).toString("base64") },
      })
    const secretValue = `s3cr3t-${id}`
    await must(hub, "POST", `/api/v1/namespaces/${TEAM}/configmaps`, {
      metadata: { name: "settings", labels: { "krtt.io/propagate": "true" } },
      data: { color: "blue" },
    })
    await must(hub, "POST", `/api/v1/namespaces/${TEAM}/secrets`, {
      metadata: { name: "creds", labels: { "krtt.io/propagate": "true" } },
      stringData: { password: secretValue },
    })

    const [health] = await freePorts(1)
    child = await startProcess(
      "krtt-propagate",
      process.execPath,
      [
        "bin/krtt.js",
        "propagate",
        "--kubeconfig",
        hubUser.kubeconfigPath,
        "--provider",
        "kubeconfig-secrets",
        "--provider-namespace",
        NS,
        "--namespace",
        NS,
        "--retry-interval=500ms",
        "--leader-elect",
        `--leader-elect-namespace=${NS}`,
        "--metrics-bind-address=0",
        `--health-probe-bind-address=127.0.0.1:${health}`,
        "--graceful-shutdown-timeout=10s",
        "-v=4",
      ],
      { cwd: repoRoot, logPath: join(dir, "propagate.log"), env: { ...process.env, KUBECONFIG: "" } },
    )
    const copies = async (kind: "configmaps" | "secrets", name: string) =>
      Promise.all([w1, w2].map((w) => json(w, `/api/v1/namespaces/${TEAM}/${kind}/${name}`)))
    await until("both copies in both clusters", async () =>
      [...(await copies("configmaps", "settings")), ...(await copies("secrets", "creds"))].every(
        (o) => o?.metadata.labels?.["krtt.io/propagated-from"] !== undefined,
      ),
    )
    const [secretCopy] = await copies("secrets", "creds")
    expect((secretCopy?.data as Record<string, string> | undefined)?.password).toBe(
      Buffer.from(secretValue).toString("base64"),
    )
    await until("2/2 on the sources", async () => {
      const cm = await json(hub, `/api/v1/namespaces/${TEAM}/configmaps/settings`)
      const s = await json(hub, `/api/v1/namespaces/${TEAM}/secrets/creds`)
      return [cm, s].every((o) => o?.metadata.annotations?.["krtt.io/propagated-to"] === "2/2")
    })
    expect((await fetch(`http://127.0.0.1:${health}/readyz`)).status).toBe(200)

    await must(hub, "DELETE", `/api/v1/namespaces/${TEAM}/secrets/creds`)
    await until("the Secret's copies removed and the source gone", async () => {
      const left = [
        ...(await copies("secrets", "creds")),
        await json(hub, `/api/v1/namespaces/${TEAM}/secrets/creds`),
      ]
      return left.every((o) => o === undefined)
    })
    expect((await copies("configmaps", "settings")).every((o) => o !== undefined)).toBe(true)

    process.kill(child.pid, "SIGTERM")
    const exit = await child.exited
    expect(exit, tail(child.logPath, 30)).toMatchObject({ code: 0 })
    const log = readFileSync(child.logPath, "utf8")
    expect(log).not.toContain(secretValue)
    expect(log).not.toContain(Buffer.from(secretValue).toString("base64"))
  }, 180_000)
})
