/**
 * Names shared with upstream openmcp, so that real openmcp objects work unchanged: API groups,
 * kinds, annotation and label keys, the finalizer, the ClusterConfig naming, and the IPAM
 * controller's documented numbers.
 *
 * Sources (facts, not code): openmcp-project/platform-service-gardener-ipam (api/ipam/v1alpha1,
 * docs/config, docs/controllers), openmcp-project/openmcp-operator (api/constants,
 * api/clusters/v1alpha1), openmcp-project/controller-utils (ShortenToXCharacters).
 *
 * @module
 */

/** openmcp's base group. */
export const OPENMCP_GROUP = "openmcp.cloud"

/** Group of the Gardener cluster provider's API, home of `IPAMConfig` and `ClusterConfig`. */
export const GARDENER_GROUP = "gardener.clusters.openmcp.cloud"
export const GARDENER_VERSION = "v1alpha1"
export const GARDENER_API_VERSION = `${GARDENER_GROUP}/${GARDENER_VERSION}`

/** `IPAMConfig`: cluster-scoped, plural `ipamconfigs`, short names `gicfg`, `gipamcfg`. */
export const IPAM_CONFIG_KIND = "IPAMConfig"
export const IPAM_CONFIG_PLURAL = "ipamconfigs"
export const IPAM_CONFIG_SHORT_NAMES: ReadonlyArray<string> = ["gicfg", "gipamcfg"]

/** `ClusterConfig`: namespaced, next to its Cluster. */
export const CLUSTER_CONFIG_KIND = "ClusterConfig"
export const CLUSTER_CONFIG_PLURAL = "clusterconfigs"

/** openmcp's `Cluster` (`clusters.openmcp.cloud/v1alpha1`). */
export const CLUSTERS_GROUP = "clusters.openmcp.cloud"
export const CLUSTERS_VERSION = "v1alpha1"
export const CLUSTERS_API_VERSION = `${CLUSTERS_GROUP}/${CLUSTERS_VERSION}`
export const CLUSTER_KIND = "Cluster"
export const CLUSTER_PLURAL = "clusters"

/** `openmcp.cloud/operation`: `reconcile` triggers a reconcile, `ignore` excludes the object. */
export const OPERATION_ANNOTATION = `${OPENMCP_GROUP}/operation`
export const OPERATION_RECONCILE = "reconcile"
export const OPERATION_IGNORE = "ignore"

/** Labels on every ClusterConfig this controller manages. */
export const MANAGED_BY_LABEL = `${OPENMCP_GROUP}/managed-by`
export const MANAGED_PURPOSE_LABEL = `${OPENMCP_GROUP}/managed-purpose`
export const ENVIRONMENT_LABEL = `${OPENMCP_GROUP}/environment`
/** The value of `openmcp.cloud/managed-purpose`. */
export const MANAGED_PURPOSE = "gardener-ipam"
/** Name of the Cluster a ClusterConfig belongs to. */
export const CLUSTER_TARGET_LABEL = `ipam.${GARDENER_GROUP}/cluster`
/** Id of the injection rule a ClusterConfig is for. */
export const INJECTION_RULE_LABEL = `ipam.${GARDENER_GROUP}/injection-rule`

/**
 * The "applied rules" annotation on a Cluster: JSON of `{ ruleId: { path: cidr } }` (the CIDR
 * annotation of the issue).
 */
export const APPLIED_RULES_ANNOTATION = `ipam.${GARDENER_GROUP}/applied-injection-rules`

/**
 * Finalizer on every ClusterConfig this controller creates: its CIDRs are released before it
 * goes. Upstream renamed it from `.../cidr-release` to `.../cidr-management`; the current name is
 * used (spec/ipam records the choice).
 */
export const CIDR_FINALIZER = `ipam.${GARDENER_GROUP}/cidr-management`

/** Infix of generated ClusterConfig names: `<cluster>--ipam--<rule id>`. */
export const CLUSTER_CONFIG_NAME_INFIX = "--ipam--"

/** Event reasons and actions, as upstream's cluster controller names them. */
export const EventReason = {
  reconcileSuccess: "ReconcileSuccess",
  reconcileError: "ReconcileError",
  cidrManagementError: "CIDRManagementError",
} as const
export const EventAction = {
  parsingAppliedRules: "ParsingAppliedRules",
  evaluatingExistingClusterConfigs: "EvaluatingExistingClusterConfigs",
  evaluatingMissingInjections: "EvaluatingMissingInjections",
  evaluatingRulesToApply: "EvaluatingRulesToApply",
  cidrGeneration: "CIDRGeneration",
  applyingChanges: "ApplyingChanges",
  releasingCidrs: "ReleasingCIDRs",
  reconcile: "Reconcile",
} as const

/** The condition type the IPAM controller reports CIDR exhaustion with. */
export const CIDRS_ALLOCATED_CONDITION = "CIDRsAllocated"
/** The condition type an IPAMConfig carries when it is refused. */
export const CONFIG_VALID_CONDITION = "Valid"

/** The documented numbers of the IPAM controller, in one place. */
export interface IpamDefaultsShape {
  /** Longest Kubernetes object name before a ClusterConfig name is shortened (controller-utils: 63). */
  readonly maxNameLength: number
  /** Characters of the SHAKE128/base32 hash that replaces the tail of a long name (controller-utils: 8). */
  readonly nameHashLength: number
  /** Refresh cycle when `internalStateRefreshCycleDuration` is unset: 0, no refresh (upstream). */
  readonly stateRefreshCycle: number
}

export const IpamDefaults: IpamDefaultsShape = {
  maxNameLength: 63,
  nameHashLength: 8,
  stateRefreshCycle: 0,
}
