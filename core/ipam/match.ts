/**
 * Rule matching: openmcp's IdentityLabelPurposeSelector over a Cluster's identity, labels and
 * `spec.purposes` (openmcp-operator api/clusters/v1alpha1/selectors.go, described in upstream's
 * docs/config/config.md "Selectors").
 *
 * - `matchIdentities` set (even empty): only the identities count; an empty list matches nothing.
 * - Otherwise `matchPurposes`, `matchLabels` and `matchExpressions` are ANDed; a selector with
 *   none of them matches every Cluster.
 *
 * @module
 */
import type {
  ClusterSelector,
  InjectionRule,
  IpamConfigSpec,
  LabelRequirement,
  PurposeRequirement,
} from "./config.ts"

/** What matching reads of a Cluster. */
export interface MatchTarget {
  readonly name: string
  readonly namespace: string
  readonly labels: Readonly<Record<string, string>>
  readonly purposes: ReadonlyArray<string>
}

/** Which selector decided, for explaining a match. */
export type MatchReason =
  | "identity"
  | "identityEmpty"
  | "noSelector"
  | "purposes"
  | "labels"
  | "expressions"
  | "all"

/** Whether one purpose requirement holds. */
export const purposeHolds = (req: PurposeRequirement, purposes: ReadonlyArray<string>): boolean => {
  const have = new Set(purposes)
  const want = new Set(req.values)
  switch (req.operator) {
    case "ContainsAll":
      return want.size > 0 && [...want].every((v) => have.has(v))
    case "ContainsAny":
      return [...want].some((v) => have.has(v))
    case "ContainsNone":
      return ![...want].some((v) => have.has(v))
    case "Equals":
      return have.size === want.size && [...want].every((v) => have.has(v))
    // Stryker disable next-line ConditionalExpression,BooleanLiteral
    default:
      return false
  }
}

/** Whether one label requirement holds. */
export const expressionHolds = (req: LabelRequirement, labels: Readonly<Record<string, string>>): boolean => {
  const has = Object.hasOwn(labels, req.key)
  switch (req.operator) {
    case "In":
      return has && req.values.includes(labels[req.key] as string)
    case "NotIn":
      return !has || !req.values.includes(labels[req.key] as string)
    case "Exists":
      return has
    case "DoesNotExist":
      return !has
    // Stryker disable next-line ConditionalExpression,BooleanLiteral
    default:
      return false
  }
}

/** The match of a selector, with the first selector that failed (or `all`/`identity`). */
export const matchSelector = (
  s: ClusterSelector,
  c: MatchTarget,
): { readonly matches: boolean; readonly reason: MatchReason } => {
  if (s.matchIdentities !== undefined) {
    if (s.matchIdentities.length === 0) return { matches: false, reason: "identityEmpty" }
    return {
      matches: s.matchIdentities.some((id) => id.name === c.name && id.namespace === c.namespace),
      reason: "identity",
    }
  }
  const labelKeys = Object.keys(s.matchLabels)
  if (s.matchPurposes.length === 0 && labelKeys.length === 0 && s.matchExpressions.length === 0) {
    return { matches: true, reason: "noSelector" }
  }
  if (!s.matchPurposes.every((r) => purposeHolds(r, c.purposes)))
    return { matches: false, reason: "purposes" }
  if (!labelKeys.every((k) => Object.hasOwn(c.labels, k) && c.labels[k] === s.matchLabels[k])) {
    return { matches: false, reason: "labels" }
  }
  if (!s.matchExpressions.every((r) => expressionHolds(r, c.labels)))
    return { matches: false, reason: "expressions" }
  return { matches: true, reason: "all" }
}

/** Whether a rule's selector matches a Cluster. */
export const ruleMatches = (rule: InjectionRule, c: MatchTarget): boolean =>
  matchSelector(rule.selector, c).matches

/** The rules of a config that match a Cluster, in the config's order. */
export const matchingRules = (config: IpamConfigSpec, c: MatchTarget): ReadonlyArray<InjectionRule> =>
  config.injectionRules.filter((r) => ruleMatches(r, c))

/** Whether at least one rule matches. */
export const matchesAnyRule = (config: IpamConfigSpec, c: MatchTarget): boolean =>
  config.injectionRules.some((r) => ruleMatches(r, c))
