/**
 * Defaulting and validation of Clusters (`cluster.x-k8s.io/v1beta2`) as upstream Cluster API
 * v1.13's Cluster webhook does them, for the rules that need no other object:
 *
 * Defaulting: a topology version without its `v` prefix gets it.
 *
 * Validation (each error names its field, as the API server then reports it):
 * - `metadata.name` must be a valid label value (at most 63 characters, alphanumeric at both
 *   ends, `-`, `_` and `.` inside);
 * - one of `spec.controlPlaneRef`, `spec.infrastructureRef` or `spec.topology` must be set;
 * - `spec.infrastructureRef`, `spec.controlPlaneRef` and `spec.topology` cannot be removed from
 *   an existing Cluster;
 * - every CIDR block of `spec.clusterNetwork.pods` and `.services` must parse;
 * - `spec.topology` needs the ClusterTopology feature gate, a `classRef.name`, and a version that
 *   is a semantic version with the `v` prefix.
 *
 * Not done (they need the ClusterClass): variables' defaulting and validation, the version
 * upgrade checks, and the wait for a reconciled ClusterClass.
 *
 * @module
 */
import { parseStrict } from "./semver.ts"

/** One refused field, in the API server's words (`field.Invalid`, `field.Required`, ...). */
export interface FieldError {
  readonly field: string
  readonly type: "Invalid value" | "Required value" | "Forbidden"
  readonly value?: string
  readonly detail: string
}

/** The parts of a Cluster the rules read. */
export interface AdmittedCluster {
  readonly metadata: { readonly name?: string; readonly annotations?: Readonly<Record<string, string>> }
  readonly spec?: {
    readonly infrastructureRef?: unknown
    readonly controlPlaneRef?: unknown
    readonly clusterNetwork?: {
      readonly pods?: { readonly cidrBlocks?: ReadonlyArray<string> }
      readonly services?: { readonly cidrBlocks?: ReadonlyArray<string> }
    }
    readonly topology?: { readonly classRef?: { readonly name?: string }; readonly version?: string }
  }
}

const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/

/** A JSON patch operation of the defaulting. */
export interface PatchOperation {
  readonly op: "add" | "replace"
  readonly path: string
  readonly value: unknown
}

/** The defaulting: the operations to apply, or why the Cluster cannot be defaulted. */
export const defaultCluster = (
  c: AdmittedCluster,
): { readonly patch: ReadonlyArray<PatchOperation> } | { readonly errors: ReadonlyArray<FieldError> } => {
  const t = c.spec?.topology
  if (t === undefined) return { patch: [] }
  if ((t.classRef?.name ?? "") === "")
    return {
      errors: [{ field: "spec.topology.classRef.name", type: "Required value", detail: "cannot be empty" }],
    }
  const version = t.version ?? ""
  return version.startsWith("v")
    ? { patch: [] }
    : {
        patch: [
          {
            op: t.version === undefined ? "add" : "replace",
            path: "/spec/topology/version",
            value: `v${version}`,
          },
        ],
      }
}

/** A dotted-quad IPv4 address: four decimal octets up to 255, without leading zeros. */
const isIpv4 = (ip: string): boolean =>
  /^\d{1,3}(\.\d{1,3}){3}$/.test(ip) && ip.split(".").every((o) => Number(o) <= 255 && !/^0\d/.test(o))

/** Whether a CIDR block parses (IPv4 or IPv6, with a prefix length in range). */
export const isCidr = (cidr: string): boolean => {
  const slash = cidr.indexOf("/")
  // Stryker disable next-line ConditionalExpression,UnaryOperator
  if (slash === -1) return false
  const ip = cidr.slice(0, slash)
  const bits = cidr.slice(slash + 1)
  if (!/^\d{1,3}$/.test(bits)) return false
  const prefix = Number(bits)
  if (isIpv4(ip)) return prefix <= 32
  // anything but hex groups, colons and an IPv4 tail fails the group checks below
  if (prefix > 128) return false
  const halves = ip.split("::")
  if (halves.length > 2) return false
  const groups = (s: string) => (s === "" ? [] : s.split(":"))
  const all = halves.flatMap(groups)
  // an IPv4 address may end an IPv6 one (`::ffff:10.0.0.1`, as Go's net.ParseCIDR reads it): two groups
  // Stryker disable next-line StringLiteral
  const last = all[all.length - 1] ?? ""
  const v4Tail = last.includes(".")
  if (v4Tail && (!isIpv4(last) || ip.endsWith(":"))) return false
  const hex = v4Tail ? all.slice(0, -1) : all
  const count = hex.length + (v4Tail ? 2 : 0)
  const hexOk = hex.every((g) => /^[0-9a-fA-F]{1,4}$/.test(g))
  return hexOk && (halves.length === 2 ? count < 8 : count === 8)
}

