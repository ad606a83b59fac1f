// One Cluster's reconcile, its orders and shapes: the parents an injection takes, which of two
// ClusterConfigs of a rule is read, the order of recreated ClusterConfigs and added patches, the
// reconcile annotation of ClusterConfigs used up, the allocator state from JSON entries, and the
// answer to a refused write. reconcile.test.ts pins the texts a user reads.
import { describe, expect, it } from "vitest"
import type { ReconcileAction } from "./actions.ts"
import { allocations, emptyIpam, reconfigure } from "./allocator.ts"
import { ensureParents } from "./apply.ts"
import { cidrOf } from "./cidr.ts"
import type { IpamConfigSpec } from "./config.ts"
import { APPLIED_RULES_ANNOTATION, INJECTION_RULE_LABEL } from "./constants.ts"
import type { ClusterConfigView } from "./objects.ts"
import { ipamFromEntries, reconcileRefused } from "./reconcile.ts"

import {
  annotated,
  applied,
  cluster,
  config,
  created,
  first,
  NODES,
  PODS,
  reconcile,
  selectAll,
  start,
} from "./testing.ts"

describe("reconcileCluster, orders and shapes", () => {
  const [ccA, ccB] = created(first)
  if (ccA === undefined || ccB === undefined) throw new Error("two ClusterConfigs expected")

  it("ensureParents registers a parent the state lacks even when the others are there", () => {
    const more: IpamConfigSpec = { ...config, parentCIDRs: { ...config.parentCIDRs, c: ["10.2.0.0/24"] } }
    const s = ensureParents(start, more)
    expect([...s.parents.keys()].sort()).toEqual(["10.0.0.0/30", "10.1.0.0/24", "10.2.0.0/24"])
    expect(ensureParents(s, more)).toBe(s)
  })

  it("an injection without parents takes the config's parents in the order of their ids", () => {
    const ordered: IpamConfigSpec = {
      parentCIDRs: { z: ["10.2.0.0/24"], a: ["10.3.0.0/24"] },
      injectionRules: [
        {
          id: "r",
          selector: selectAll,
          injections: [
            { id: undefined, paths: [NODES], parents: [], subnetSize: 26 },
            { id: undefined, paths: [PODS], parents: [], subnetSize: 26 },
          ],
        },
      ],
      internalStateRefreshCycleDuration: 0,
    }
    const r = reconcile(
      cluster("c"),
      [],
      reconfigure(emptyIpam, ["10.2.0.0/24", "10.3.0.0/24"].map(cidrOf)),
      ordered,
    )
    expect(r.status.rules).toEqual([
      { id: "r", outcome: "Applied", message: "rule 'r' injected 10.3.0.0/26, 10.3.0.64/26" },
    ])
  })

  it("of two ClusterConfigs of one rule, the first by name is the one read", () => {
    const second: ClusterConfigView = {
      ...ccA,
      name: "c--ipam--r1-second",
      patches: [{ op: "add", path: "/spec/elsewhere", value: "10.0.0.2/31" }],
    }
    const r = reconcile(cluster("c"), [second, ccA, ccB], first.ipam)
    expect(r.status.applied).toEqual(applied)
  })

  it("names every parent of an exhausted injection; a ClusterConfig without a rule label is recorded under the empty rule", () => {
    const both: IpamConfigSpec = {
      parentCIDRs: { a: ["10.0.0.0/31"], b: ["10.0.1.0/31"] },
      injectionRules: [
        {
          id: "r",
          selector: selectAll,
          injections: [{ id: undefined, paths: [NODES], parents: ["a", "b"], subnetSize: 30 }],
        },
      ],
      internalStateRefreshCycleDuration: 0,
    }
    const r = reconcile(
      cluster("c"),
      [],
      reconfigure(emptyIpam, ["10.0.0.0/31", "10.0.1.0/31"].map(cidrOf)),
      both,
    )
    expect(r.status.rules[0]?.message).toBe(
      "unable to generate a /30 CIDR for injection 0 (/spec/networking/nodes) of rule 'r': parents a, b are exhausted",
    )
    const { [INJECTION_RULE_LABEL]: _, ...unlabelled } = ccA.labels
    const r2 = reconcile(cluster("c"), [{ ...ccA, labels: unlabelled }, ccB], first.ipam)
    expect(r2.status.applied[""]).toEqual(applied.r1)
  })

  it("a ClusterConfig without patches records its rule in the annotation (ipam.reconcile#4)", () => {
    const empty: ClusterConfigView = { ...ccA, patches: [] }
    const onlyR2 = cluster("c", { [APPLIED_RULES_ANNOTATION]: JSON.stringify({ r2: applied.r2 }) })
    const r = reconcile(onlyR2, [empty, ccB], first.ipam)
    expect(r.row).toBe("ipam.reconcile#4")
    expect(r.actions[0]).toEqual({
      _tag: "SetAppliedRules",
      cluster: { namespace: "ns", name: "c" },
      value: expect.stringContaining('"r1":{}'),
    })
  })

  it("recreates the annotated rules' ClusterConfigs in rule order, none for a rule without injections; adds missing patches in path order", () => {
    const unordered = cluster("c", {
      [APPLIED_RULES_ANNOTATION]: JSON.stringify({ r2: applied.r2, r0: {}, r1: applied.r1 }),
    })
    expect(created(reconcile(unordered, [], first.ipam)).map((cc) => cc.name)).toEqual([
      "c--ipam--r1",
      "c--ipam--r2",
    ])
    const two = cluster("c", {
      [APPLIED_RULES_ANNOTATION]: JSON.stringify({
        r1: { "/spec/z": "10.0.0.0/31", "/spec/a": "10.0.0.2/31" },
        r2: applied.r2,
      }),
    })
    const bare: ClusterConfigView = { ...ccA, patches: [] }
    const r = reconcile(two, [bare, ccB], first.ipam)
    expect(r.actions.find((a) => a._tag === "AddPatches")).toEqual({
      _tag: "AddPatches",
      clusterConfig: { namespace: "ns", name: "c--ipam--r1" },
      patches: [
        { op: "add", path: "/spec/a", value: "10.0.0.2/31" },
        { op: "add", path: "/spec/z", value: "10.0.0.0/31" },
      ],
    })
  })
})

