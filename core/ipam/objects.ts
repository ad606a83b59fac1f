/**
 * What the IPAM controller reads of Clusters and ClusterConfigs, the applied-rules annotation,
 * and the ClusterConfig it writes: name, labels, owner reference, finalizer and JSONPatch
 * `add` patches (upstream: internal/shared/utils.go, described in docs/controllers/state.md).
 *
 * @module
 */
import { createHash } from "node:crypto"
import * as Data from "effect/Data"
import { compareText } from "../krtt/compare.ts"
import {
  CIDR_FINALIZER,
  CLUSTER_CONFIG_KIND,
  CLUSTER_CONFIG_NAME_INFIX,
  CLUSTER_KIND,
  CLUSTER_TARGET_LABEL,
  CLUSTERS_API_VERSION,
  ENVIRONMENT_LABEL,
  GARDENER_API_VERSION,
  INJECTION_RULE_LABEL,
  IpamDefaults,
  type IpamDefaultsShape,
  MANAGED_BY_LABEL,
  MANAGED_PURPOSE,
  MANAGED_PURPOSE_LABEL,
  OPERATION_ANNOTATION,
  OPERATION_IGNORE,
  OPERATION_RECONCILE,
} from "./constants.ts"

/** A Cluster (`clusters.openmcp.cloud/v1alpha1`), as far as the IPAM controller reads it. */
export interface ClusterView {
  readonly namespace: string
  readonly name: string
  readonly uid?: string | undefined
  readonly labels: Readonly<Record<string, string>>
  readonly annotations: Readonly<Record<string, string>>
  /** `spec.purposes`. */
  readonly purposes: ReadonlyArray<string>
  /** RFC 3339 `metadata.deletionTimestamp`, when the Cluster is being deleted. */
  readonly deletionTimestamp?: string | undefined
}

/** One JSONPatch of a ClusterConfig (`spec.patches[]`). */
export interface JsonPatch {
  readonly op: string
  readonly path: string
  readonly value?: unknown
}

export interface OwnerReference {
  readonly apiVersion: string
  readonly kind: string
  readonly name: string
  readonly uid?: string | undefined
  readonly controller?: boolean | undefined
  readonly blockOwnerDeletion?: boolean | undefined
}

/** A ClusterConfig (`gardener.clusters.openmcp.cloud/v1alpha1`), as far as the controller reads it. */
export interface ClusterConfigView {
  readonly namespace: string
  readonly name: string
  readonly labels: Readonly<Record<string, string>>
  readonly annotations: Readonly<Record<string, string>>
  readonly finalizers: ReadonlyArray<string>
  readonly ownerReferences: ReadonlyArray<OwnerReference>
  readonly deletionTimestamp?: string | undefined
  readonly patches: ReadonlyArray<JsonPatch>
}

/** Who this controller instance is: the values of its ClusterConfigs' labels. */
export interface ControllerIdentity {
  /** `openmcp.cloud/managed-by`: the name of the PlatformService (and of the IPAMConfig). */
  readonly managedBy: string
  /** `openmcp.cloud/environment`. */
  readonly environment: string
}

/** `{ ruleId: { path: cidr } }`: the applied-rules (CIDR) annotation. */
export type AppliedRules = Readonly<Record<string, Readonly<Record<string, string>>>>

/** Whether an object has `openmcp.cloud/operation: ignore`. */
export const isIgnored = (o: { readonly annotations: Readonly<Record<string, string>> }): boolean =>
  o.annotations[OPERATION_ANNOTATION] === OPERATION_IGNORE

/** Whether an object has `openmcp.cloud/operation: reconcile`. */
export const wantsReconcile = (o: { readonly annotations: Readonly<Record<string, string>> }): boolean =>
  o.annotations[OPERATION_ANNOTATION] === OPERATION_RECONCILE

/** The labels of a ClusterConfig of this controller for a Cluster and rule. */
export const clusterConfigLabels = (
  who: ControllerIdentity,
  cluster: string,
  ruleId: string,
): Readonly<Record<string, string>> => ({
  [MANAGED_BY_LABEL]: who.managedBy,
  [MANAGED_PURPOSE_LABEL]: MANAGED_PURPOSE,
  [ENVIRONMENT_LABEL]: who.environment,
  [CLUSTER_TARGET_LABEL]: cluster,
  [INJECTION_RULE_LABEL]: ruleId,
})

