/**
 * The allocator state rebuilt from the cluster alone (upstream docs/controllers/state.md: the
 * ClusterConfigs and the applied-rules annotations are the ground truth; the in-memory state is
 * rebuilt on start and on every refresh cycle).
 *
 * A CIDR counts as allocated when a ClusterConfig of this controller carries it and either still
 * has the CIDR finalizer or belongs to a Cluster that exists, or when a Cluster's applied-rules
 * annotation records it (the reconcile writes such injections back to ClusterConfigs). Within
 * one Cluster and rule, CIDRs are restored largest first, each under the latest earlier CIDR of
 * the same rule that contains it (an injection whose parent is an earlier injection), else under
 * the config's parent that contains it, else parentless (its parent left the config).
 *
 * @module
 */
import { emptyIpam, IpamBuilder, type IpamState, reconfigure } from "./allocator.ts"
import { type Cidr, compareCidr, contains, formatCidr, isCidrError, parseCidr } from "./cidr.ts"
import { type IpamConfigSpec, parentCidrsOf } from "./config.ts"
import {
  APPLIED_RULES_ANNOTATION,
  CIDR_FINALIZER,
  CLUSTER_TARGET_LABEL,
  INJECTION_RULE_LABEL,
} from "./constants.ts"
import {
  AppliedRulesError,
  type ClusterConfigView,
  type ClusterView,
  type ControllerIdentity,
  isManaged,
  parseAppliedRules,
} from "./objects.ts"

export interface RestoreInput {
  readonly config: IpamConfigSpec | undefined
  readonly clusters: ReadonlyArray<ClusterView>
  readonly clusterConfigs: ReadonlyArray<ClusterConfigView>
  readonly identity: ControllerIdentity
}

/** A CIDR that could not be restored because another one holds (part of) its addresses. */
export interface RestoreConflict {
  readonly cidr: string
  readonly with: string
  /** `<namespace>/<cluster>` and rule id where the CIDR was found. */
  readonly cluster: string
  readonly rule: string
}

export interface RestoreResult {
  readonly ipam: IpamState
  readonly conflicts: ReadonlyArray<RestoreConflict>
  /** Annotations that are not `{rule: {path: cidr}}`, by `<namespace>/<cluster>`. */
  readonly unreadable: ReadonlyArray<string>
}

/** Rebuilds the allocator from ClusterConfigs and applied-rules annotations. */
export const restoreIpam = (input: RestoreInput): RestoreResult => {
  const groups = new Map<string, { cluster: string; rule: string; cidrs: Set<string> }>()
  const group = (ns: string, cluster: string, rule: string) => {
    const key = `${ns}/${cluster}\u0000${rule}`
    let g = groups.get(key)
    if (g === undefined) {
      g = { cluster: `${ns}/${cluster}`, rule, cidrs: new Set() }
      groups.set(key, g)
    }
    return g
  }
  const exists = new Set(input.clusters.map((c) => `${c.namespace}/${c.name}`))
  const unreadable: Array<string> = []
  for (const c of input.clusters) {
    const parsed = parseAppliedRules(c.annotations[APPLIED_RULES_ANNOTATION])
    if (parsed instanceof AppliedRulesError) {
      unreadable.push(`${c.namespace}/${c.name}`)
      continue
    }
    for (const [rule, m] of Object.entries(parsed)) {
      for (const cidr of Object.values(m)) group(c.namespace, c.name, rule).cidrs.add(cidr)
    }
  }
  for (const cc of input.clusterConfigs) {
    if (!isManaged(cc, input.identity)) continue
    const cluster = cc.labels[CLUSTER_TARGET_LABEL] ?? ""
    const held = cc.finalizers.includes(CIDR_FINALIZER) || exists.has(`${cc.namespace}/${cluster}`)
    if (!held) continue
    const g = group(cc.namespace, cluster, cc.labels[INJECTION_RULE_LABEL] ?? "")
    for (const p of cc.patches) if (typeof p.value === "string") g.cidrs.add(p.value)
  }

  const parents = input.config === undefined ? [] : parentCidrsOf(input.config)
  const ipam = new IpamBuilder(reconfigure(emptyIpam, parents))
  const conflicts: Array<RestoreConflict> = []
  const keys = [...groups.keys()].sort()
  for (const key of keys) {
    const g = groups.get(key) as { cluster: string; rule: string; cidrs: Set<string> }
    const cidrs = [...g.cidrs]
      .map((t) => parseCidr(t))
      .filter((c): c is Cidr => !isCidrError(c))
      .sort((a, b) => a.prefix - b.prefix || compareCidr(a, b))
    // Stryker disable next-line ArrayDeclaration
    const local: Array<Cidr> = []
    for (const c of cidrs) {
      const inLocal = [...local].reverse().find((l) => contains(l, c) && l.prefix < c.prefix)
      const inParent = parents.find((p) => contains(p, c) && p.prefix < c.prefix)
      const parent = inLocal !== undefined ? inLocal : inParent
      const res = ipam.acquireSpecific(parent === undefined ? undefined : formatCidr(parent), c)
      if (res !== "Acquired") {
        conflicts.push({ cidr: formatCidr(c), with: res.conflict, cluster: g.cluster, rule: g.rule })
        continue
      }
      local.push(c)
    }
  }
  return { ipam: ipam.done(), conflicts, unreadable }
}
