/**
 * Seed 004, "creates ClusterConfig resources according to the specified rules": the matching
 * rules a Cluster has not had applied yet get their CIDRs and one ClusterConfig each
 * (`ipam.reconcile#6`), unless a path is taken by another rule (`#12`) or every allowed parent is
 * exhausted (`#7`).
 *
 * Expected flow: `applyRules` walks the matching rules in the config's order; a rule already in
 * the annotation is left; one that injects into a path another rule used is skipped with a
 * Warning Event; otherwise `allocateRule` takes the lowest free block of the first parent with
 * room for each injection, all or nothing.
 *
 * Guarantees: allocations are recorded in the returned allocator state (the shell commits it
 * before any action runs: no CIDR is handed out twice); a full parent is a `RuleExhaustedError`
 * and a Warning Event, never a throw; a rule's injections share a local parent id's CIDR.
 *
 * @module
 */
import * as Data from "effect/Data"
import { clusterEvent, type ObjectKey, type ReconcileAction, type RuleOutcome } from "./actions.ts"
import { acquire, type IpamState, withParents } from "./allocator.ts"
import { formatCidr } from "./cidr.ts"
import { type InjectionRule, type IpamConfigSpec, parentCidrsOf } from "./config.ts"
import { EventAction, EventReason, type IpamDefaultsShape } from "./constants.ts"
import { type ClusterView, type ControllerIdentity, clusterConfigFor } from "./objects.ts"

/** Registers the config's parents that the state lacks (a no-op when all are there). */
export const ensureParents = (ipam: IpamState, config: IpamConfigSpec): IpamState => {
  const parents = parentCidrsOf(config)
  return parents.every((p) => ipam.parents.has(formatCidr(p))) ? ipam : withParents(ipam, parents)
}

/** Every allowed parent of an injection of a rule is exhausted (row 7). */
export class RuleExhaustedError extends Data.TaggedError("RuleExhaustedError")<{
  readonly rule: string
  /** The injection's position in the rule. */
  readonly injection: number
  readonly paths: ReadonlyArray<string>
  readonly subnetSize: number
  /** The parent ids tried, in order. */
  readonly parents: ReadonlyArray<string>
}> {
  override get message(): string {
    return `unable to generate a /${this.subnetSize} CIDR for injection ${this.injection} (${this.paths.join(", ")}) of rule '${this.rule}': parents ${this.parents.join(", ")} are exhausted`
  }
}

/** A rule's injections allocated: the state after, each path's CIDR, the CIDRs in order. */
export interface RuleAllocation {
  readonly ipam: IpamState
  readonly injections: Readonly<Record<string, string>>
  readonly acquired: ReadonlyArray<string>
}

/** Tries to allocate every injection of a rule; all or nothing. */
export const allocateRule = (
  ipam: IpamState,
  config: IpamConfigSpec,
  rule: InjectionRule,
): RuleAllocation | RuleExhaustedError => {
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
    if (got === undefined)
      return new RuleExhaustedError({
        rule: rule.id,
        injection: i,
        paths: inj.paths,
        subnetSize: inj.subnetSize,
        parents: ids,
      })
    acquired.push(got)
    // Stryker disable next-line ConditionalExpression
    if (inj.id !== undefined) local.set(inj.id, got)
    for (const p of inj.paths) injections[p] = got
  }
  return { ipam: state, injections, acquired }
}

/** What applying the matching rules did. */
export interface Application {
  readonly ipam: IpamState
  /** The applied rules with the rules applied now. */
  readonly applied: Readonly<Record<string, Readonly<Record<string, string>>>>
  readonly outcomes: ReadonlyArray<RuleOutcome>
  readonly acquired: ReadonlyArray<string>
  /** One `CreateClusterConfig` per rule applied now, in the config's order. */
  readonly writes: ReadonlyArray<ReconcileAction>
  /** A Warning Event per rule skipped (path conflict) or exhausted. */
  readonly warnings: ReadonlyArray<ReconcileAction>
}

/** Rows 6, 7, 12: the matching `rules` in the config's order, after `applied` (not changed). */
export const applyRules = (
  ipam: IpamState,
  config: IpamConfigSpec,
  rules: ReadonlyArray<InjectionRule>,
  before: Readonly<Record<string, Readonly<Record<string, string>>>>,
  who: ControllerIdentity,
  cluster: ClusterView,
  request: ObjectKey,
  defaults: IpamDefaultsShape,
): Application => {
  let state = ensureParents(ipam, config)
  const applied: Record<string, Readonly<Record<string, string>>> = { ...before }
  const injected = new Set(Object.values(applied).flatMap((m) => Object.keys(m)))
  const outcomes: Array<RuleOutcome> = []
  const acquired: Array<string> = []
  const writes: Array<ReconcileAction> = []
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
        clusterEvent(
          request,
          "Warning",
          EventReason.cidrManagementError,
          EventAction.evaluatingRulesToApply,
          `skipped injection rule '${rule.id}' due to issue: ${message}`,
        ),
      )
      continue
    }
    const got = allocateRule(state, config, rule)
    if (got instanceof RuleExhaustedError) {
      outcomes.push({ id: rule.id, outcome: "Exhausted", message: got.message })
      warnings.push(
        clusterEvent(
          request,
          "Warning",
          EventReason.cidrManagementError,
          EventAction.cidrGeneration,
          got.message,
        ),
      )
      continue
    }
    state = got.ipam
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
  return { ipam: state, applied, outcomes, acquired, writes, warnings }
}
