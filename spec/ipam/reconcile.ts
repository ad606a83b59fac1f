/**
 * Seed 004, the reconcile of one Cluster: "it aligns the CIDR annotation with the existing
 * ClusterConfig resources ... and creates ClusterConfig resources according to the specified
 * rules", with the release of the CIDRs "after the Cluster has been fully deleted" and the
 * Clusters "never reconciled" (ignored, not selected). Rows 7-13 are derived: exhaustion
 * reported and retried and upstream's behaviour where the seed is silent (state.md, config.md,
 * internal/controllers/cluster).
 *
 * The predicates compute, independently of core, what the reconcile must do: the spec's own
 * model (spec/ipam/model.ts) reads labels and annotations, selects rules, and allocates by brute
 * force (lowest free aligned block, parents in order).
 *
 * @module
 */
import { isDeepStrictEqual } from "node:util"
import type {
  ClusterConfigView,
  IpamConfigSpec,
  ReconcileAction,
  ReconcileInput,
  ReconcileResult,
} from "../../core/ipam/index.ts"
import type { TableSpec } from "../../core/krtt/index.ts"
import { rowsFor } from "../builder.ts"
import {
  APPLIED,
  type Block,
  block,
  CLUSTER_LABEL,
  ENV,
  FINALIZER,
  firstFree,
  ignored,
  MANAGED_BY,
  PURPOSE,
  RULE_LABEL,
  reconcileAnnotation,
  selects,
  text,
} from "./model.ts"

export const RECONCILE_COLUMNS = ["Observed", "Desired", "Reconcile", "Result", "Seed"] as const
const { doc, derived } = rowsFor<ReconcileInput, ReconcileResult, unknown>(RECONCILE_COLUMNS)

type Applied = Record<string, Record<string, string>>
const tags = (r: ReconcileResult) => r.actions.map((a) => a._tag)
const only = (r: ReconcileResult, allowed: ReadonlyArray<ReconcileAction["_tag"]>) =>
  tags(r).every((t) => allowed.includes(t))

/** The ClusterConfigs of this controller for the requested Cluster, by name. */
const ours = (i: ReconcileInput): ReadonlyArray<ClusterConfigView> =>
  i.observed.clusterConfigs
    .filter(
      (cc) =>
        cc.namespace === i.trigger.namespace &&
        cc.labels[CLUSTER_LABEL] === i.trigger.name &&
        cc.labels[MANAGED_BY] === i.desired.identity.managedBy &&
        cc.labels[PURPOSE] === "gardener-ipam" &&
        cc.labels[ENV] === i.desired.identity.environment,
    )
    .sort((a, b) => (a.name < b.name ? -1 : 1))

const present = (i: ReconcileInput) => i.observed.cluster !== undefined
const live = (i: ReconcileInput) => i.observed.cluster !== undefined && !ignored(i.observed.cluster)
const cfg = (i: ReconcileInput) => i.desired.config as IpamConfigSpec
const selected = (i: ReconcileInput) =>
  i.observed.cluster === undefined || i.desired.config === undefined
    ? []
    : i.desired.config.injectionRules.filter((r) =>
        selects(r, i.observed.cluster as NonNullable<typeof i.observed.cluster>),
      )
const inScope = (i: ReconcileInput) => live(i) && i.desired.config !== undefined && selected(i).length > 0

/** The annotation as `{rule: {path: cidr}}`, or undefined when unreadable. */
const annotation = (i: ReconcileInput): Applied | undefined => {
  const t = i.observed.cluster?.annotations[APPLIED]
  if (t === undefined) return {}
  try {
    const v = JSON.parse(t) as unknown
    if (v === null) return {}
    if (typeof v !== "object" || Array.isArray(v)) return undefined
    const out: Applied = {}
    for (const [k, m] of Object.entries(v as Record<string, unknown>)) {
      if (m === null) {
        out[k] = {}
        continue
      }
      if (typeof m !== "object" || Array.isArray(m)) return undefined
      if (!Object.values(m as object).every((x) => typeof x === "string")) return undefined
      out[k] = { ...(m as Record<string, string>) }
    }
    return out
  } catch {
    return undefined
  }
}
const cidrText = /^(\d{1,3}\.){3}\d{1,3}\/\d{1,2}$|^[0-9a-f:]+\/\d{1,3}$/
const ccsReadable = (i: ReconcileInput) =>
  ours(i).every((cc) => cc.patches.every((p) => typeof p.value === "string" && cidrText.test(p.value)))

