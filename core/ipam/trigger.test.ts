// The trigger rows that upstream's behaviour decides, word for word: a managed ClusterConfig's
// update enqueues its owner (ipam.trigger#10), and released CIDRs enqueue the Clusters waiting
// for CIDRs (ipam.trigger#20). The property tests hold every row to the spec.
import { describe, expect, it } from "vitest"
import type { IpamConfigSpec } from "./config.ts"
import type { ClusterConfigView } from "./objects.ts"
import { clusterConfigLabels } from "./objects.ts"
import { type TriggerInput, triggerTransition } from "./trigger.ts"

const identity = { managedBy: "ipam", environment: "dev" }
const config: IpamConfigSpec = {
  parentCIDRs: { a: ["10.0.0.0/16"] },
  injectionRules: [],
  internalStateRefreshCycleDuration: 0,
}
const cc: ClusterConfigView = {
  namespace: "ns",
  name: "c--ipam--r",
  labels: clusterConfigLabels(identity, "c", "r"),
  annotations: {},
  finalizers: [],
  ownerReferences: [
    { apiVersion: "clusters.openmcp.cloud/v1alpha1", kind: "Cluster", name: "c", uid: "u", controller: true },
  ],
  patches: [],
}
const decide = (trigger: TriggerInput["trigger"], waiting?: TriggerInput["observed"]["waiting"]) =>
  triggerTransition({ observed: { config, clusters: [], waiting }, desired: identity, trigger, now: 0 })

describe("ipam.trigger rows taken from upstream", () => {
  it("a managed ClusterConfig's update, whatever changed, enqueues its owning Cluster (#10)", () => {
    const changed = { ...cc, patches: [{ op: "add", path: "/spec/x", value: "10.0.0.0/24" }] }
    expect(decide({ _tag: "ClusterConfigUpdated", old: cc, clusterConfig: changed })).toEqual({
      actions: [{ _tag: "Enqueue", namespace: "ns", name: "c" }],
      status: { triggered: true },
      row: "ipam.trigger#10",
    })
  })
  it("released CIDRs enqueue each waiting Cluster once, sorted (#20); none waiting, nothing", () => {
    const waiting = [
      { namespace: "ns", name: "b" },
      { namespace: "ns", name: "a" },
      { namespace: "ns", name: "b" },
    ]
    expect(decide({ _tag: "CidrsReleased" }, waiting)).toEqual({
      actions: [
        { _tag: "Enqueue", namespace: "ns", name: "a" },
        { _tag: "Enqueue", namespace: "ns", name: "b" },
      ],
      status: { triggered: true },
      row: "ipam.trigger#20",
    })
    expect(decide({ _tag: "CidrsReleased" })).toEqual({
      actions: [],
      status: { triggered: false },
      row: "ipam.trigger#20",
    })
  })
})
