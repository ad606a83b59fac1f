// One Cluster's reconcile, whole results word for word: the first reconcile of two rules, the
// next one (nothing to do), a parent exhausted, a path another rule used, the Cluster gone, and
// the two inputs it refuses. The property tests (spec/ipam, property-tests/ipam) hold every row
// to its promise; these pin what a user reads: outcomes, conditions, Events and their texts.
import { describe, expect, it } from "vitest"
import type { ReconcileAction } from "./actions.ts"
import { emptyIpam, reconfigure } from "./allocator.ts"
import { cidrOf } from "./cidr.ts"
import type { IpamConfigSpec } from "./config.ts"
import { APPLIED_RULES_ANNOTATION } from "./constants.ts"

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
} from "./testing.ts"

const event = (
  name: string,
  type: string,
  reason: string,
  action: string,
  message: string,
): ReconcileAction => ({
  _tag: "Event",
  object: { apiVersion: "clusters.openmcp.cloud/v1alpha1", kind: "Cluster", namespace: "ns", name },
  type: type as "Normal" | "Warning",
  reason,
  action,
  message,
})
const ALLOCATED = {
  type: "CIDRsAllocated",
  status: "True",
  reason: "Allocated",
  message: "every matching rule has its CIDRs",
}

describe("reconcileCluster, word for word", () => {
  it("first reconcile: the annotation, one ClusterConfig per rule, a ReconcileSuccess Event (ipam.reconcile#6)", () => {
    expect(first.row).toBe("ipam.reconcile#6")
    expect(first.actions.map((a) => a._tag)).toEqual([
      "SetAppliedRules",
      "CreateClusterConfig",
      "CreateClusterConfig",
      "Event",
    ])
    expect(first.actions[0]).toEqual({
      _tag: "SetAppliedRules",
      cluster: { namespace: "ns", name: "c" },
      value: JSON.stringify(applied),
    })
    expect(created(first).map((cc) => [cc.name, cc.patches])).toEqual([
      ["c--ipam--r1", [{ op: "add", path: NODES, value: "10.0.0.0/31" }]],
      ["c--ipam--r2", [{ op: "add", path: PODS, value: "10.1.0.0/26" }]],
    ])
    expect(first.actions[3]).toEqual(
      event("c", "Normal", "ReconcileSuccess", "Reconcile", "Reconcile successful"),
    )
    expect(first.status).toEqual({
      outcome: "Reconciled",
      applied,
      acquired: ["10.0.0.0/31", "10.1.0.0/26"],
      released: [],
      rules: [
        { id: "r1", outcome: "Applied", message: "rule 'r1' injected 10.0.0.0/31" },
        { id: "r2", outcome: "Applied", message: "rule 'r2' injected 10.1.0.0/26" },
      ],
      conditions: [ALLOCATED],
      waiting: false,
    })
  })

  it("the next reconcile changes nothing and says so without an Event (ipam.reconcile#8)", () => {
    const r = reconcile(annotated, created(first), first.ipam)
    expect(r.row).toBe("ipam.reconcile#8")
    expect(r.actions).toEqual([])
    expect(r.status).toEqual({
      outcome: "Unchanged",
      applied,
      acquired: [],
      released: [],
      rules: [
        { id: "r1", outcome: "AlreadyApplied", message: "rule 'r1' has been applied before" },
        { id: "r2", outcome: "AlreadyApplied", message: "rule 'r2' has been applied before" },
      ],
      conditions: [ALLOCATED],
      waiting: false,
    })
  })

  it("an exhausted parent: a Warning Event and CIDRsAllocated=False, the other rule still applied (ipam.reconcile#7)", () => {
    const second = reconcile(cluster("c2"), [], first.ipam)
    const r = reconcile(cluster("c3"), [], second.ipam)
    const why =
      "unable to generate a /31 CIDR for injection 0 (/spec/networking/nodes) of rule 'r1': parents a are exhausted"
    expect(r.row).toBe("ipam.reconcile#7")
    expect(r.actions).toEqual([
      {
        _tag: "SetAppliedRules",
        cluster: { namespace: "ns", name: "c3" },
        value: JSON.stringify({ r2: { [PODS]: "10.1.0.128/26" } }),
      },
      expect.objectContaining({ _tag: "CreateClusterConfig" }),
      event("c3", "Warning", "CIDRManagementError", "CIDRGeneration", why),
      event("c3", "Normal", "ReconcileSuccess", "Reconcile", "Reconcile successful"),
    ])
    expect(r.status).toEqual({
      outcome: "Reconciled",
      applied: { r2: { [PODS]: "10.1.0.128/26" } },
      acquired: ["10.1.0.128/26"],
      released: [],
      rules: [
        { id: "r1", outcome: "Exhausted", message: why },
        { id: "r2", outcome: "Applied", message: "rule 'r2' injected 10.1.0.128/26" },
      ],
      conditions: [{ type: "CIDRsAllocated", status: "False", reason: "ParentsExhausted", message: why }],
      waiting: true,
    })
  })

  it("a rule whose path another rule used is skipped with a Warning Event (ipam.reconcile#12)", () => {
    const withR3: IpamConfigSpec = {
      ...config,
      injectionRules: [
        ...config.injectionRules,
        {
          id: "r3",
          selector: selectAll,
          injections: [{ id: undefined, paths: [NODES], parents: ["b"], subnetSize: 28 }],
        },
      ],
    }
    const r = reconcile(annotated, created(first), first.ipam, withR3)
    const why =
      "rule 'r3' tries to inject into path '/spec/networking/nodes' which has already been used by another injection rule"
    expect(r.row).toBe("ipam.reconcile#12")
    expect(r.actions).toEqual([
      event(
        "c",
        "Warning",
        "CIDRManagementError",
        "EvaluatingRulesToApply",
        `skipped injection rule 'r3' due to issue: ${why}`,
      ),
    ])
    expect(r.status.outcome).toBe("Unchanged")
    expect(r.status.rules.at(-1)).toEqual({ id: "r3", outcome: "PathConflict", message: why })
    expect(r.status.conditions).toEqual([ALLOCATED])
  })

  it("the Cluster gone: each ClusterConfig's finalizer removed, its CIDRs released, it deleted (ipam.reconcile#1)", () => {
    const r = reconcile(undefined, created(first), first.ipam, config, "c")
    const key = (name: string) => ({ namespace: "ns", name })
    const finalizer = "ipam.gardener.clusters.openmcp.cloud/cidr-management"
    expect(r.row).toBe("ipam.reconcile#1")
    expect(r.actions).toEqual([
      { _tag: "RemoveFinalizer", clusterConfig: key("c--ipam--r1"), finalizer },
      { _tag: "ReleaseCidrs", clusterConfig: key("c--ipam--r1"), cidrs: ["10.0.0.0/31"] },
      { _tag: "DeleteClusterConfig", clusterConfig: key("c--ipam--r1") },
      { _tag: "RemoveFinalizer", clusterConfig: key("c--ipam--r2"), finalizer },
      { _tag: "ReleaseCidrs", clusterConfig: key("c--ipam--r2"), cidrs: ["10.1.0.0/26"] },
      { _tag: "DeleteClusterConfig", clusterConfig: key("c--ipam--r2") },
    ])
    expect(r.status).toEqual({
      outcome: "Released",
      applied: {},
      acquired: [],
      released: ["10.0.0.0/31", "10.1.0.0/26"],
      rules: [],
      conditions: [],
      waiting: false,
    })
  })

  it("refuses an unreadable annotation and a ClusterConfig patch that is not a CIDR, writing nothing (ipam.reconcile#10, #11)", () => {
    const bad = reconcile(cluster("c", { [APPLIED_RULES_ANNOTATION]: "[1]" }), [], first.ipam)
    expect(bad.row).toBe("ipam.reconcile#10")
    expect(bad.actions).toEqual([
      event(
        "c",
        "Warning",
        "ReconcileError",
        "ParsingAppliedRules",
        "unable to recover applied rules from annotation ipam.gardener.clusters.openmcp.cloud/applied-injection-rules: not a JSON object of rule ids",
      ),
    ])
    const invalid = {
      outcome: "Invalid",
      applied: {},
      acquired: [],
      released: [],
      rules: [],
      conditions: [],
      waiting: false,
    }
    expect(bad.status).toEqual(invalid)
    const [cc] = created(first)
    if (cc === undefined) throw new Error("no ClusterConfig")
    const badCc = reconcile(
      annotated,
      [{ ...cc, patches: [{ op: "add", path: "/x", value: "nope" }] }],
      first.ipam,
    )
    expect(badCc.row).toBe("ipam.reconcile#11")
    expect(badCc.actions).toEqual([
      event(
        "c",
        "Warning",
        "ReconcileError",
        "EvaluatingExistingClusterConfigs",
        `ClusterConfig ns/c--ipam--r1 has a patch at '/x' whose value is not a CIDR: "nope"`,
      ),
    ])
    expect(badCc.status).toEqual(invalid)
  })
})

