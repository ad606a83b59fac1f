/**
 * IPAM Cluster controller, the reconcile of one Cluster (seed 004, "For a reconciled Cluster,
 * it aligns the CIDR annotation with the existing ClusterConfig resources ... and creates
 * ClusterConfig resources according to the specified rules"), as a pure decision. Rows are
 * `ipam.reconcile#n`; spec/ipam/reconcile.ts transcribes them.
 *
 * Expected flow: a Cluster that is gone has the CIDRs of its ClusterConfigs released (finalizer
 * removed first, then the CIDRs, then the ClusterConfig deleted); an ignored Cluster, or one no
 * rule matches, is left alone; otherwise injections found in ClusterConfigs join the applied-rules
 * annotation, injections of the annotation missing from the ClusterConfigs are written back, and
 * every matching rule not applied yet gets its CIDRs (lowest free block of the first parent with
 * room) and one ClusterConfig.
 *
 * Guarantees: allocations are recorded in the returned allocator state before any action runs
 * (the shell commits the state under its lock, then performs the actions: no CIDR is handed out
 * twice); CIDRs are only released by a `ReleaseCidrs` action, which the shell applies after the
 * finalizer removal before it succeeded; a rule is applied at most once per Cluster (by id); a
 * full parent yields a `CIDRsAllocated=False` condition and a Warning Event, never a throw, and
 * `status.waiting`, on which the shell retries the Cluster; the reconcile annotation of the
 * Cluster and of its ClusterConfigs is used up by the reconcile it triggers.
 *
 * @module
 */
import { byName, type RowId, rowId, type TransitionInput, type TransitionResult } from "../krtt/index.ts"
import { acquire, emptyIpam, IpamBuilder, type IpamState, reconfigure, withParents } from "./allocator.ts"
import { type Cidr, formatCidr, isCidrError, parseCidr } from "./cidr.ts"
import { type InjectionRule, type IpamConfigSpec, parentCidrsOf } from "./config.ts"
import {
  APPLIED_RULES_ANNOTATION,
  CIDR_FINALIZER,
  CIDRS_ALLOCATED_CONDITION,
  CLUSTER_KIND,
  CLUSTERS_API_VERSION,
  EventAction,
  EventReason,
  INJECTION_RULE_LABEL,
  IpamDefaults,
  type IpamDefaultsShape,
} from "./constants.ts"
import { matchingRules } from "./match.ts"
import {
  type AppliedRules,
  type ClusterConfigObject,
  type ClusterConfigView,
  type ClusterView,
  type ControllerIdentity,
  clusterConfigFor,
  formatAppliedRules,
  isIgnored,
  isManagedFor,
  type JsonPatch,
  parseAppliedRules,
  sameAppliedRules,
  wantsReconcile,
} from "./objects.ts"

export const RECONCILE = "ipam.reconcile"

/** `{namespace, name}` of an object. */
export interface ObjectKey {
  readonly namespace: string
  readonly name: string
}

/** What the shell does for the reconcile, in order. Each is idempotent. */
export type ReconcileAction =
  /** Remove `openmcp.cloud/operation: reconcile` from the Cluster (the annotation is used up). */
  | { readonly _tag: "RemoveOperationAnnotation"; readonly cluster: ObjectKey }
  /** Remove `openmcp.cloud/operation: reconcile` from a ClusterConfig of the Cluster (used up too). */
  | { readonly _tag: "RemoveClusterConfigOperationAnnotation"; readonly clusterConfig: ObjectKey }
  /** Set the applied-rules annotation on the Cluster to `value` (merge patch). */
  | { readonly _tag: "SetAppliedRules"; readonly cluster: ObjectKey; readonly value: string }
  | { readonly _tag: "CreateClusterConfig"; readonly object: ClusterConfigObject }
  /** Append `add` patches to an existing ClusterConfig (injections of the annotation it lacks). */
  | {
      readonly _tag: "AddPatches"
      readonly clusterConfig: ObjectKey
      readonly patches: ReadonlyArray<JsonPatch>
    }
  | { readonly _tag: "AddFinalizer"; readonly clusterConfig: ObjectKey; readonly finalizer: string }
  | { readonly _tag: "RemoveFinalizer"; readonly clusterConfig: ObjectKey; readonly finalizer: string }
  /**
   * Release the CIDRs in the allocator; the shell applies it (`releaseAll`) only when the
   * `RemoveFinalizer` of the same ClusterConfig before it succeeded.
   */
  | {
      readonly _tag: "ReleaseCidrs"
      readonly clusterConfig: ObjectKey
      readonly cidrs: ReadonlyArray<string>
    }
  | { readonly _tag: "DeleteClusterConfig"; readonly clusterConfig: ObjectKey }
  | {
      readonly _tag: "Event"
      readonly object: { readonly apiVersion: string; readonly kind: string } & ObjectKey
      readonly type: "Normal" | "Warning"
      readonly reason: string
      readonly action: string
      readonly message: string
    }