const byRule = (i: ReconcileInput) => {
  const m = new Map<string, ClusterConfigView>()
  for (const cc of ours(i)) {
    const r = cc.labels[RULE_LABEL] ?? ""
    if (!m.has(r)) m.set(r, cc)
  }
  return m
}

/** What the spec expects of a reconcile in scope with readable state. */
interface Expectation {
  readonly ccToAnnotation: boolean
  readonly annotationToCc: boolean
  readonly finalizerMissing: boolean
  readonly applied: Applied
  readonly created: ReadonlyMap<string, Record<string, string>>
  readonly added: ReadonlyMap<string, Record<string, string>>
  readonly finalizers: ReadonlyArray<string>
  readonly newRules: ReadonlyArray<string>
  readonly conflicts: ReadonlyArray<string>
  readonly exhausted: ReadonlyArray<string>
}

const expect = (i: ReconcileInput): Expectation => {
  const before = annotation(i) ?? {}
  const rules = byRule(i)
  const applied: Applied = Object.fromEntries(Object.entries(before).map(([k, v]) => [k, { ...v }]))
  let ccToAnnotation = false
  for (const [rule, cc] of rules) {
    if (applied[rule] === undefined) {
      applied[rule] = {}
      ccToAnnotation = true
    }
    const m = applied[rule] as Record<string, string>
    for (const p of cc.patches)
      if (!(p.path in m)) {
        m[p.path] = p.value as string
        ccToAnnotation = true
      }
  }
  const created = new Map<string, Record<string, string>>()
  const added = new Map<string, Record<string, string>>()
  for (const [rule, inj] of Object.entries(before)) {
    const cc = rules.get(rule)
    if (cc === undefined) {
      if (Object.keys(inj).length > 0) created.set(rule, inj)
      continue
    }
    const missing = Object.fromEntries(
      Object.entries(inj).filter(([p]) => !cc.patches.some((x) => x.path === p)),
    )
    if (Object.keys(missing).length > 0) added.set(cc.name, missing)
  }
  const finalizers = [...rules.values()]
    .filter((cc) => cc.deletionTimestamp === undefined && !cc.finalizers.includes(FINALIZER))
    .map((cc) => cc.name)

  // allocation, brute force, over the allocations held before plus those made here
  const config = cfg(i)
  const taken: Array<Block> = i.observed.allocations.map((a) => block(a.cidr))
  const used = new Set(Object.values(applied).flatMap((m) => Object.keys(m)))
  const newRules: Array<string> = []
  const conflicts: Array<string> = []
  const exhausted: Array<string> = []
  for (const rule of selected(i)) {
    if (rule.id in applied) continue
    const paths = rule.injections.flatMap((x) => x.paths)
    if (paths.some((p) => used.has(p))) {
      conflicts.push(rule.id)
      continue
    }
    const local = new Map<string, Block>()
    const mine: Array<Block> = []
    const inj: Record<string, string> = {}
    let ok = true
    for (const x of rule.injections) {
      const ids = x.parents.length > 0 ? x.parents : Object.keys(config.parentCIDRs).sort()
      let got: Block | undefined
      for (const id of ids) {
        const candidates = local.has(id)
          ? [local.get(id) as Block]
          : (config.parentCIDRs[id] ?? []).map(block)
        for (const p of candidates) {
          got = firstFree(p, x.subnetSize, [...taken, ...mine])
          if (got !== undefined) break
        }
        if (got !== undefined) break
      }
      if (got === undefined) {
        ok = false
        break
      }
      mine.push(got)
      if (x.id !== undefined) local.set(x.id, got)
      for (const p of x.paths) inj[p] = text(got)
    }
    if (!ok) {
      exhausted.push(rule.id)
      continue
    }
    taken.push(...mine)
    for (const p of paths) used.add(p)
    applied[rule.id] = inj
    created.set(rule.id, inj)
    newRules.push(rule.id)
  }
  return {
    ccToAnnotation,
    annotationToCc: created.size > newRules.length || added.size > 0,
    finalizerMissing: finalizers.length > 0,
    applied,
    created,
    added,
    finalizers,
    newRules,
    conflicts,
    exhausted,
  }
}

