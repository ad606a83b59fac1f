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
import { byName, type TableBound, type TransitionInput, type TransitionResult } from "../krtt/index.ts"
import {
  clusterEvent,
  emptyStatus,
  type IpamCondition,
  keyOf,
  RECONCILE,
  type ReconcileAction,
  type ReconcileArgs,
  type ReconcileDesired,
  type ReconcileObserved,
  type ReconcileResult,
  ReconcileRow,
  type ReconcileStatus,
  type ReconcileTrigger,
  type RuleOutcome,
  type WriteRefused,
} from "./actions.ts"
import { align, ClusterConfigPatchError, clusterConfigsByRule } from "./align.ts"
import { emptyIpam, IpamBuilder, type IpamState, reconfigure } from "./allocator.ts"
import { type Application, applyRules } from "./apply.ts"
import { type Cidr, isCidrError, parseCidr } from "./cidr.ts"
import { type IpamConfigSpec, parentCidrsOf } from "./config.ts"
import {
  APPLIED_RULES_ANNOTATION,
  CIDRS_ALLOCATED_CONDITION,
  EventAction,
  EventReason,
  IpamDefaults,
  type IpamDefaultsShape,
} from "./constants.ts"
import { matchingRules } from "./match.ts"
import {
  AppliedRulesError,
  formatAppliedRules,
  isIgnored,
  isManagedFor,
  parseAppliedRules,
  sameAppliedRules,
  wantsReconcile,
} from "./objects.ts"
import { releaseGone } from "./release.ts"

/** The CIDRsAllocated condition after the rules: False with every exhaustion, else True. */
const allocatedCondition = (exhausted: ReadonlyArray<RuleOutcome>): IpamCondition =>
  exhausted.length > 0
    ? {
        type: CIDRS_ALLOCATED_CONDITION,
        status: "False",
        reason: "ParentsExhausted",
        message: exhausted.map((o) => o.message).join("; "),
      }
    : {
        type: CIDRS_ALLOCATED_CONDITION,
        status: "True",
        reason: "Allocated",
        message: "every matching rule has its CIDRs",
      }

/** The row of a reconcile that got to the rules: the first of 7, 12, 4, 5, 13, 6 that holds, else 8. */
const rulesRow = (
  alignment: {
    readonly fromClusterConfigs: boolean
    readonly toClusterConfigs: boolean
    readonly finalizerMissing: boolean
  },
  app: Application,
  exhausted: boolean,
) =>
  exhausted
    ? ReconcileRow.exhausted
    : app.outcomes.some((o) => o.outcome === "PathConflict")
      ? ReconcileRow.pathConflict
      : alignment.fromClusterConfigs
        ? ReconcileRow.clusterConfigsToAnnotation
        : alignment.toClusterConfigs
          ? ReconcileRow.annotationToClusterConfigs
          : alignment.finalizerMissing
            ? ReconcileRow.finalizerMissing
            : app.acquired.length > 0
              ? ReconcileRow.ruleApplied
              : ReconcileRow.unchanged

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
  if (cluster === undefined) return releaseGone(ccs, args.ipam)
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
  if (rules.length === 0)
    return {
      actions,
      status: emptyStatus("NoMatchingRule"),
      row: ReconcileRow.noMatchingRule,
      ipam: args.ipam,
    }

  const before = parseAppliedRules(cluster.annotations[APPLIED_RULES_ANNOTATION])
  if (before instanceof AppliedRulesError) {
    const message = `unable to recover applied rules from annotation ${APPLIED_RULES_ANNOTATION}: ${before.message}`
    actions.push(
      clusterEvent(request, "Warning", EventReason.reconcileError, EventAction.parsingAppliedRules, message),
    )
    return { actions, status: emptyStatus("Invalid"), row: ReconcileRow.annotationInvalid, ipam: args.ipam }
  }
  const byRule = clusterConfigsByRule(ccs)
  if (byRule instanceof ClusterConfigPatchError) {
    actions.push(
      clusterEvent(
        request,
        "Warning",
        EventReason.reconcileError,
        EventAction.evaluatingExistingClusterConfigs,
        byRule.message,
      ),
    )
    return {
      actions,
      status: emptyStatus("Invalid"),
      row: ReconcileRow.clusterConfigInvalid,
      ipam: args.ipam,
    }
  }
  const alignment = align(before, byRule, who, cluster, defaults)
  const app = applyRules(args.ipam, config, rules, alignment.applied, who, cluster, request, defaults)

  const annotationChanged = !sameAppliedRules(before, app.applied)
  if (annotationChanged)
    actions.push({ _tag: "SetAppliedRules", cluster: request, value: formatAppliedRules(app.applied) })
  const writes = [...alignment.writes, ...app.writes]
  actions.push(...writes, ...app.warnings)
  const exhausted = app.outcomes.filter((o) => o.outcome === "Exhausted")
  const wrote = annotationChanged || writes.length > 0
  if (wrote)
    actions.push(
      clusterEvent(
        request,
        "Normal",
        EventReason.reconcileSuccess,
        EventAction.reconcile,
        "Reconcile successful",
      ),
    )
  const status: ReconcileStatus = {
    outcome: wrote ? "Reconciled" : "Unchanged",
    applied: app.applied,
    acquired: app.acquired,
    released: [],
    rules: app.outcomes,
    conditions: [allocatedCondition(exhausted)],
    waiting: exhausted.length > 0,
  }
  return { actions, status, row: rulesRow(alignment, app, exhausted.length > 0), ipam: app.ipam }
}

/**
 * The table's answer to a refused write (`WriteRefused`): nothing more is written and the row
 * that decided the refused answer stands; the shell fails the reconcile with it, which is retried
 * with fresh reads (every action is idempotent).
 */
export const reconcileRefused = (
  trigger: WriteRefused,
): TransitionResult<ReconcileAction, ReconcileStatus> => ({
  actions: [],
  status: trigger.answer.status,
  row: trigger.answer.row,
})

/** One run of the reconcile table: a decision, and the answer to a refusal of its writes. */
export const ReconcileRunBound: TableBound = { table: RECONCILE, maxTransitions: 2 }

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
