/**
 * Label and field selectors: parsing the string form the API takes, formatting the object form
 * (`matchLabels`/`matchExpressions`), and matching objects (for the in-memory server and stores).
 *
 * Grammar (as kube-apiserver's): comma-separated requirements `k=v`, `k==v`, `k!=v`,
 * `k in (a,b)`, `k notin (a,b)`, `k` (exists), `!k` (does not exist). Field selectors support
 * `=`, `==` and `!=` on dotted paths such as `metadata.name`.
 *
 * @module
 */
import type { KubeObject } from "./resource.ts"

/** One requirement of a selector. */
export type Requirement =
  | { readonly op: "In" | "NotIn"; readonly key: string; readonly values: ReadonlyArray<string> }
  | { readonly op: "Exists" | "DoesNotExist"; readonly key: string }

/** The object form of a label selector, as in `spec.selector`. */
export interface LabelSelector {
  readonly matchLabels?: Readonly<Record<string, string>> | undefined
  readonly matchExpressions?:
    | ReadonlyArray<{
        readonly key: string
        readonly operator: "In" | "NotIn" | "Exists" | "DoesNotExist"
        readonly values?: ReadonlyArray<string> | undefined
      }>
    | undefined
}

/** Splits on commas that are not inside parentheses. */
const splitTop = (s: string): Array<string> => {
  const parts: Array<string> = []
  let depth = 0
  let start = 0
  for (let i = 0; i < s.length; i++) {
    const c = s[i]
    if (c === "(") depth++
    else if (c === ")") depth--
    else if (c === "," && depth === 0) {
      parts.push(s.slice(start, i))
      start = i + 1
    }
  }
  parts.push(s.slice(start))
  return parts.map((p) => p.trim()).filter((p) => p !== "")
}

const setRe = /^([^\s!=()]+)\s+(in|notin)\s*\(([^)]*)\)$/

/**
 * Parses a label selector string; `undefined` when it is malformed. The empty string selects
 * everything (no requirements).
 */
export const parseLabelSelector = (selector: string): ReadonlyArray<Requirement> | undefined => {
  const out: Array<Requirement> = []
  for (const part of splitTop(selector)) {
    const set = setRe.exec(part)
    if (set) {
      const [, key = "", op, values = ""] = set
      const vs = values
        .split(",")
        .map((v) => v.trim())
        .filter((v) => v !== "")
      out.push({ op: op === "in" ? "In" : "NotIn", key, values: vs })
      continue
    }
    const ne = part.indexOf("!=")
    const eq = part.indexOf("=")
    if (ne > 0) {
      out.push({ op: "NotIn", key: part.slice(0, ne).trim(), values: [part.slice(ne + 2).trim()] })
    } else if (eq > 0) {
      const value = part.slice(part.startsWith("=", eq + 1) ? eq + 2 : eq + 1).trim()
      out.push({ op: "In", key: part.slice(0, eq).trim(), values: [value] })
    } else if (/^![^\s!=()]+$/.test(part)) {
      out.push({ op: "DoesNotExist", key: part.slice(1) })
    } else if (/^[^\s!=()]+$/.test(part)) {
      out.push({ op: "Exists", key: part })
    } else {
      return undefined
    }
  }
  return out
}

/** Whether `labels` satisfy every requirement. */
export const matchesRequirements = (
  requirements: ReadonlyArray<Requirement>,
  labels: Readonly<Record<string, string>> | undefined,
): boolean =>
  requirements.every((r) => {
    const has = labels !== undefined && Object.hasOwn(labels, r.key)
    const value = has ? labels?.[r.key] : undefined
    switch (r.op) {
      case "Exists":
        return has
      case "DoesNotExist":
        return !has
      case "In":
        return has && r.values.includes(value ?? "")
      case "NotIn":
        return !has || !r.values.includes(value ?? "")
      default:
        return false
    }
  })

/** Whether `obj` matches a label selector string (a malformed selector matches nothing). */
export const matchesLabelSelector = (selector: string | undefined, obj: KubeObject): boolean => {
  if (selector === undefined || selector === "") return true
  const reqs = parseLabelSelector(selector)
  return reqs !== undefined && matchesRequirements(reqs, obj.metadata.labels)
}

/** Formats the object form as the string the API takes; `""` selects everything. */
export const formatLabelSelector = (selector: LabelSelector): string => {
  const parts: Array<string> = []
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) parts.push(`${k}=${v}`)
  for (const e of selector.matchExpressions ?? []) {
    const values = [...(e.values ?? [])].sort().join(",")
    if (e.operator === "In") parts.push(`${e.key} in (${values})`)
    else if (e.operator === "NotIn") parts.push(`${e.key} notin (${values})`)
    else if (e.operator === "Exists") parts.push(e.key)
    else parts.push(`!${e.key}`)
  }
  return parts.join(",")
}

/** Reads a dotted path (`metadata.name`, `status.phase`) as a string, `""` when absent. */
const fieldValue = (obj: KubeObject, path: string): string => {
  let cur: unknown = obj
  for (const seg of path.split(".")) {
    if (typeof cur !== "object" || cur === null) return ""
    cur = (cur as Record<string, unknown>)[seg]
  }
  return cur === undefined || cur === null ? "" : String(cur)
}

/** Whether `obj` matches a field selector (`=`, `==`, `!=` on dotted paths); malformed → false. */
export const matchesFieldSelector = (selector: string | undefined, obj: KubeObject): boolean => {
  if (selector === undefined || selector === "") return true
  return splitTop(selector).every((part) => {
    const ne = part.indexOf("!=")
    if (ne > 0) return fieldValue(obj, part.slice(0, ne).trim()) !== part.slice(ne + 2).trim()
    const eq = part.indexOf("=")
    if (eq <= 0) return false
    const value = part.slice(part.startsWith("=", eq + 1) ? eq + 2 : eq + 1).trim()
    return fieldValue(obj, part.slice(0, eq).trim()) === value
  })
}