/**
 * The reconcile annotations are used up: the Cluster's, and those of its ClusterConfigs (each
 * removed once), exactly when present.
 */
const annotationsUsedUp = (i: ReconcileInput, r: ReconcileResult): boolean => {
  const cluster = i.observed.cluster as NonNullable<typeof i.observed.cluster>
  if (reconcileAnnotation(cluster) !== tags(r).includes("RemoveOperationAnnotation")) return false
  const want = ours(i)
    .filter(reconcileAnnotation)
    .map((cc) => cc.name)
    .sort()
  const got = r.actions
    .flatMap((a) => (a._tag === "RemoveClusterConfigOperationAnnotation" ? [a.clusterConfig.name] : []))
    .sort()
  return isDeepStrictEqual(want, got)
}

const reconcilable = (i: ReconcileInput) => inScope(i) && annotation(i) !== undefined && ccsReadable(i)

/** What every reconcile in scope must do, whichever row names it. */
const aligned = (i: ReconcileInput, r: ReconcileResult): boolean => {
  const e = expect(i)
  const before = annotation(i) ?? {}
  const sorted = (a: Applied) =>
    JSON.stringify(
      Object.keys(a)
        .sort()
        .map((k) => [k, Object.entries(a[k] ?? {}).sort()]),
    )
  const set = r.actions.filter((a) => a._tag === "SetAppliedRules")
  const changed = sorted(before) !== sorted(e.applied)
  if (changed !== (set.length === 1)) return false
  if (
    set.length === 1 &&
    sorted(JSON.parse((set[0] as { value: string }).value) as Applied) !== sorted(e.applied)
  )
    return false
  if (sorted(r.status.applied as Applied) !== sorted(e.applied)) return false
  const creates = r.actions.filter((a) => a._tag === "CreateClusterConfig")
  if (creates.length !== e.created.size) return false
  for (const c of creates) {
    const rule = c.object.metadata.labels[RULE_LABEL] ?? ""
    const want = e.created.get(rule)
    if (want === undefined) return false
    const got = Object.fromEntries(c.object.spec.patches.map((p) => [p.path, p.value]))
    if (!isDeepStrictEqual(got, want)) return false
    if (!c.object.metadata.finalizers.includes(FINALIZER)) return false
    const owner = c.object.metadata.ownerReferences[0]
    if (owner?.kind !== "Cluster" || owner.name !== i.trigger.name || owner.controller !== true) return false
    if (c.object.metadata.namespace !== i.trigger.namespace) return false
  }
  const adds = r.actions.filter((a) => a._tag === "AddPatches")
  if (adds.length !== e.added.size) return false
  for (const a of adds) {
    const want = e.added.get(a.clusterConfig.name)
    if (
      want === undefined ||
      !isDeepStrictEqual(Object.fromEntries(a.patches.map((p) => [p.path, p.value])), want)
    )
      return false
  }
  const fins = r.actions.filter((a) => a._tag === "AddFinalizer").map((a) => a.clusterConfig.name)
  if (!isDeepStrictEqual([...fins].sort(), [...e.finalizers].sort())) return false
  const warnings = r.actions.filter((a) => a._tag === "Event" && a.type === "Warning")
  for (const id of [...e.conflicts, ...e.exhausted])
    if (!warnings.some((w) => w._tag === "Event" && w.message.includes(`'${id}'`))) return false
  if (warnings.length !== e.conflicts.length + e.exhausted.length) return false
  const cond = r.status.conditions.find((c) => c.type === "CIDRsAllocated")
  if (cond === undefined || (cond.status === "False") !== e.exhausted.length > 0) return false
  if (r.status.waiting !== e.exhausted.length > 0) return false
  if (!annotationsUsedUp(i, r)) return false
  return only(r, [
    "RemoveOperationAnnotation",
    "RemoveClusterConfigOperationAnnotation",
    "SetAppliedRules",
    "CreateClusterConfig",
    "AddPatches",
    "AddFinalizer",
    "Event",
  ])
}