/** The parts of a Cluster's spec the rules read. */
type AdmittedSpec = NonNullable<AdmittedCluster["spec"]>

/** The validation of a create (`old` undefined) or an update; the errors in upstream's order. */
export const validateCluster = (
  old: AdmittedCluster | undefined,
  c: AdmittedCluster,
  gates: { readonly clusterTopology: boolean },
): ReadonlyArray<FieldError> => {
  const errors: Array<FieldError> = []
  validateName(errors, c.metadata.name ?? "")
  const spec = c.spec ?? {}
  const was = old?.spec ?? {}
  validateRefs(errors, spec, was)
  validateCidrBlocks(errors, spec)
  const t = spec.topology
  if (t !== undefined) validateTopology(errors, t, gates)
  if (was.topology !== undefined && t === undefined)
    errors.push({
      field: "spec.topology",
      type: "Forbidden",
      detail: "cannot be removed from an existing Cluster",
    })
  return errors
}

/** `metadata.name` must be a valid label value. */
const validateName = (errors: Array<FieldError>, name: string): void => {
  if (name.length > 63)
    errors.push({
      field: "metadata.name",
      type: "Invalid value",
      value: name,
      detail: "must be a valid label value: must be no more than 63 characters",
    })
  else if (!LABEL_VALUE.test(name))
    errors.push({
      field: "metadata.name",
      type: "Invalid value",
      value: name,
      detail:
        "must be a valid label value: a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
    })
}

/** One of the references (or a topology) is set, and neither reference is removed. */
const validateRefs = (errors: Array<FieldError>, spec: AdmittedSpec, was: AdmittedSpec): void => {
  if (spec.infrastructureRef === undefined && was.infrastructureRef !== undefined)
    errors.push({ field: "spec.infrastructureRef", type: "Forbidden", detail: "cannot be removed" })
  if (
    spec.controlPlaneRef === undefined &&
    spec.infrastructureRef === undefined &&
    spec.topology === undefined
  )
    errors.push({
      field: "spec",
      type: "Forbidden",
      detail: "one of spec.controlPlaneRef, spec.infrastructureRef or spec.topology must be set",
    })
  if (spec.controlPlaneRef === undefined && was.controlPlaneRef !== undefined)
    errors.push({ field: "spec.controlPlaneRef", type: "Forbidden", detail: "cannot be removed" })
}

/** Every CIDR block of the pods' and the services' networks parses. */
const validateCidrBlocks = (errors: Array<FieldError>, spec: AdmittedSpec): void => {
  for (const which of ["pods", "services"] as const) {
    const blocks = spec.clusterNetwork?.[which]?.cidrBlocks ?? []
    blocks.forEach((b, i) => {
      if (!isCidr(b))
        errors.push({
          field: `spec.clusterNetwork.${which}.cidrBlocks[${i}]`,
          type: "Invalid value",
          value: b,
          detail: `invalid CIDR address: ${b}`,
        })
    })
  }
}

/** A topology needs the feature gate, a class, and a `v`-prefixed semantic version. */
const validateTopology = (
  errors: Array<FieldError>,
  t: NonNullable<AdmittedSpec["topology"]>,
  gates: { readonly clusterTopology: boolean },
): void => {
  const version = t.version ?? ""
  if (!gates.clusterTopology)
    errors.push({
      field: "spec.topology",
      type: "Forbidden",
      detail: "can be set only if the ClusterTopology feature flag is enabled",
    })
  else if ((t.classRef?.name ?? "") === "")
    errors.push({
      field: "spec.topology.class",
      type: "Required value",
      detail: "classRef.name cannot be empty",
    })
  else {
    // v1.14.2: a `v` first (its own error), then strict semver after it.
    if (!version.startsWith("v"))
      errors.push({
        field: "spec.topology.version",
        type: "Invalid value",
        value: version,
        detail: "must start with v",
      })
    if (parseStrict(version.startsWith("v") ? version.slice(1) : version) === undefined)
      errors.push({
        field: "spec.topology.version",
        type: "Invalid value",
        value: version,
        detail: "version must be a valid semantic version",
      })
  }
}

/** The API server's rendering of field errors: `Cluster.cluster.x-k8s.io "c" is invalid: [...]`. */
export const invalidMessage = (name: string, errors: ReadonlyArray<FieldError>): string => {
  const one = (e: FieldError) =>
    e.type === "Invalid value"
      ? `${e.field}: Invalid value: ${JSON.stringify(e.value ?? "")}: ${e.detail}`
      : `${e.field}: ${e.type}: ${e.detail}`
  const list = errors.map(one)
  return `Cluster.cluster.x-k8s.io "${name}" is invalid: ${list.length === 1 ? list[0] : `[${list.join(", ")}]`}`
}
