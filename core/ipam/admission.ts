/**
 * The IPAM controller's two admission decisions, as upstream's webhooks make them (where seed
 * 004 is silent; spec/ipam/upstream.ts records it):
 *
 * - Cluster defaulting: every rule that selects the Cluster puts a reference to the ClusterConfig
 *   it will create (`<cluster>--ipam--<rule id>`) into `spec.clusterConfigs`, so the cluster
 *   provider waits for it. A Cluster created with `generateName` has no name yet: it gets the
 *   placeholder `ipam-empty-cluster-name-placeholder` instead, which the next admission with a
 *   name replaces.
 * - IPAMConfig validation: `validateIpamConfig`, plus the rules of upstream's webhook that the
 *   controller's validation does not refuse (an injection id equal to a parent id; a subnet size
 *   not longer than the longest prefix among a parent id's CIDRs). Each refusal names its field.
 *
 * @module
 */
import { IpamConfigInvalidError, type IpamConfigSpec, validateIpamConfig } from "./config.ts"
import {
  CLUSTERS_API_VERSION,
  GARDENER_API_VERSION,
  IpamDefaults,
  type IpamDefaultsShape,
} from "./constants.ts"
import { type MatchTarget, matchingRules } from "./match.ts"
import { clusterConfigName } from "./objects.ts"

/** The reference upstream injects while the Cluster's name is not known yet. */
export const EMPTY_CLUSTER_NAME_PLACEHOLDER = "ipam-empty-cluster-name-placeholder"

/** controller-runtime's path, configuration name and webhook name of each webhook, as upstream's `init` installs them. */
export const IpamWebhooks = {
  clusterDefaulting: {
    path: "/mutate-clusters-openmcp-cloud-v1alpha1-cluster",
    configuration: "mutate-clusters-openmcp-cloud-v1alpha1-cluster",
    webhook: "mcluster.clusters.openmcp.cloud",
    apiVersion: CLUSTERS_API_VERSION,
    resource: "clusters",
  },
  configValidation: {
    path: "/validate-gardener-clusters-openmcp-cloud-v1alpha1-ipamconfig",
    configuration: "validate-gardener-clusters-openmcp-cloud-v1alpha1-ipamconfig",
    webhook: "vipamconfig.gardener.clusters.openmcp.cloud",
    apiVersion: GARDENER_API_VERSION,
    resource: "ipamconfigs",
  },
} as const

/** One entry of `spec.clusterConfigs`. */
export interface LocalObjectReference {
  readonly name: string
}

/**
 * The Cluster's `spec.clusterConfigs` after defaulting: the existing references in their order,
 * the placeholder dropped unless it is still wanted, then a reference for each selecting rule that
 * lacks one (in the config's order; the placeholder once, for all of them, while the name is
 * unknown).
 */
export const clusterConfigReferences = (
  config: IpamConfigSpec,
  cluster: MatchTarget,
  existing: ReadonlyArray<LocalObjectReference>,
  defaults: IpamDefaultsShape = IpamDefaults,
): ReadonlyArray<LocalObjectReference> => {
  const rules = matchingRules(config, cluster)
  const wanted =
    cluster.name === ""
      ? rules.length > 0
        ? [EMPTY_CLUSTER_NAME_PLACEHOLDER]
        : []
      : rules.map((r) => clusterConfigName(cluster.name, r.id, defaults))
  // the placeholder stays only while it is wanted (upstream removes it whenever it generates none)
  const kept = existing.filter(
    (r) => r.name !== EMPTY_CLUSTER_NAME_PLACEHOLDER || wanted.includes(EMPTY_CLUSTER_NAME_PLACEHOLDER),
  )
  const have = new Set(kept.map((r) => r.name))
  return [...kept, ...wanted.filter((n) => !have.has(n)).map((name) => ({ name }))]
}

/** A JSON patch operation of an admission response. */
export interface AdmissionPatch {
  readonly op: "add" | "replace"
  readonly path: string
  readonly value: unknown
}

/** An admission decision: allowed (with a patch for defaulting), or refused with why. */
export type AdmissionDecision =
  | { readonly allowed: true; readonly patch: ReadonlyArray<AdmissionPatch> }
  | { readonly allowed: false; readonly code: number; readonly message: string }

type Obj = Record<string, unknown>
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v)
const strings = (v: unknown): Readonly<Record<string, string>> =>
  isObj(v)
    ? Object.fromEntries(Object.entries(v).filter((e): e is [string, string] => typeof e[1] === "string"))
    : {}