describe("reconcileCluster: the reconcile annotation of ClusterConfigs", () => {
  it("is removed from each ClusterConfig of the Cluster that carries it, right after the Cluster's own", () => {
    const [ccA, ccB] = created(first) as [ClusterConfigView, ClusterConfigView]
    const r = reconcile(
      { ...annotated, annotations: { ...annotated.annotations, "openmcp.cloud/operation": "reconcile" } },
      [{ ...ccA, annotations: { "openmcp.cloud/operation": "reconcile" } }, ccB],
      first.ipam,
    )
    expect(r.row).toBe("ipam.reconcile#8")
    expect(r.actions).toEqual([
      { _tag: "RemoveOperationAnnotation", cluster: { namespace: "ns", name: "c" } },
      {
        _tag: "RemoveClusterConfigOperationAnnotation",
        clusterConfig: { namespace: "ns", name: "c--ipam--r1" },
      },
    ])
  })
  it("is left alone on a gone Cluster's ClusterConfigs, which are released and deleted", () => {
    const [ccA] = created(first) as [ClusterConfigView]
    const r = reconcile(
      undefined,
      [{ ...ccA, annotations: { "openmcp.cloud/operation": "reconcile" } }],
      first.ipam,
      config,
      "c",
    )
    expect(r.actions.map((a) => a._tag)).toEqual(["RemoveFinalizer", "ReleaseCidrs", "DeleteClusterConfig"])
    expect(r.status.waiting).toBe(false)
  })
})

describe("ipamFromEntries", () => {
  it("restores entries largest first, so a child given before its parent still lands under it; unparsable ones are skipped", () => {
    const s = ipamFromEntries(config, [
      { cidr: "10.1.0.0/28", parent: "10.1.0.0/26" },
      { cidr: "not-a-cidr", parent: "10.1.0.0/24" },
      { cidr: "10.1.0.0/26", parent: "10.1.0.0/24" },
    ])
    expect(allocations(s)).toEqual(["10.1.0.0/26", "10.1.0.0/28"])
    expect(s.allocated.get("10.1.0.0/28")?.parent).toBe("10.1.0.0/26")
    expect(s.allocated.get("10.1.0.0/26")?.parent).toBe("10.1.0.0/24")
    expect([...s.parents.keys()].sort()).toEqual(["10.0.0.0/30", "10.1.0.0/24"])
    const none = ipamFromEntries(undefined, [{ cidr: "10.1.0.0/26", parent: "10.1.0.0/24" }])
    expect(none.parents.size).toBe(0)
    expect(none.allocated.get("10.1.0.0/26")?.parent).toBeUndefined()
  })
})

describe("reconcileRefused", () => {
  it("writes nothing more and keeps the deciding row and status of the refused answer", () => {
    const answer = reconcile(cluster("c"), [])
    const action = answer.actions[0] as ReconcileAction
    const r = reconcileRefused({
      _tag: "WriteRefused",
      namespace: "ns",
      name: "c",
      action,
      reason: "Conflict",
      message: "the object has been modified",
      answer,
    })
    expect(r).toEqual({ actions: [], status: answer.status, row: answer.row })
    expect(r.row).toBe("ipam.reconcile#6")
  })
})
