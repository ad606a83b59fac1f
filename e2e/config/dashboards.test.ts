// The Grafana dashboards of config/grafana query only metrics the controllers serve: the metric
// names are taken from every panel's PromQL (each selector `name{…}`), then held against a live
// `/metrics` of `krtt run` (the manager's dashboard, with a workload cluster connected so that
// every family has series) and against the metrics the controllers register (the IPAM and fleet
// dashboards).
import { readdirSync, readFileSync } from "node:fs"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Cluster, type ControlPlane, startControlPlane } from "../../testenv/index.ts"
import {
  createCluster,
  createNamespace,
  endpointOf,
  installManagement,
  managerIdentity,
  type OperatorProcess,
  repoRoot,
  startOperator,
  waitFor,
} from "../fixtures/index.ts"

interface Dashboard {
  readonly title: string
  readonly panels: ReadonlyArray<{
    readonly title: string
    readonly targets: ReadonlyArray<{ readonly expr: string }>
  }>
}

const dashboard = (file: string): Dashboard =>
  JSON.parse(readFileSync(join(repoRoot, "config", "grafana", file), "utf8")) as Dashboard

/** The metric families a dashboard queries: every `name{` of its PromQL, histograms by family. */
const metricsOf = (d: Dashboard): ReadonlyArray<string> => {
  const names = new Set<string>()
  for (const p of d.panels)
    for (const t of p.targets)
      for (const m of t.expr.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)\{/g))
        names.add((m[1] as string).replace(/_(bucket|sum|count)$/, ""))
  return [...names].sort()
}

/** The metric names registered in the shell's code (`Metric.counter("…"`, gauges, histograms). */
const registered = (): ReadonlySet<string> => {
  const names = new Set<string>()
  const walk = (dir: string) => {
    for (const e of readdirSync(join(repoRoot, dir), { withFileTypes: true })) {
      const rel = join(dir, e.name)
      if (e.isDirectory()) walk(rel)
      else if (e.name.endsWith(".ts") && !e.name.endsWith(".test.ts"))
        for (const m of readFileSync(join(repoRoot, rel), "utf8").matchAll(
          /Metric\.(?:counter|gauge|histogram|summary)\(\s*"([a-z_:][a-z0-9_:]*)"/g,
        ))
          names.add(m[1] as string)
    }
  }
  walk("shell")
  return names
}

let dir: string
let controlPlane: ControlPlane
let op: OperatorProcess | undefined

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "krtt-e2e-dashboards-"))
  controlPlane = await startControlPlane({ clusters: 2 })
  const [mgmt, workload] = controlPlane.clusters as [Cluster, Cluster]
  await installManagement(mgmt)
  op = await startOperator({ kubeconfigPath: (await managerIdentity(mgmt, dir)).kubeconfigPath, dir })
  const ns = await createNamespace(mgmt, "e2e-dashboards")
  await createCluster(mgmt, {
    namespace: ns,
    name: "c1",
    kubeconfig: workload.admin.kubeconfig,
    endpoint: endpointOf(workload.server),
    markInfrastructureProvisioned: true,
  })
}, 300_000)

afterAll(async () => {
  await op?.kill()
  await controlPlane?.stop()
  if (dir !== undefined) await rm(dir, { recursive: true, force: true })
})

describe("config/grafana's dashboards", () => {
  it("every dashboard queries metrics, each through a selector", () => {
    for (const file of ["krtt-manager.json", "krtt-ipam.json", "krtt-fleet.json"]) {
      const d = dashboard(file)
      expect(d.panels.length, file).toBeGreaterThan(0)
      for (const p of d.panels)
        expect(metricsOf({ ...d, panels: [p] }).length, `${file}: ${p.title}`).toBeGreaterThan(0)
    }
  })

  it("the manager's dashboard queries only metrics a live krtt run serves", async () => {
    const wanted = metricsOf(dashboard("krtt-manager.json"))
    expect(wanted).toEqual(
      expect.arrayContaining([
        "capi_cluster_cache_connection_up",
        "controller_runtime_reconcile_total",
        "workqueue_depth",
      ]),
    )
    let missing: ReadonlyArray<string> = wanted
    await waitFor(
      "every family of the dashboard in /metrics",
      async () => {
        const names = new Set((await op?.metrics())?.map((s) => s.name.replace(/_(bucket|sum|count)$/, "")))
        missing = wanted.filter((m) => !names.has(m))
        return missing.length === 0 ? true : undefined
      },
      { timeoutMs: 60_000, context: () => `missing: ${missing.join(", ")}\n${op?.tail(10) ?? ""}` },
    )
  }, 120_000)

  it("the IPAM and fleet dashboards query only metrics the controllers register", () => {
    const known = registered()
    for (const file of ["krtt-ipam.json", "krtt-fleet.json"])
      for (const m of metricsOf(dashboard(file))) expect(known.has(m), `${file}: ${m}`).toBe(true)
  })
})