/** Whether a ClusterConfig carries this controller's three identity labels. */
export const isManaged = (
  cc: { readonly labels: Readonly<Record<string, string>> },
  who: ControllerIdentity,
): boolean =>
  cc.labels[MANAGED_BY_LABEL] === who.managedBy &&
  cc.labels[MANAGED_PURPOSE_LABEL] === MANAGED_PURPOSE &&
  cc.labels[ENVIRONMENT_LABEL] === who.environment

/** Whether a ClusterConfig is this controller's for the named Cluster (same namespace, cluster label). */
export const isManagedFor = (
  cc: ClusterConfigView,
  who: ControllerIdentity,
  cluster: { readonly namespace: string; readonly name: string },
): boolean =>
  isManaged(cc, who) && cc.namespace === cluster.namespace && cc.labels[CLUSTER_TARGET_LABEL] === cluster.name

/** The Cluster that controls a ClusterConfig (its controller owner reference of kind Cluster). */
export const owningCluster = (
  cc: ClusterConfigView,
): { readonly namespace: string; readonly name: string } | undefined => {
  const ref = cc.ownerReferences.find(
    (r) =>
      r.controller === true &&
      r.kind === CLUSTER_KIND &&
      r.apiVersion.split("/")[0] === CLUSTERS_API_VERSION.split("/")[0],
  )
  return ref === undefined ? undefined : { namespace: cc.namespace, name: ref.name }
}

const BASE32 = "abcdefghijklmnopqrstuvwxyz234567"

/** controller-utils' NameHashSHAKE128Base32: SHAKE128 of the text, lower-case base32, 8 characters. */
export const nameHash = (text: string, length = IpamDefaults.nameHashLength): string => {
  // Stryker disable next-line ObjectLiteral,ArithmeticOperator
  const bytes = createHash("shake128", { outputLength: Math.ceil((length * 5) / 8) })
    .update(text)
    .digest()
  let bits = 0
  let value = 0
  let out = ""
  for (const b of bytes) {
    value = (value << 8) | b
    bits += 8
    // Stryker disable next-line EqualityOperator
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31]
      bits -= 5
    }
  }
  // Stryker disable next-line ConditionalExpression,EqualityOperator,ArithmeticOperator
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31]
  return out.slice(0, length)
}

/**
 * The name of the ClusterConfig of a Cluster and rule: `<cluster>--ipam--<rule id>`, shortened
 * to `maxNameLength` (63) by replacing its tail with `--<hash>` as controller-utils'
 * ShortenToXCharacters does.
 */
export const clusterConfigName = (
  cluster: string,
  ruleId: string,
  defaults: IpamDefaultsShape = IpamDefaults,
): string => {
  const full = `${cluster}${CLUSTER_CONFIG_NAME_INFIX}${ruleId}`
  if (full.length <= defaults.maxNameLength) return full
  const suffix = `--${nameHash(full, defaults.nameHashLength)}`
  return full.slice(0, defaults.maxNameLength - suffix.length) + suffix
}

/** Prefix length of a CIDR text, or -1 (for sorting patches the way upstream does). */
const prefixLength = (v: unknown): number => {
  if (typeof v !== "string") return -1
  const at = v.lastIndexOf("/")
  // Stryker disable next-line ConditionalExpression,UnaryOperator
  const n = at === -1 ? Number.NaN : Number(v.slice(at + 1))
  return Number.isInteger(n) ? n : -1
}

/**
 * Patches sorted by the size of their CIDR, large blocks first, so a parent is restored before
 * its children (upstream SortPatches); equal sizes by path, so the order is deterministic.
 */
export const sortPatches = (patches: ReadonlyArray<JsonPatch>): ReadonlyArray<JsonPatch> =>
  [...patches].sort((a, b) => {
    const x = prefixLength(a.value)
    const y = prefixLength(b.value)
    if (x < 0 || y < 0) return 0
    return x - y || compareText(a.path, b.path)
  })