/** A Kubernetes condition the controller reports. */
export interface IpamCondition {
  readonly type: string
  readonly status: "True" | "False"
  readonly reason: string
  readonly message: string
}

/** What happened to one matching rule. */
export interface RuleOutcome {
  readonly id: string
  readonly outcome: "Applied" | "AlreadyApplied" | "PathConflict" | "Exhausted"
  readonly message: string
}

export interface ReconcileStatus {
  readonly outcome:
    | "Released"
    | "Ignored"
    | "NoConfig"
    | "NoMatchingRule"
    | "Invalid"
    | "Reconciled"
    | "Unchanged"
  /** The applied-rules annotation after the reconcile (empty when the Cluster is gone). */
  readonly applied: AppliedRules
  /** CIDRs acquired by this decision, in order. */
  readonly acquired: ReadonlyArray<string>
  /** CIDRs the `ReleaseCidrs` actions release. */
  readonly released: ReadonlyArray<string>
  readonly rules: ReadonlyArray<RuleOutcome>
  readonly conditions: ReadonlyArray<IpamCondition>
  /**
   * The Cluster waits for CIDRs: a rule found every allowed parent exhausted. The shell requeues
   * it with the controller's rate limiter, and at once when CIDRs are released (ipam.trigger#20).
   */
  readonly waiting: boolean
}

export interface ReconcileObserved {
  /** The Cluster, or `undefined` when the API server says NotFound. */
  readonly cluster: ClusterView | undefined
  /**
   * The ClusterConfigs of the request's namespace labelled for the Cluster (others are ignored:
   * only this controller's, by its three identity labels and the cluster label, count).
   */
  readonly clusterConfigs: ReadonlyArray<ClusterConfigView>
}

export interface ReconcileDesired {
  /** The last valid IPAMConfig; `undefined` when none is known. */
  readonly config: IpamConfigSpec | undefined
  readonly identity: ControllerIdentity
}

/** The reconcile request. */
export interface ReconcileTrigger {
  readonly _tag: "Reconcile"
  readonly namespace: string
  readonly name: string
}

/** The decision's input with the allocator state. */
export interface ReconcileArgs {
  readonly observed: ReconcileObserved
  readonly desired: ReconcileDesired
  readonly trigger: ReconcileTrigger
  readonly ipam: IpamState
}

/** The decision and the allocator state after its acquisitions (commit it before acting). */
export type ReconcileResult = TransitionResult<ReconcileAction, ReconcileStatus> & {
  readonly ipam: IpamState
}

const r = (n: number): RowId => rowId(RECONCILE, n)
export const ReconcileRow = {
  released: r(1),
  ignored: r(2),
  noMatchingRule: r(3),
  clusterConfigsToAnnotation: r(4),
  annotationToClusterConfigs: r(5),
  ruleApplied: r(6),
  exhausted: r(7),
  unchanged: r(8),
  noConfig: r(9),
  annotationInvalid: r(10),
  clusterConfigInvalid: r(11),
  pathConflict: r(12),
  finalizerMissing: r(13),
} as const

