/**
 * The fixture the reconcile's tests share: a config of two rules (one injection from parent `a`,
 * one from any parent), a Cluster, the allocator over both parents, a reconcile of one Cluster,
 * the ClusterConfigs a result creates as the next reconcile observes them, and a first reconcile
 * with its applied-rules annotation; and readers of validateIpamConfig's answers. Tests only.
 *
 * @module
 */
import { expect } from "vitest"
import type { ReconcileResult } from "./actions.ts"
import { emptyIpam, reconfigure } from "./allocator.ts"
import { cidrOf } from "./cidr.ts"
import { IpamConfigInvalidError, type IpamConfigSpec, validateIpamConfig } from "./config.ts"
import { APPLIED_RULES_ANNOTATION } from "./constants.ts"
import type { ClusterConfigView, ClusterView } from "./objects.ts"
import { reconcileCluster } from "./reconcile.ts"

export const identity = { managedBy: "ipam", environment: "dev" }
export const selectAll = {
  matchIdentities: undefined,
  matchPurposes: [],
  matchLabels: {},
  matchExpressions: [],
}
export const NODES = "/spec/networking/nodes"
export const PODS = "/spec/networking/pods"
export const config: IpamConfigSpec = {
  parentCIDRs: { a: ["10.0.0.0/30"], b: ["10.1.0.0/24"] },
  injectionRules: [
    {
      id: "r1",
      selector: selectAll,
      injections: [{ id: "n", paths: [NODES], parents: ["a"], subnetSize: 31 }],
    },
    {
      id: "r2",
      selector: selectAll,
      injections: [{ id: undefined, paths: [PODS], parents: [], subnetSize: 26 }],
    },
  ],
  internalStateRefreshCycleDuration: 0,
}
export const cluster = (name: string, annotations: Record<string, string> = {}): ClusterView => ({
  namespace: "ns",
  name,
  uid: `uid-${name}`,
  labels: {},
  annotations,
  purposes: [],
})
export const start = reconfigure(emptyIpam, ["10.0.0.0/30", "10.1.0.0/24"].map(cidrOf))
export const reconcile = (
  c: ClusterView | undefined,
  clusterConfigs: ReadonlyArray<ClusterConfigView>,
  ipam = start,
  cfg = config,
  name = c?.name ?? "c",
) =>
  reconcileCluster({
    observed: { cluster: c, clusterConfigs },
    desired: { config: cfg, identity },
    trigger: { _tag: "Reconcile", namespace: "ns", name },
    ipam,
  })
/** The ClusterConfigs a result creates, as the next reconcile observes them. */
export const created = (r: ReconcileResult): ReadonlyArray<ClusterConfigView> =>
  r.actions.flatMap((a) =>
    a._tag === "CreateClusterConfig"
      ? [
          {
            namespace: a.object.metadata.namespace,
            name: a.object.metadata.name,
            labels: a.object.metadata.labels,
            annotations: {},
            finalizers: a.object.metadata.finalizers,
            ownerReferences: a.object.metadata.ownerReferences,
            patches: a.object.spec.patches,
          },
        ]
      : [],
  )
export const first = reconcile(cluster("c"), [])
export const applied = { r1: { [NODES]: "10.0.0.0/31" }, r2: { [PODS]: "10.1.0.0/26" } }
export const annotated = cluster("c", { [APPLIED_RULES_ANNOTATION]: JSON.stringify(applied) })

export const errorsOf = (raw: unknown) => {
  const r = validateIpamConfig(raw)
  if (!(r instanceof IpamConfigInvalidError)) throw new Error("expected errors")
  return r.errors
}
export const spec = (s: Record<string, unknown>) => ({ spec: { parentCIDRs: { a: ["10.0.0.0/16"] }, ...s } })
export const rule = (injections: ReadonlyArray<unknown>, extra: Record<string, unknown> = {}) => ({
  id: "r",
  injections,
  ...extra,
})

/** Every error as `path: message`, for matching path and the facts the message names. */
export const issues = (raw: unknown) => errorsOf(raw).map((x) => `${x.path}: ${x.message}`)
export const configOf = (raw: unknown) => {
  const r = validateIpamConfig(raw)
  if (r instanceof IpamConfigInvalidError) throw r
  return r.config
}
export const expectIssues = (raw: unknown, want: ReadonlyArray<RegExp>) => {
  const got = issues(raw)
  expect(got.length, got.join("\n")).toBe(want.length)
  want.forEach((w, i) => {
    expect(got[i]).toMatch(w)
  })
}