const quietExceptAnnotation = (i: ReconcileInput, r: ReconcileResult) =>
  only(r, ["RemoveOperationAnnotation", "RemoveClusterConfigOperationAnnotation"]) &&
  annotationsUsedUp(i, r) &&
  !r.status.waiting

const warnsOnly = (action: string) => (i: ReconcileInput, r: ReconcileResult) =>
  only(r, ["RemoveOperationAnnotation", "RemoveClusterConfigOperationAnnotation", "Event"]) &&
  r.actions.some((a) => a._tag === "Event" && a.type === "Warning" && a.action === action) &&
  annotationsUsedUp(i, r) &&
  !r.status.waiting

const pending = (i: ReconcileInput) => {
  const e = expect(i)
  return {
    e,
    any:
      e.ccToAnnotation ||
      e.annotationToCc ||
      e.finalizerMissing ||
      e.newRules.length > 0 ||
      e.conflicts.length > 0 ||
      e.exhausted.length > 0,
  }
}

export const reconcileTable: TableSpec<ReconcileInput, ReconcileResult, unknown> = {
  id: "ipam.reconcile",
  source: "004_7ee85527bb2e4056.txt",
  title: "The Cluster Controller: reconcile of one Cluster",
  columns: RECONCILE_COLUMNS,
  rows: [
    doc(
      1,
      [
        "Cluster NotFound; ClusterConfigs of this controller for it remain",
        "-",
        "for each ClusterConfig with the CIDR finalizer: remove the finalizer, then release its CIDRs; delete each ClusterConfig not yet being deleted",
        "CIDRs free again",
        "We can only release the CIDRs after the `Cluster` has been fully deleted. This is noticed via the corresponding `ClusterConfig` resources, which get a deletion timestamp automatically at this point due to their owner reference pointing to the `Cluster`.",
      ],
      {
        applies: (i) => !present(i),
        holds: (i, r) => {
          if (!only(r, ["RemoveFinalizer", "ReleaseCidrs", "DeleteClusterConfig"])) return false
          const want: Array<string> = []
          for (const cc of ours(i)) {
            const key = (a: ReconcileAction) => "clusterConfig" in a && a.clusterConfig.name === cc.name
            const at = (t: string) => r.actions.findIndex((a) => a._tag === t && key(a))
            const held = cc.finalizers.includes(FINALIZER)
            const cidrs = cc.patches.map((p) => p.value as string)
            if (held) {
              const rel = r.actions[at("ReleaseCidrs")]
              if (at("RemoveFinalizer") === -1 || at("ReleaseCidrs") < at("RemoveFinalizer")) return false
              if (
                rel?._tag !== "ReleaseCidrs" ||
                !isDeepStrictEqual([...rel.cidrs].sort(), [...cidrs].sort())
              )
                return false
              want.push(...cidrs)
            } else if (at("ReleaseCidrs") !== -1 || at("RemoveFinalizer") !== -1) return false
            if ((cc.deletionTimestamp === undefined) !== (at("DeleteClusterConfig") !== -1)) return false
          }
          const touched = new Set(r.actions.map((a) => ("clusterConfig" in a ? a.clusterConfig.name : "")))
          const mine = new Set(ours(i).map((cc) => cc.name))
          return (
            !r.status.waiting &&
            [...touched].every((n) => mine.has(n)) &&
            isDeepStrictEqual([...r.status.released].sort(), want.sort())
          )
        },
        reason:
          "The finalizer goes before the CIDRs are released in memory (the shell releases only after the finalizer removal succeeded, as upstream swaps its state only then): a CIDR is never free while a ClusterConfig still holds it.",
      },
    ),
    doc(
      2,
      [
        "Cluster with `openmcp.cloud/operation: ignore`",
        "-",
        "nothing",
        "unchanged",
        "`Cluster` resources which ... have the *ignore annotation* ... are never reconciled by this controller.",
      ],
      {
        applies: (i) => present(i) && ignored(i.observed.cluster as NonNullable<typeof i.observed.cluster>),
        holds: (_, r) => r.actions.length === 0 && r.status.outcome === "Ignored" && !r.status.waiting,
      },
    ),
    doc(
      3,
      [
        "Cluster no injection rule selects",
        "IPAMConfig known",
        "remove the reconcile annotation if present; nothing else",
        "unchanged",
        "`Cluster` resources which don't match any injection rule ... are never reconciled by this controller.",
      ],
      {
        applies: (i) => live(i) && i.desired.config !== undefined && selected(i).length === 0,
        holds: (i, r) => quietExceptAnnotation(i, r) && r.status.outcome === "NoMatchingRule",
        reason:
          "Upstream removes the reconcile annotation before it reads the config and the rules, so the annotation is used up even here.",
      },
    ),
    doc(
      4,
      [
        "ClusterConfigs hold injections the applied-rules annotation lacks",
        "rules selecting the Cluster",
        "add them to the annotation (a recorded path keeps its value)",
        "annotation ⊇ ClusterConfigs",
        "For a reconciled `Cluster`, it aligns the CIDR annotation with the existing `ClusterConfig` resources",
      ],
      {
        applies: (i) => reconcilable(i) && pending(i).e.ccToAnnotation,
        holds: aligned,
      },
    ),
    doc(
      5,
      [
        "the annotation holds injections no ClusterConfig carries",
        "rules selecting the Cluster",
        "create the missing ClusterConfig, or add the missing patches to the existing one",
        "ClusterConfigs ⊇ annotation",
        "For a reconciled `Cluster`, it aligns the CIDR annotation with the existing `ClusterConfig` resources (see documentation about state)",
      ],
      {
        applies: (i) => reconcilable(i) && pending(i).e.annotationToCc,
        holds: aligned,
      },
    ),
    doc(
      6,
      [
        "a selecting rule has not been applied to the Cluster",
        "its injections, parents and subnet sizes",
        "allocate the lowest free block of the first parent with room for each injection; record them in the annotation; create one ClusterConfig for the rule",
        "CIDRs injected",
        "... and creates `ClusterConfig` resources according to the specified rules.",
      ],
      {
        applies: (i) => reconcilable(i) && pending(i).e.newRules.length > 0,
        holds: aligned,
      },
    ),
    derived(
      7,
      [
        "a selecting rule cannot get a CIDR: every allowed parent is exhausted",
        "-",
        "nothing of that rule is allocated or written; Warning Event CIDRManagementError/CIDRGeneration; other rules go on; the Cluster waits for CIDRs: requeued with the controller's rate limiter, and at once when CIDRs are released (ipam.trigger#20)",
        "condition CIDRsAllocated=False (ParentsExhausted), waiting",
        "(derived)",
      ],
      {
        applies: (i) => reconcilable(i) && pending(i).e.exhausted.length > 0,
        holds: (i, r) =>
          aligned(i, r) &&
          r.status.conditions.some((c) => c.type === "CIDRsAllocated" && c.status === "False") &&
          r.status.waiting,
        reason:
          "Exhaustion gives a condition and an Event, never a crash. Upstream releases the rule's partial allocations and returns the CIDR-generation error, so controller-runtime retries the Cluster with its rate limiter until a CIDR is free; krtt requeues it with the same backoff (not as an error: the condition and the Event already say what is wrong), and reconciles it at once when a release frees CIDRs, so it does not sit out a long backoff after capacity came back.",
      },
    ),
    derived(
      8,
      [
        "annotation and ClusterConfigs agree; every selecting rule applied",
        "-",
        "nothing is written (the reconcile annotation is still removed)",
        "unchanged, CIDRsAllocated=True",
        "(derived)",
      ],
      {
        applies: (i) => reconcilable(i) && !pending(i).any,
        holds: (i, r) => aligned(i, r) && r.status.outcome === "Unchanged",
        reason:
          "A rule is applied at most once per Cluster (config.md 'Changing Injections'): a reconcile of an aligned Cluster changes nothing.",
      },
    ),
    derived(
      9,
      [
        "Cluster present",
        "no valid IPAMConfig known",
        "remove the reconcile annotation if present; nothing else",
        "unchanged",
        "(derived)",
      ],
      {
        applies: (i) => live(i) && i.desired.config === undefined,
        holds: (i, r) => quietExceptAnnotation(i, r) && r.status.outcome === "NoConfig",
        reason: "Upstream: 'No GardenerIPAMConfig known, skipping reconciliation'.",
      },
    ),
    derived(
      10,
      [
        "the applied-rules annotation is not `{rule: {path: cidr}}` JSON",
        "-",
        "Warning Event ReconcileError/ParsingAppliedRules; nothing written",
        "Invalid",
        "(derived)",
      ],
      {
        applies: (i) => inScope(i) && annotation(i) === undefined,
        holds: warnsOnly("ParsingAppliedRules"),
        reason:
          "Upstream stops with 'unable to recover applied rules'; writing anything would risk handing out CIDRs the annotation holds.",
      },
    ),
    derived(
      11,
      [
        "a ClusterConfig of this controller has a patch whose value is not a CIDR",
        "-",
        "Warning Event ReconcileError/EvaluatingExistingClusterConfigs; nothing written",
        "Invalid",
        "(derived)",
      ],
      {
        applies: (i) => inScope(i) && annotation(i) !== undefined && !ccsReadable(i),
        holds: warnsOnly("EvaluatingExistingClusterConfigs"),
        reason: "Upstream stops with 'errors occurred while evaluating existing ClusterConfigs'.",
      },
    ),
    derived(
      12,
      [
        "a selecting, unapplied rule injects into a path another rule already used",
        "-",
        "skip the rule; Warning Event CIDRManagementError/EvaluatingRulesToApply",
        "rule not applied",
        "(derived)",
      ],
      {
        applies: (i) => reconcilable(i) && pending(i).e.conflicts.length > 0,
        holds: aligned,
        reason:
          "Upstream records such rules in RulesWithIssues. Unlike upstream, paths of rules applied earlier in the same reconcile count as used too, so two new rules never write the same path.",
      },
    ),
    derived(
      13,
      [
        "a ClusterConfig of this controller, not being deleted, lacks the CIDR finalizer",
        "-",
        "add the finalizer",
        "finalizer present",
        "(derived)",
      ],
      {
        applies: (i) => reconcilable(i) && pending(i).e.finalizerMissing,
        holds: aligned,
        reason:
          "Upstream's CheckClusterConfigsForCluster adds the missing finalizer so the CIDRs are released before the ClusterConfig goes.",
      },
    ),
  ],
  priority: [1, 2, 9, 3, 10, 11, 7, 12, 4, 5, 13, 6, 8],
  resolutions: [
    "A ClusterConfig whose owner reference names an older uid of the Cluster (the Cluster was deleted and re-created under the same name before the garbage collector removed it) belongs to a Cluster that is gone: the shell presents it as row 1's case (Cluster NotFound for that uid), so its finalizer is removed and its CIDRs released, and the new Cluster gets ClusterConfigs of its own. The seed identifies Clusters by name only; without this, the old ClusterConfig would stay behind its finalizer for ever.",
    "Rows 4, 5, 6, 7, 12 and 13 describe parts of one reconcile and may apply together: the first of 7, 12, 4, 5, 13, 6 that applies names the reconcile, and every one of them holds the whole reconcile to the same promise (annotation and ClusterConfigs aligned both ways, every selecting rule applied once, exhausted or conflicting rules reported).",
    "The applied-rules annotation is written before ClusterConfigs are created (upstream's order): if a create fails, the next reconcile restores the ClusterConfig from the annotation (row 5).",
    "Parents of an injection with an empty `parents` list are tried in the order of their ids (upstream: 'undefined order'), so allocation is deterministic.",
    "A reconcile that writes something emits a Normal ReconcileSuccess Event; an unchanged one emits none (upstream emits one on every reconcile, and a Normal event per already applied rule).",
    "Deleting ClusterConfigs of an existing Cluster count as present (upstream): their CIDRs stay held until the Cluster is gone.",
  ],
}