const clusterRef = (c: ObjectKey) => ({
  apiVersion: CLUSTERS_API_VERSION,
  kind: CLUSTER_KIND,
  namespace: c.namespace,
  name: c.name,
})
const keyOf = (o: ObjectKey): ObjectKey => ({ namespace: o.namespace, name: o.name })

const emptyStatus = (outcome: ReconcileStatus["outcome"]): ReconcileStatus => ({
  outcome,
  applied: {},
  acquired: [],
  released: [],
  rules: [],
  conditions: [],
  waiting: false,
})

/** The CIDR texts a ClusterConfig's `add` patches carry. */
export const cidrsOfClusterConfig = (cc: ClusterConfigView): ReadonlyArray<string> =>
  cc.patches.flatMap((p) => (typeof p.value === "string" ? [p.value] : []))

/** Registers the config's parents that the state lacks (a no-op when all are there). */
export const ensureParents = (ipam: IpamState, config: IpamConfigSpec): IpamState => {
  const parents = parentCidrsOf(config)
  return parents.every((p) => ipam.parents.has(formatCidr(p))) ? ipam : withParents(ipam, parents)
}

/** Tries to allocate every injection of a rule; all or nothing. */
export const allocateRule = (
  ipam: IpamState,
  config: IpamConfigSpec,
  rule: InjectionRule,
):
  | {
      readonly ok: true
      readonly ipam: IpamState
      readonly injections: Readonly<Record<string, string>>
      readonly acquired: ReadonlyArray<string>
    }
  | { readonly ok: false; readonly message: string } => {
  let state = ipam
  const local = new Map<string, string>()
  const injections: Record<string, string> = {}
  const acquired: Array<string> = []
  for (const [i, inj] of rule.injections.entries()) {
    const ids = inj.parents.length === 0 ? Object.keys(config.parentCIDRs).sort() : inj.parents
    let got: string | undefined
    outer: for (const pid of ids) {
      // Stryker disable next-line ArrayDeclaration
      const candidates = local.has(pid) ? [local.get(pid) as string] : (config.parentCIDRs[pid] ?? [])
      for (const parent of candidates) {
        const res = acquire(state, parent, inj.subnetSize)
        if (res._tag === "Acquired") {
          state = res.state
          got = res.cidr
          break outer
        }
      }
    }
    if (got === undefined) {
      return {
        ok: false,
        message: `unable to generate a /${inj.subnetSize} CIDR for injection ${i} (${inj.paths.join(", ")}) of rule '${rule.id}': parents ${ids.join(", ")} are exhausted`,
      }
    }
    acquired.push(got)
    if (inj.id !== undefined) local.set(inj.id, got)
    for (const p of inj.paths) injections[p] = got
  }
  return { ok: true, ipam: state, injections, acquired }
}

