/**
 * The IPAMConfig (`gardener.clusters.openmcp.cloud/v1alpha1`, cluster-scoped) as parsed data:
 * parent CIDRs by id, injection rules with their selectors and injections, the refresh cycle;
 * and what is asked of a parsed config (its parents, the parents an injection may slice from).
 * `validateIpamConfig` (core/ipam/config.ts) makes this data from what the API server holds.
 *
 * @module
 */
import * as Data from "effect/Data"
import { editDistance } from "../krtt/suggest.ts"
import { type Cidr, contains, formatCidr, isCidrError, parseCidr } from "./cidr.ts"

/** `{name, namespace}` of a Cluster, for `matchIdentities`. */
export interface ObjectReference {
  readonly name: string
  readonly namespace: string
}

export type PurposeOperator = "ContainsAll" | "ContainsAny" | "ContainsNone" | "Equals"
export const PURPOSE_OPERATORS: ReadonlyArray<PurposeOperator> = [
  "ContainsAll",
  "ContainsAny",
  "ContainsNone",
  "Equals",
]

export interface PurposeRequirement {
  readonly operator: PurposeOperator
  readonly values: ReadonlyArray<string>
}

export type LabelOperator = "In" | "NotIn" | "Exists" | "DoesNotExist"
export const LABEL_OPERATORS: ReadonlyArray<LabelOperator> = ["In", "NotIn", "Exists", "DoesNotExist"]

export interface LabelRequirement {
  readonly key: string
  readonly operator: LabelOperator
  readonly values: ReadonlyArray<string>
}

/**
 * openmcp's IdentityLabelPurposeSelector. `matchIdentities` undefined disables the identity
 * selector; an empty list matches nothing; a list overrules the other selectors.
 */
export interface ClusterSelector {
  readonly matchIdentities: ReadonlyArray<ObjectReference> | undefined
  readonly matchPurposes: ReadonlyArray<PurposeRequirement>
  readonly matchLabels: Readonly<Record<string, string>>
  readonly matchExpressions: ReadonlyArray<LabelRequirement>
}

/** One CIDR to slice and inject. */
export interface Injection {
  /** Lets a later injection of the same rule use this CIDR as its parent. */
  readonly id: string | undefined
  /** `path` followed by `paths`, in JSONPatch form, each unique. */
  readonly paths: ReadonlyArray<string>
  /** Parent ids, tried in order; empty: every global parent id, sorted. */
  readonly parents: ReadonlyArray<string>
  /** The prefix length of the CIDR to slice. */
  readonly subnetSize: number
}

export interface InjectionRule {
  readonly id: string
  readonly selector: ClusterSelector
  readonly injections: ReadonlyArray<Injection>
}

/** The parsed `spec` of an IPAMConfig. */
export interface IpamConfigSpec {
  /** Parent CIDRs by id, each in canonical text, in the config's order. */
  readonly parentCIDRs: Readonly<Record<string, ReadonlyArray<string>>>
  readonly injectionRules: ReadonlyArray<InjectionRule>
  /** Milliseconds after which the state is rebuilt from the cluster; 0: never. */
  readonly internalStateRefreshCycleDuration: number
}

/** One thing wrong with an IPAMConfig: where (`spec.injectionRules[0].injections[1].subnetSize`) and what. */
export interface ConfigIssue {
  readonly path: string
  readonly message: string
}

/** A valid IPAMConfig's parsed spec. */
export interface ValidConfig {
  readonly _tag: "ValidConfig"
  readonly config: IpamConfigSpec
}

/** An IPAMConfig refused, with every issue found in it, in the order of its fields. */
export class IpamConfigInvalidError extends Data.TaggedError("IpamConfigInvalidError")<{
  readonly errors: ReadonlyArray<ConfigIssue>
}> {
  override get message(): string {
    return this.errors.map((e) => `${e.path}: ${e.message}`).join("; ")
  }
}

/** A valid IPAMConfig's parsed spec, or every issue found in it. */
export type ValidationResult = ValidConfig | IpamConfigInvalidError

/** Every parent CIDR of a config, parsed. */
export const parentCidrsOf = (config: IpamConfigSpec): ReadonlyArray<Cidr> =>
  Object.values(config.parentCIDRs)
    .flat()
    .map((t) => parseCidr(t))
    .filter((c): c is Cidr => !isCidrError(c))

/** Edit distance, for naming the closest known key (one implementation for every strict input). */
export { editDistance }

/** The known key closest to an unknown one. */
export const closest = (key: string, known: ReadonlyArray<string>): string =>
  [...known].sort(
    (x, y) =>
      editDistance(key.toLowerCase(), x.toLowerCase()) - editDistance(key.toLowerCase(), y.toLowerCase()),
  )[0] as string

/** Whether every parent id of an injection is a parent of the config (not a local injection id). */
export const globalParentIds = (
  config: IpamConfigSpec,
  injection: Injection,
  local: ReadonlySet<string>,
): ReadonlyArray<string> =>
  injection.parents.length === 0
    ? Object.keys(config.parentCIDRs).sort()
    : injection.parents.filter((p) => !local.has(p))

/** Whether a CIDR lies within one of the config's parents; the first such parent's text. */
export const parentContaining = (config: IpamConfigSpec, c: Cidr): string | undefined => {
  for (const p of parentCidrsOf(config)) if (contains(p, c)) return formatCidr(p)
  return undefined
}
