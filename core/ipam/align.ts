/**
 * Seed 004, "it aligns the CIDR annotation with the existing ClusterConfig resources": the
 * reconcile's rows that bring the applied-rules annotation and the Cluster's ClusterConfigs to
 * agree (`ipam.reconcile#4`, `#5`, `#11`, `#13`).
 *
 * Expected flow: `clusterConfigsByRule` reads the ClusterConfigs (row 11: a patch whose value is
 * not a CIDR stops the reconcile); `align` then lets injections found in ClusterConfigs join the
 * annotation (row 4: a path already recorded keeps its value), writes injections of the
 * annotation that the ClusterConfigs lack back to them (row 5: a missing ClusterConfig is created,
 * a present one gets `add` patches) and gives each ClusterConfig that is not being deleted the
 * CIDR finalizer (row 13).
 *
 * Guarantees: nothing is allocated here; the annotation only grows; the writes come in rule-id
 * order, the finalizers after them.
 *
 * @module
 */
import * as Data from "effect/Data"
import { keyOf, type ObjectKey, type ReconcileAction } from "./actions.ts"
import { isCidrError, parseCidr } from "./cidr.ts"
import { CIDR_FINALIZER, INJECTION_RULE_LABEL, type IpamDefaultsShape } from "./constants.ts"
import {
  type AppliedRules,
  type ClusterConfigView,
  type ClusterView,
  type ControllerIdentity,
  clusterConfigFor,
  type JsonPatch,
} from "./objects.ts"

/** Row 11: a ClusterConfig of the Cluster has a patch whose value is not a CIDR. */
export class ClusterConfigPatchError extends Data.TaggedError("ClusterConfigPatchError")<{
  readonly clusterConfig: ObjectKey
  readonly path: string
  readonly value: unknown
}> {
  override get message(): string {
    return `ClusterConfig ${this.clusterConfig.namespace}/${this.clusterConfig.name} has a patch at '${this.path}' whose value is not a CIDR: ${JSON.stringify(this.value)}`
  }
}

/** The ClusterConfigs by rule id (label; the first by name wins), or the first unreadable patch. */
export const clusterConfigsByRule = (
  ccs: ReadonlyArray<ClusterConfigView>,
): ReadonlyMap<string, ClusterConfigView> | ClusterConfigPatchError => {
  const byRule = new Map<string, ClusterConfigView>()
  for (const cc of ccs) {
    const rule = cc.labels[INJECTION_RULE_LABEL] ?? ""
    // parseCidr refuses a value that is not a string, naming its type
    const bad = cc.patches.find((p) => isCidrError(parseCidr(p.value as string)))
    if (bad !== undefined)
      return new ClusterConfigPatchError({ clusterConfig: keyOf(cc), path: bad.path, value: bad.value })
    if (!byRule.has(rule)) byRule.set(rule, cc)
  }
  return byRule
}

/** The annotation and ClusterConfigs brought to agree, before any rule is applied. */
export interface Alignment {
  /** The applied rules after row 4 (a fresh object the caller may extend). */
  readonly applied: Record<string, Record<string, string>>
  /** Row 4: a ClusterConfig added an injection to the annotation. */
  readonly fromClusterConfigs: boolean
  /** Rows 5 and 13: the writes to ClusterConfigs, in order. */
  readonly writes: ReadonlyArray<ReconcileAction>
  /** Row 5: an injection of the annotation was written back to a ClusterConfig. */
  readonly toClusterConfigs: boolean
  /** Row 13: a ClusterConfig not being deleted lacked the finalizer. */
  readonly finalizerMissing: boolean
}

/** Rows 4, 5 and 13 for the annotation `before` and the ClusterConfigs `byRule`. */
export const align = (
  before: AppliedRules,
  byRule: ReadonlyMap<string, ClusterConfigView>,
  who: ControllerIdentity,
  cluster: ClusterView,
  defaults: IpamDefaultsShape,
): Alignment => {
  // Row 4: ClusterConfigs → annotation (a path already recorded keeps its value).
  const applied: Record<string, Record<string, string>> = Object.fromEntries(
    Object.entries(before).map(([k, v]) => [k, { ...v }]),
  )
  let fromClusterConfigs = false
  for (const [rule, cc] of byRule) {
    const m = applied[rule] ?? {}
    if (applied[rule] === undefined) {
      applied[rule] = m
      fromClusterConfigs = true
    }
    for (const p of cc.patches) {
      if (m[p.path] === undefined) {
        m[p.path] = p.value as string
        fromClusterConfigs = true
      }
    }
  }

  // Row 5: annotation → ClusterConfigs.
  const writes: Array<ReconcileAction> = []
  let toClusterConfigs = false
  for (const rule of Object.keys(before).sort()) {
    const injections = before[rule] ?? {}
    const cc = byRule.get(rule)
    if (cc === undefined) {
      if (Object.keys(injections).length === 0) continue
      writes.push({
        _tag: "CreateClusterConfig",
        object: clusterConfigFor(who, cluster, rule, injections, defaults),
      })
      toClusterConfigs = true
      continue
    }
    const have = new Set(cc.patches.map((p) => p.path))
    const missing = Object.keys(injections)
      .filter((p) => !have.has(p))
      .sort()
      .map((path): JsonPatch => ({ op: "add", path, value: injections[path] }))
    if (missing.length > 0) {
      writes.push({ _tag: "AddPatches", clusterConfig: keyOf(cc), patches: missing })
      toClusterConfigs = true
    }
  }

  // Row 13: a ClusterConfig not being deleted lacks the finalizer.
  let finalizerMissing = false
  for (const cc of byRule.values()) {
    if (cc.deletionTimestamp === undefined && !cc.finalizers.includes(CIDR_FINALIZER)) {
      writes.push({ _tag: "AddFinalizer", clusterConfig: keyOf(cc), finalizer: CIDR_FINALIZER })
      finalizerMissing = true
    }
  }
  return { applied, fromClusterConfigs, writes, toClusterConfigs, finalizerMissing }
}
