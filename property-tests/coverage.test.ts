import { execFileSync } from "node:child_process"
import { describe, expect, it } from "vitest"
import { tables as clustercacheTables } from "../spec/clustercache/index.ts"
import { type CoverageReport, coverage } from "./coverage.ts"

describe("krtt:coverage", () => {
  const report = coverage()

  it("every row of every table, documented or derived, is decided by at least 50 generated inputs", () => {
    for (const t of report.tables) {
      for (const r of t.rows) expect(r.hits, r.id).toBeGreaterThanOrEqual(50)
    }
  })

  it("lists the tables of seeds 002, 003 and 004 with their documented and derived rows", () => {
    const counts = (id: string) => {
      const rows = report.tables.find((t) => t.id === id)?.rows ?? []
      return [id, rows.filter((r) => !r.derived).length, rows.filter((r) => r.derived).length]
    }
    expect(
      [
        "scopedcache.informers",
        "scopedcache.lifecycle",
        "scopedcache.reads",
        "multicluster.engagement",
        "ipam.trigger",
        "ipam.reconcile",
      ].map(counts),
    ).toEqual([
      ["scopedcache.informers", 7, 9],
      ["scopedcache.lifecycle", 3, 1],
      ["scopedcache.reads", 4, 2],
      ["multicluster.engagement", 14, 10],
      ["ipam.trigger", 14, 6],
      ["ipam.reconcile", 6, 7],
    ])
  })

  it("lists the propagate table with 7 documented and 3 derived rows", () => {
    const rows = report.tables.find((t) => t.id === "propagate.copy")?.rows ?? []
    expect([rows.filter((r) => !r.derived).length, rows.filter((r) => r.derived).length]).toEqual([7, 3])
  })

  it("lists the inventory table with 8 documented and 4 derived rows", () => {
    const rows = report.tables.find((t) => t.id === "inventory.entry")?.rows ?? []
    expect([rows.filter((r) => !r.derived).length, rows.filter((r) => r.derived).length]).toEqual([8, 4])
  })

  it("lists the six ClusterCache tables with 13, 8, 6, 5, 3 and 7 documented rows", () => {
    const documented = (id: string) =>
      report.tables.find((t) => t.id === id)?.rows.filter((r) => !r.derived).length
    expect(clustercacheTables.map((t) => [t.id, documented(t.id)])).toEqual([
      ["clustercache.reconciler", 13],
      ["clustercache.accessor", 8],
      ["clustercache.health", 6],
      ["clustercache.watch", 5],
      ["clustercache.events", 3],
      ["clustercache.errors", 7],
    ])
  })

  it("lists the three Cluster controller tables with 13, 8 and 8 documented rows", () => {
    const documented = (id: string) =>
      report.tables.find((t) => t.id === id)?.rows.filter((r) => !r.derived).length
    expect(
      ["cluster.normal", "cluster.deletion", "cluster.errors"].map((id) => [id, documented(id)]),
    ).toEqual([
      ["cluster.normal", 13],
      ["cluster.deletion", 8],
      ["cluster.errors", 8],
    ])
  })

  it("npm run --silent krtt:coverage prints exactly this report as one JSON document", () => {
    const out = execFileSync("npm", ["run", "--silent", "krtt:coverage"], { encoding: "utf8" })
    const parsed = JSON.parse(out) as CoverageReport
    expect(parsed).toEqual(report)
    expect(parsed.tables[0]).toMatchObject({
      id: "clustercache.reconciler",
      source: "000_4ff6953847f6de6f.txt",
      title: "ClusterCache Reconciler",
    })
  })
})