/** The reconcile of one Cluster. */
export const reconcileCluster = (
  args: ReconcileArgs,
  defaults: IpamDefaultsShape = IpamDefaults,
): ReconcileResult => {
  const { observed, desired, trigger } = args
  const who = desired.identity
  const request = { namespace: trigger.namespace, name: trigger.name }
  const ccs = observed.clusterConfigs.filter((cc) => isManagedFor(cc, who, request)).sort(byName)
  const cluster = observed.cluster

  // Row 1: the Cluster is gone: release what its ClusterConfigs hold, then let them go.
  if (cluster === undefined) {
    const actions: Array<ReconcileAction> = []
    const released: Array<string> = []
    for (const cc of ccs) {
      const key = keyOf(cc)
      if (cc.finalizers.includes(CIDR_FINALIZER)) {
        const cidrs = cidrsOfClusterConfig(cc)
        actions.push({ _tag: "RemoveFinalizer", clusterConfig: key, finalizer: CIDR_FINALIZER })
        actions.push({ _tag: "ReleaseCidrs", clusterConfig: key, cidrs })
        released.push(...cidrs)
      }
      if (cc.deletionTimestamp === undefined)
        actions.push({ _tag: "DeleteClusterConfig", clusterConfig: key })
    }
    return {
      actions,
      status: { ...emptyStatus("Released"), released },
      row: ReconcileRow.released,
      ipam: args.ipam,
    }
  }

  if (isIgnored(cluster))
    return { actions: [], status: emptyStatus("Ignored"), row: ReconcileRow.ignored, ipam: args.ipam }

  const actions: Array<ReconcileAction> = []
  if (wantsReconcile(cluster)) actions.push({ _tag: "RemoveOperationAnnotation", cluster: request })
  for (const cc of ccs)
    if (wantsReconcile(cc))
      actions.push({ _tag: "RemoveClusterConfigOperationAnnotation", clusterConfig: keyOf(cc) })
  const config = desired.config
  if (config === undefined)
    return { actions, status: emptyStatus("NoConfig"), row: ReconcileRow.noConfig, ipam: args.ipam }
  const rules = matchingRules(config, cluster)
  if (rules.length === 0) {
    return {
      actions,
      status: emptyStatus("NoMatchingRule"),
      row: ReconcileRow.noMatchingRule,
      ipam: args.ipam,
    }
  }
  const event = (
    type: "Normal" | "Warning",
    reason: string,
    action: string,
    message: string,
  ): ReconcileAction => ({
    _tag: "Event",
    object: clusterRef(request),
    type,
    reason,
    action,
    message,
  })

  const parsed = parseAppliedRules(cluster.annotations[APPLIED_RULES_ANNOTATION])
  if (!parsed.ok) {
    actions.push(
      event(
        "Warning",
        EventReason.reconcileError,
        EventAction.parsingAppliedRules,
        `unable to recover applied rules from annotation ${APPLIED_RULES_ANNOTATION}: ${parsed.message}`,
      ),
    )
    return { actions, status: emptyStatus("Invalid"), row: ReconcileRow.annotationInvalid, ipam: args.ipam }
  }
  const before = parsed.rules

  // ClusterConfigs by rule id (label); a patch value that is not a CIDR string stops the reconcile.
  const byRule = new Map<string, ClusterConfigView>()
  for (const cc of ccs) {
    const rule = cc.labels[INJECTION_RULE_LABEL] ?? ""
    const bad = cc.patches.find((p) => typeof p.value !== "string" || isCidrError(parseCidr(p.value)))
    if (bad !== undefined) {
      actions.push(
        event(
          "Warning",
          EventReason.reconcileError,
          EventAction.evaluatingExistingClusterConfigs,
          `ClusterConfig ${cc.namespace}/${cc.name} has a patch at '${bad.path}' whose value is not a CIDR: ${JSON.stringify(bad.value)}`,
        ),
      )
      return {
        actions,
        status: emptyStatus("Invalid"),
        row: ReconcileRow.clusterConfigInvalid,
        ipam: args.ipam,
      }
    }
    if (!byRule.has(rule)) byRule.set(rule, cc)
  }

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

  // Rows 6, 7, 12: the matching rules in the config's order.
  let ipam = ensureParents(args.ipam, config)
  const injected = new Set(Object.values(applied).flatMap((m) => Object.keys(m)))
  const outcomes: Array<RuleOutcome> = []
  const acquired: Array<string> = []
  const warnings: Array<ReconcileAction> = []
  for (const rule of rules) {
    if (applied[rule.id] !== undefined) {
      outcomes.push({
        id: rule.id,
        outcome: "AlreadyApplied",
        message: `rule '${rule.id}' has been applied before`,
      })
      continue
    }
    const paths = rule.injections.flatMap((i) => i.paths)
    const clash = paths.find((p) => injected.has(p))
    if (clash !== undefined) {
      const message = `rule '${rule.id}' tries to inject into path '${clash}' which has already been used by another injection rule`
      outcomes.push({ id: rule.id, outcome: "PathConflict", message })
      warnings.push(
        event(
          "Warning",
          EventReason.cidrManagementError,
          EventAction.evaluatingRulesToApply,
          `skipped injection rule '${rule.id}' due to issue: ${message}`,
        ),
      )
      continue
    }
    const got = allocateRule(ipam, config, rule)
    if (!got.ok) {
      outcomes.push({ id: rule.id, outcome: "Exhausted", message: got.message })
      warnings.push(
        event("Warning", EventReason.cidrManagementError, EventAction.cidrGeneration, got.message),
      )
      continue
    }
    ipam = got.ipam
    acquired.push(...got.acquired)
    applied[rule.id] = { ...got.injections }
    for (const p of paths) injected.add(p)
    outcomes.push({
      id: rule.id,
      outcome: "Applied",
      message: `rule '${rule.id}' injected ${got.acquired.join(", ")}`,
    })
    writes.push({
      _tag: "CreateClusterConfig",
      object: clusterConfigFor(who, cluster, rule.id, got.injections, defaults),
    })
  }

  const annotationChanged = !sameAppliedRules(before, applied)
  if (annotationChanged)
    actions.push({ _tag: "SetAppliedRules", cluster: request, value: formatAppliedRules(applied) })
  actions.push(...writes, ...warnings)
  const exhausted = outcomes.filter((o) => o.outcome === "Exhausted")
  const conditions: ReadonlyArray<IpamCondition> =
    exhausted.length > 0
      ? [
          {
            type: CIDRS_ALLOCATED_CONDITION,
            status: "False",
            reason: "ParentsExhausted",
            message: exhausted.map((o) => o.message).join("; "),
          },
        ]
      : [
          {
            type: CIDRS_ALLOCATED_CONDITION,
            status: "True",
            reason: "Allocated",
            message: "every matching rule has its CIDRs",
          },
        ]
  const wrote = annotationChanged || writes.length > 0
  if (wrote)
    actions.push(event("Normal", EventReason.reconcileSuccess, EventAction.reconcile, "Reconcile successful"))
  const status: ReconcileStatus = {
    outcome: wrote ? "Reconciled" : "Unchanged",
    applied,
    acquired,
    released: [],
    rules: outcomes,
    conditions,
    waiting: exhausted.length > 0,
  }
  const row =
    exhausted.length > 0
      ? ReconcileRow.exhausted
      : outcomes.some((o) => o.outcome === "PathConflict")
        ? ReconcileRow.pathConflict
        : fromClusterConfigs
          ? ReconcileRow.clusterConfigsToAnnotation
          : toClusterConfigs
            ? ReconcileRow.annotationToClusterConfigs
            : finalizerMissing
              ? ReconcileRow.finalizerMissing
              : acquired.length > 0
                ? ReconcileRow.ruleApplied
                : ReconcileRow.unchanged
  return { actions, status, row, ipam }
}