describe("reconcileCluster, more word for word", () => {
  it("a Cluster whose annotation holds injections but no ClusterConfig: they are recreated, and that is a write (ipam.reconcile#5)", () => {
    const r = reconcile(annotated, [], first.ipam)
    expect(r.row).toBe("ipam.reconcile#5")
    expect(created(r).map((cc) => cc.name)).toEqual(["c--ipam--r1", "c--ipam--r2"])
    expect(r.actions.filter((a) => a._tag === "SetAppliedRules")).toEqual([])
    expect(r.actions.at(-1)).toEqual(
      event("c", "Normal", "ReconcileSuccess", "Reconcile", "Reconcile successful"),
    )
    expect(r.status.outcome).toBe("Reconciled")
  })

  it("releases in the order of the ClusterConfigs' names, and only CIDR values", () => {
    const [a, b] = created(first)
    if (a === undefined || b === undefined) throw new Error("two ClusterConfigs expected")
    const withJunk = { ...a, patches: [...a.patches, { op: "add", path: "/spec/other", value: 42 }] }
    const r = reconcile(undefined, [b, withJunk], first.ipam, config, "c")
    expect(r.actions.filter((x) => x._tag === "ReleaseCidrs")).toEqual([
      {
        _tag: "ReleaseCidrs",
        clusterConfig: { namespace: "ns", name: "c--ipam--r1" },
        cidrs: ["10.0.0.0/31"],
      },
      {
        _tag: "ReleaseCidrs",
        clusterConfig: { namespace: "ns", name: "c--ipam--r2" },
        cidrs: ["10.1.0.0/26"],
      },
    ])
  })

  it("joins the messages of several exhausted rules into the condition", () => {
    const tiny: IpamConfigSpec = {
      parentCIDRs: { a: ["10.0.0.0/31"] },
      injectionRules: [
        {
          id: "r1",
          selector: selectAll,
          injections: [{ id: undefined, paths: [NODES, "/spec/x"], parents: ["a"], subnetSize: 30 }],
        },
        {
          id: "r2",
          selector: selectAll,
          injections: [{ id: undefined, paths: [PODS], parents: ["a"], subnetSize: 30 }],
        },
      ],
      internalStateRefreshCycleDuration: 0,
    }
    const r = reconcile(cluster("c"), [], reconfigure(emptyIpam, [cidrOf("10.0.0.0/31")]), tiny)
    expect(r.status.conditions).toEqual([
      {
        type: "CIDRsAllocated",
        status: "False",
        reason: "ParentsExhausted",
        message:
          "unable to generate a /30 CIDR for injection 0 (/spec/networking/nodes, /spec/x) of rule 'r1': parents a are exhausted; " +
          "unable to generate a /30 CIDR for injection 0 (/spec/networking/pods) of rule 'r2': parents a are exhausted",
      },
    ])
  })
})
