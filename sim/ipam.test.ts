import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { emptyIpam, parentCidrsOf, reconcileCluster, reconfigure } from "../core/ipam/index.ts"
import { runSimulate } from "./cli.ts"
import { simConfig } from "./config.ts"
import { runFleet } from "./fleet.ts"
import { defaultIpamSettings, type IpamSimSettings, runIpamFleet, validateIpamSection } from "./ipam.ts"

const dir = mkdtempSync(join(tmpdir(), "krtt-ipam-sim-"))
const fleet = simConfig({ clusters: 24, hours: 4, seed: 5, churn: { deletionRate: 0.4 } })

/** A parent that fits 8 Clusters: with 24 slots, creations wait for releases. */
const tight = (): IpamSimSettings => {
  const v = validateIpamSection({
    config: {
      parentCIDRs: { small: ["10.9.0.0/21"], v6: ["fd00:9::/61"] },
      injectionRules: [
        {
          id: "nodes",
          matchPurposes: [{ operator: "ContainsAny", values: ["mcp", "workload"] }],
          injections: [
            { id: "net", path: ".spec.networking.nodes", parents: ["small"], subnetSize: 24 },
            { path: ".spec.networking.pods", parents: ["net"], subnetSize: 26 },
            { path: "/spec/networking/v6", parents: ["v6"], subnetSize: 64 },
          ],
        },
      ],
    },
    clusters: [{ clusters: "20-23", purposes: ["onboarding"] }],
    restarts: ["1h", "2h30m"],
    refreshEvery: "30m",
  })
  if (Array.isArray(v)) throw new Error(v.join("\n"))
  return v as IpamSimSettings
}

describe("krtt simulate with IPAM", () => {
  it("keeps the fleet's trace hash: the IPAM controller only observes", async () => {
    const off = await runFleet(fleet)
    const on = runIpamFleet(fleet, defaultIpamSettings())
    expect(on.summary.traceHash).toBe(off.summary.traceHash)
    expect(on.ipam.acquired).toBeGreaterThan(2 * 24)
    expect(on.ipam.released).toBeGreaterThan(0)
    expect(on.summary.violations).toBe(0)
  })

  it("a full parent gives Warning Events, never a crash; released CIDRs serve later Clusters; disjoint and restorable on every step", () => {
    const r = runIpamFleet(fleet, tight())
    expect(r.ipam.exhaustedEvents).toBeGreaterThan(0)
    expect(r.ipam.released).toBeGreaterThan(0)
    expect(r.ipam.peakAllocated).toBeLessThanOrEqual(8 * 3)
    expect(r.ipam.decisions["ipam.reconcile#7"]).toBeGreaterThan(0)
    expect(r.ipam.decisions["ipam.reconcile#1"]).toBeGreaterThan(0)
    expect(r.ipam.decisions["ipam.trigger#12"]).toBeGreaterThan(0) // the onboarding Clusters match no rule: never enqueued
    expect(r.ipam.invariants).toEqual({ "ipam-disjoint": 0, "ipam-restore": 0 })
    expect(r.summary.violations).toBe(0)
  })

  it("ipam-disjoint catches a core that forgets what it allocated", () => {
    const s = tight()
    const forgetful: typeof reconcileCluster = (args) =>
      reconcileCluster({ ...args, ipam: reconfigure(emptyIpam, parentCidrsOf(s.config)) })
    const r = runIpamFleet(fleet, { ...s, world: { ...s.world, reconcile: forgetful } })
    expect(r.ipam.invariants["ipam-disjoint"]).toBeGreaterThan(0)
  })

  it("ipam-restore catches a core that allocates without recording the CIDRs", () => {
    const s = tight()
    const silent: typeof reconcileCluster = (args) => {
      const r = reconcileCluster(args)
      return {
        ...r,
        actions: r.actions.filter((a) => a._tag !== "SetAppliedRules" && a._tag !== "CreateClusterConfig"),
      }
    }
    const r = runIpamFleet(fleet, { ...s, world: { ...s.world, reconcile: silent } })
    expect(r.ipam.invariants["ipam-restore"]).toBeGreaterThan(0)
  })

  it("the scenario's ipam section is validated, every problem naming its field", () => {
    const v = validateIpamSection(
      {
        config: {
          parentCIDRs: { a: ["10.0.0.0/33"] },
          injectionRules: [{ id: "x", injections: [{ path: "/a", parents: ["b"], subnetSize: 24 }] }],
        },
        clusters: [{ clusters: "0-99", purpose: ["mcp"] }],
        restart: ["1h"],
        gcDelay: "soon",
      },
      10,
    )
    expect(Array.isArray(v)).toBe(true)
    const text = (v as ReadonlyArray<string>).join("\n")
    expect(text).toContain('ipam.restart: unknown field; did you mean "restarts"?')
    expect(text).toContain("ipam.config.spec.parentCIDRs.a[0]")
    expect(text).toContain('ipam.config.spec.injectionRules[0].injections[0].parents[0]: unknown parent "b"')
    expect(text).toContain('ipam.clusters[0].purpose: unknown field; did you mean "purposes"?')
    expect(text).toContain("ipam.clusters[0].clusters: slot 99 is past the fleet")
    expect(text).toContain("ipam.gcDelay")
  })

  it("krtt simulate --scenario with an ipam section prints the IPAM summary and exits 0", async () => {
    const file = join(dir, "ipam.yaml")
    writeFileSync(
      file,
      [
        "ipam:",
        "  config:",
        "    parentCIDRs: { v4: [10.0.0.0/16] }",
        "    injectionRules:",
        "      - id: nodes",
        "        injections: [{ path: .spec.networking.nodes, parents: [v4], subnetSize: 24 }]",
        "  restarts: [30m]",
        "incidents:",
        "  - { at: 20m, clusters: 0-3, incident: delete-cluster }",
      ].join("\n"),
    )
    let out = ""
    const io = { stdout: (t: string) => (out += t), stderr: () => {}, tty: false }
    const code = await runSimulate(
      {
        clusters: 8,
        hours: 1,
        seed: 2,
        outageRate: 0,
        rotationRate: 0,
        slowRate: 0,
        deletionRate: 0,
        json: true,
        scenario: file,
      },
      io,
    )
    expect(code).toBe(0)
    const s = JSON.parse(out) as {
      ipam: { acquired: number; released: number; invariants: Record<string, number> }
    }
    expect(s.ipam.acquired).toBeGreaterThanOrEqual(8)
    expect(s.ipam.released).toBeGreaterThanOrEqual(4)
    expect(s.ipam.invariants).toEqual({ "ipam-disjoint": 0, "ipam-restore": 0 })
  })

  it("--ipam with --workers 2 is a usage error", async () => {
    await expect(
      runSimulate(
        {
          clusters: 8,
          hours: 1,
          seed: 2,
          outageRate: 0,
          rotationRate: 0,
          slowRate: 0,
          deletionRate: 0,
          json: true,
          ipam: true,
          workers: 2,
        },
        { stdout: () => {}, stderr: () => {}, tty: false },
      ),
    ).rejects.toThrow(/--workers/)
  })
})