/** An allocation as JSON: the CIDR and the prefix it was sliced from. */
export interface AllocationEntry {
  readonly cidr: string
  readonly parent?: string | undefined
}

/** The allocator state from a JSON list of allocations, under the config's parents. */
export const ipamFromEntries = (
  config: IpamConfigSpec | undefined,
  entries: ReadonlyArray<AllocationEntry>,
): IpamState => {
  const s = new IpamBuilder(config === undefined ? emptyIpam : reconfigure(emptyIpam, parentCidrsOf(config)))
  const sorted = [...entries]
    .map((e) => ({ e, c: parseCidr(e.cidr) }))
    .filter((x): x is { e: AllocationEntry; c: Cidr } => !isCidrError(x.c))
    .sort((a, b) => a.c.prefix - b.c.prefix)
  for (const { e, c } of sorted) s.acquireSpecific(e.parent, c)
  return s.done()
}

/** The table's input: the allocator state as a JSON list of allocations (`krtt explain`). */
export type ReconcileInput = TransitionInput<
  ReconcileObserved & { readonly allocations: ReadonlyArray<AllocationEntry> },
  ReconcileDesired,
  ReconcileTrigger
>

/** The reconcile as a table transition (`ipam.reconcile`). */
export const reconcileTransition = (
  input: ReconcileInput,
  defaults: IpamDefaultsShape = IpamDefaults,
): ReconcileResult =>
  reconcileCluster(
    {
      observed: input.observed,
      desired: input.desired,
      trigger: input.trigger,
      ipam: ipamFromEntries(input.desired.config, input.observed.allocations),
    },
    defaults,
  )
