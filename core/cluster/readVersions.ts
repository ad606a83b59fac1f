/**
 * Reading a control-plane object's `status.versions` as Cluster API v1.14.2's contract does
 * (`internal/contract/controlplane.go`, StatusVersions): the field decoded as a list of
 * `{version, replicas}` (Go's JSON decoding: keys matched case-insensitively, the last match
 * wins, a `null` leaves the zero value), then checked: every version parses tolerantly as
 * semver, no version is below the one before it (build identifiers counted; two that cannot be
 * ordered pass), no replica count is negative.
 *
 * @module
 */
import { compareWithBuild, parseTolerant, type SemVer } from "./semver.ts"
import type { StatusVersion } from "./types.ts"
import { compareStrings } from "./versions.ts"

/** The outcome of reading `status.versions`. */
export type VersionsRead =
  | { readonly _tag: "Read"; readonly versions: ReadonlyArray<StatusVersion> }
  /** `status` or `status.versions` is not there (a `null` status counts as not there). */
  | { readonly _tag: "Missing" }
  /** Anything else: not a list, an item that does not decode, or a check that fails. */
  | { readonly _tag: "Invalid"; readonly error: string }

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v)

/** Go's case folding of a JSON key, as far as `version` and `replicas` need it. */
const fold = (k: string): string =>
  k
    .replace(/\u017f/g, "s")
    .replace(/\u212a/g, "k")
    .toLowerCase()

/** The value Go's decoder assigns to a field: the last of the matching keys in key order. */
const field = (item: Record<string, unknown>, name: string): unknown => {
  let out: unknown
  const keys = Object.keys(item).sort(compareStrings)
  for (const k of keys) if (fold(k) === name) out = item[k]
  return out
}

const INT32_MAX = 2 ** 31 - 1

/** One item of the list, decoded as Go decodes it into a StatusVersion. */
const decodeItem = (item: unknown, i: number): StatusVersion | string => {
  if (item === null) return { version: "" }
  if (!isRecord(item)) return `.status.versions[${i}] is not an object`
  const version = field(item, "version")
  const replicas = field(item, "replicas")
  if (version !== undefined && version !== null && typeof version !== "string")
    return `.status.versions[${i}].version is not a string`
  if (
    replicas !== undefined &&
    replicas !== null &&
    (typeof replicas !== "number" ||
      !Number.isInteger(replicas) ||
      replicas < -INT32_MAX - 1 ||
      replicas > INT32_MAX)
  )
    return `.status.versions[${i}].replicas is not a 32-bit integer`
  const v = typeof version === "string" ? version : ""
  return typeof replicas === "number" && replicas !== 0 ? { version: v, replicas } : { version: v }
}

/** Reads and checks a control-plane object's `status.versions`. */
export const readControlPlaneVersions = (controlPlane: unknown): VersionsRead => {
  const status = isRecord(controlPlane) ? controlPlane.status : undefined
  if (status === undefined || status === null) return { _tag: "Missing" }
  if (!isRecord(status)) return { _tag: "Invalid", error: ".status is not an object" }
  if (!("versions" in status) || status.versions === undefined) return { _tag: "Missing" }
  const list = status.versions
  if (!Array.isArray(list)) return { _tag: "Invalid", error: ".status.versions is not a list" }
  const out: Array<StatusVersion> = []
  let previous: { readonly parsed: SemVer; readonly text: string } | undefined
  for (let i = 0; i < list.length; i++) {
    const v = decodeItem(list[i], i)
    if (typeof v === "string") return { _tag: "Invalid", error: v }
    const parsed = parseTolerant(v.version)
    if (parsed === undefined)
      return {
        _tag: "Invalid",
        error: `.status.versions[${i}].version ${JSON.stringify(v.version)} is not a version`,
      }
    if (previous !== undefined && compareWithBuild(parsed, previous.parsed) === -1)
      return {
        _tag: "Invalid",
        error: `version "${previous.text}" and "${v.version}" are in the wrong order`,
      }
    if ((v.replicas ?? 0) < 0)
      return { _tag: "Invalid", error: `.status.versions[${i}].replicas must not be negative` }
    previous = { parsed, text: v.version }
    out.push(v)
  }
  return { _tag: "Read", versions: out }
}
