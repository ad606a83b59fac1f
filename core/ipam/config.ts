/**
 * `validateIpamConfig`, which turns what the API server holds of an IPAMConfig
 * (`gardener.clusters.openmcp.cloud/v1alpha1`, cluster-scoped) into the parsed config of
 * core/ipam/configModel.ts or into an `IpamConfigInvalidError` naming each wrong field.
 *
 * Upstream format (docs/config/config.md): `spec.parentCIDRs` maps ids to lists of CIDRs;
 * `spec.injectionRules[]` has an `id`, the selectors `matchIdentities`, `matchPurposes`,
 * `matchLabels`, `matchExpressions`, and `injections[]` with an optional `id`, `path` and/or
 * `paths`, `parents` (global parent ids or ids of earlier injections of the same rule) and
 * `subnetSize`; `spec.internalStateRefreshCycleDuration` is a Go duration.
 *
 * Expected flow: the envelope, then the parent CIDRs, the refresh cycle and the rules
 * (core/ipam/rules.ts, core/ipam/selector.ts), every check adding to one list of issues.
 *
 * @module
 */
import { parseGoDuration } from "../krtt/duration.ts"
import { type Cidr, formatCidr, isCidrError, overlaps, parseCidr } from "./cidr.ts"
import { type Check, isObj, makeCheck, type Obj, typeName } from "./configCheck.ts"
import {
  type ConfigIssue,
  type InjectionRule,
  IpamConfigInvalidError,
  type ValidationResult,
} from "./configModel.ts"
import { type ParsedParent, parseRule } from "./rules.ts"

export * from "./configModel.ts"

/** `spec.parentCIDRs`: the canonical texts by id, and every parent parsed, where it was written. */
const parseParents = (
  spec: Obj,
  check: Check,
): { readonly parentCIDRs: Record<string, ReadonlyArray<string>>; readonly parsed: Array<ParsedParent> } => {
  const { err, strings } = check
  const parentCIDRs: Record<string, ReadonlyArray<string>> = {}
  const parsedParents: Array<{ id: string; path: string; cidr: Cidr }> = []
  if (spec.parentCIDRs === undefined) err("spec.parentCIDRs", "is required")
  else if (!isObj(spec.parentCIDRs))
    err("spec.parentCIDRs", `must be a map of ids to CIDR lists, got ${typeName(spec.parentCIDRs)}`)
  else {
    for (const [id, list] of Object.entries(spec.parentCIDRs)) {
      const texts = strings(list, `spec.parentCIDRs.${id}`)
      const canon: Array<string> = []
      texts.forEach((t, i) => {
        const c = parseCidr(t)
        if (isCidrError(c)) err(`spec.parentCIDRs.${id}[${i}]`, c.message)
        else {
          canon.push(formatCidr(c))
          parsedParents.push({ id, path: `spec.parentCIDRs.${id}[${i}]`, cidr: c })
        }
      })
      parentCIDRs[id] = canon
    }
    for (let i = 0; i < parsedParents.length; i++) {
      for (let j = 0; j < i; j++) {
        const a = parsedParents[j] as (typeof parsedParents)[number]
        const b = parsedParents[i] as (typeof parsedParents)[number]
        if (overlaps(a.cidr, b.cidr)) {
          err(
            b.path,
            `${formatCidr(b.cidr)} overlaps ${formatCidr(a.cidr)} of ${a.path}; parent CIDRs must be disjoint`,
          )
        }
      }
    }
  }
  return { parentCIDRs, parsed: parsedParents }
}

/** `spec.internalStateRefreshCycleDuration` in milliseconds; 0 when absent. */
const parseRefresh = (spec: Obj, check: Check): number => {
  let refresh = 0
  const d = spec.internalStateRefreshCycleDuration
  if (d !== undefined && d !== null) {
    const ms = typeof d === "string" ? parseGoDuration(d) : undefined
    if (ms === undefined)
      check.err(
        "spec.internalStateRefreshCycleDuration",
        `${JSON.stringify(d)} is not a duration such as "24h" or "1h30m"`,
      )
    else refresh = ms
  }
  return refresh
}

/**
 * Validates an IPAMConfig: the whole object (its `spec` is read; `apiVersion`, `kind`,
 * `metadata` and `status` are accepted and ignored) or the `spec` alone. Paths in the errors
 * always start at `spec`.
 *
 * Refused: unknown keys (naming the closest known one), wrong types, malformed CIDRs, parent
 * CIDRs that overlap (also the same CIDR under two ids), duplicate rule ids, duplicate injection
 * ids or paths within a rule, unknown parents, subnet sizes that fit in none of their parents,
 * malformed paths, selectors with unknown operators or misplaced values, bad durations.
 */
export const validateIpamConfig = (raw: unknown): ValidationResult => {
  const errors: Array<ConfigIssue> = []
  const check = makeCheck(errors)
  let spec: unknown = raw
  if (isObj(raw) && "spec" in raw) {
    check.strict(raw, "", ["apiVersion", "kind", "metadata", "spec", "status"])
    errors.splice(0, errors.length, ...errors.map((e) => ({ ...e, path: e.path.slice(1) })))
    spec = raw.spec
  }
  if (!isObj(spec))
    return new IpamConfigInvalidError({
      errors: [...errors, { path: "spec", message: `must be an object, got ${typeName(spec)}` }],
    })
  check.strict(spec, "spec", ["parentCIDRs", "injectionRules", "internalStateRefreshCycleDuration"])
  const parents = parseParents(spec, check)
  const refresh = parseRefresh(spec, check)

  const injectionRules: Array<InjectionRule> = []
  const rulesRaw = spec.injectionRules ?? []
  if (!Array.isArray(rulesRaw)) check.err("spec.injectionRules", `must be a list, got ${typeName(rulesRaw)}`)
  else {
    const seenRules = new Map<string, number>()
    rulesRaw.forEach((r, ri) => {
      parseRule(r, ri, seenRules, spec, parents.parsed, check, injectionRules)
    })
  }

  if (errors.length > 0) return new IpamConfigInvalidError({ errors })
  return {
    _tag: "ValidConfig",
    config: { parentCIDRs: parents.parentCIDRs, injectionRules, internalStateRefreshCycleDuration: refresh },
  }
}