/**
 * Defaults a Cluster of an admission request (`namespace` is the request's, for a Cluster sent
 * without one). Without a valid IPAMConfig the request is refused, as upstream's is.
 */
export const defaultClusterAdmission = (
  config: IpamConfigSpec | undefined,
  object: unknown,
  namespace: string,
  defaults: IpamDefaultsShape = IpamDefaults,
): AdmissionDecision => {
  if (config === undefined)
    return {
      allowed: false,
      code: 500,
      message: "no valid IPAMConfig is known, unable to inject ClusterConfig references into the Cluster",
    }
  const o = isObj(object) ? object : {}
  const metadata = isObj(o.metadata) ? o.metadata : {}
  const spec = isObj(o.spec) ? o.spec : {}
  const purposes = Array.isArray(spec.purposes) ? spec.purposes.filter((p) => typeof p === "string") : []
  const target: MatchTarget = {
    name: typeof metadata.name === "string" ? metadata.name : "",
    namespace:
      typeof metadata.namespace === "string" && metadata.namespace !== "" ? metadata.namespace : namespace,
    labels: strings(metadata.labels),
    purposes,
  }
  const raw = Array.isArray(spec.clusterConfigs) ? spec.clusterConfigs : undefined
  const existing = (raw ?? []).map((r) => ({ name: isObj(r) && typeof r.name === "string" ? r.name : "" }))
  const next = clusterConfigReferences(config, target, existing, defaults)
  if (JSON.stringify(next) === JSON.stringify(existing)) return { allowed: true, patch: [] }
  const patch: Array<AdmissionPatch> = []
  if (!isObj(o.spec)) patch.push({ op: "add", path: "/spec", value: {} })
  patch.push({ op: raw === undefined ? "add" : "replace", path: "/spec/clusterConfigs", value: next })
  return { allowed: true, patch }
}

/** The rules of upstream's IPAMConfig webhook beyond `validateIpamConfig`, on a valid config. */
const upstreamOnly = (config: IpamConfigSpec): ReadonlyArray<{ path: string; message: string }> => {
  const out: Array<{ path: string; message: string }> = []
  const longest = new Map(
    Object.entries(config.parentCIDRs).map(([id, list]) => [
      id,
      Math.max(0, ...list.map((c) => Number(c.slice(c.lastIndexOf("/") + 1)))),
    ]),
  )
  config.injectionRules.forEach((rule, ri) => {
    rule.injections.forEach((inj, ii) => {
      const ip = `spec.injectionRules[${ri}].injections[${ii}]`
      // Stryker disable next-line ConditionalExpression
      if (inj.id !== undefined && longest.has(inj.id))
        out.push({
          path: `${ip}.id`,
          message: `"${inj.id}" is also an id of spec.parentCIDRs; an injection id must differ from every parent id`,
        })
      // Both checks as upstream's: a listed id that is a global parent is held to its CIDRs even
      // when an earlier injection has the same id (that is refused above); a local one only to
      // the earlier injection's size, which validateIpamConfig checked.
      inj.parents.forEach((pid, pi) => {
        const size = longest.get(pid)
        // Stryker disable next-line ConditionalExpression
        if (size !== undefined && inj.subnetSize <= size)
          out.push({
            path: `${ip}.parents[${pi}]`,
            message: `parent "${pid}" has a CIDR with prefix length ${size}, not shorter than the /${inj.subnetSize} the injection asks for`,
          })
      })
    })
  })
  return out
}

/** Validates an IPAMConfig of an admission request; a delete is always allowed. */
export const validateIpamConfigAdmission = (operation: string, object: unknown): AdmissionDecision => {
  if (operation === "DELETE") return { allowed: true, patch: [] }
  const name = isObj(object) && isObj(object.metadata) ? String(object.metadata.name ?? "") : ""
  const r = validateIpamConfig(isObj(object) ? object : { spec: object })
  const errors = r instanceof IpamConfigInvalidError ? r.errors : upstreamOnly(r.config)
  if (errors.length === 0) return { allowed: true, patch: [] }
  return {
    allowed: false,
    code: 422,
    message: `IPAMConfig.gardener.clusters.openmcp.cloud "${name}" is invalid: ${errors.map((e) => `${e.path}: ${e.message}`).join("; ")}`,
  }
}