/** A ClusterConfig this controller creates, as the object to send to the API server. */
export interface ClusterConfigObject {
  readonly apiVersion: string
  readonly kind: string
  readonly metadata: {
    readonly name: string
    readonly namespace: string
    readonly labels: Readonly<Record<string, string>>
    readonly ownerReferences: ReadonlyArray<OwnerReference>
    readonly finalizers: ReadonlyArray<string>
  }
  readonly spec: {
    readonly patchOptions: { readonly createMissingOnAdd: boolean }
    readonly patches: ReadonlyArray<JsonPatch>
  }
}

/** The ClusterConfig of a Cluster and rule carrying the injections `{ path: cidr }`. */
export const clusterConfigFor = (
  who: ControllerIdentity,
  cluster: { readonly namespace: string; readonly name: string; readonly uid?: string | undefined },
  ruleId: string,
  injections: Readonly<Record<string, string>>,
  defaults: IpamDefaultsShape = IpamDefaults,
): ClusterConfigObject => ({
  apiVersion: GARDENER_API_VERSION,
  kind: CLUSTER_CONFIG_KIND,
  metadata: {
    name: clusterConfigName(cluster.name, ruleId, defaults),
    namespace: cluster.namespace,
    labels: clusterConfigLabels(who, cluster.name, ruleId),
    ownerReferences: [
      {
        apiVersion: CLUSTERS_API_VERSION,
        kind: CLUSTER_KIND,
        name: cluster.name,
        ...(cluster.uid === undefined ? {} : { uid: cluster.uid }),
        controller: true,
        blockOwnerDeletion: false,
      },
    ],
    finalizers: [CIDR_FINALIZER],
  },
  spec: {
    patchOptions: { createMissingOnAdd: true },
    patches: sortPatches(Object.entries(injections).map(([path, value]) => ({ op: "add", path, value }))),
  },
})

/** The applied-rules annotation is not `{rule: {path: cidr}}` (`ipam.reconcile#10`). */
export class AppliedRulesError extends Data.TaggedError("AppliedRulesError")<{ readonly message: string }> {}

/** Parses the applied-rules annotation; none when absent or `null`, an error when not `{rule: {path: cidr}}`. */
export const parseAppliedRules = (text: string | undefined): AppliedRules | AppliedRulesError => {
  if (text === undefined) return {}
  let v: unknown
  try {
    v = JSON.parse(text)
  } catch (e) {
    return new AppliedRulesError({ message: `not JSON: ${(e as Error).message}` })
  }
  if (v === null) return {}
  if (typeof v !== "object" || Array.isArray(v))
    return new AppliedRulesError({ message: "not a JSON object of rule ids" })
  const out: Record<string, Record<string, string>> = {}
  for (const [rule, m] of Object.entries(v as Record<string, unknown>)) {
    if (m === null) {
      out[rule] = {}
      continue
    }
    if (typeof m !== "object" || Array.isArray(m))
      return new AppliedRulesError({ message: `rule "${rule}" does not map paths to CIDRs` })
    const inner: Record<string, string> = {}
    for (const [path, cidr] of Object.entries(m as Record<string, unknown>)) {
      if (typeof cidr !== "string")
        return new AppliedRulesError({ message: `rule "${rule}" path "${path}" is not a CIDR string` })
      inner[path] = cidr
    }
    out[rule] = inner
  }
  return out
}

/** The annotation's text: JSON with sorted keys, as Go's encoding/json writes a map. */
export const formatAppliedRules = (rules: AppliedRules): string => {
  const sorted = Object.fromEntries(
    Object.keys(rules)
      .sort()
      .map((r) => [
        r,
        Object.fromEntries(
          Object.keys(rules[r] ?? {})
            .sort()
            .map((p) => [p, (rules[r] as Record<string, string>)[p]]),
        ),
      ]),
  )
  return JSON.stringify(sorted)
}

/** Whether two applied-rules values say the same. */
export const sameAppliedRules = (a: AppliedRules, b: AppliedRules): boolean =>
  formatAppliedRules(a) === formatAppliedRules(b)
