/**
 * The IPAMConfig (`gardener.clusters.openmcp.cloud/v1alpha1`, cluster-scoped) as parsed data,
 * and `validateIpamConfig`, which turns what the API server holds into that data or into
 * errors naming each wrong field.
 *
 * Upstream format (docs/config/config.md): `spec.parentCIDRs` maps ids to lists of CIDRs;
 * `spec.injectionRules[]` has an `id`, the selectors `matchIdentities`, `matchPurposes`,
 * `matchLabels`, `matchExpressions`, and `injections[]` with an optional `id`, `path` and/or
 * `paths`, `parents` (global parent ids or ids of earlier injections of the same rule) and
 * `subnetSize`; `spec.internalStateRefreshCycleDuration` is a Go duration.
 *
 * @module
 */

import { parseGoDuration } from "../krtt/duration.ts"
import { editDistance } from "../krtt/suggest.ts"
import { bitsOf, type Cidr, contains, formatCidr, isCidrError, overlaps, parseCidr } from "./cidr.ts"
import { normalizePath } from "./paths.ts"

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

/** A valid IPAMConfig's parsed spec, or every issue found in it. */
export type ValidationResult =
  | { readonly config: IpamConfigSpec }
  | { readonly errors: ReadonlyArray<ConfigIssue> }

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

const RULE_ID = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/

/** A prefix length some family allows: an integer from 0 to 128. */
const isSubnetSize = (v: unknown): v is number =>
  Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 128

type Obj = Record<string, unknown>
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v)
const typeName = (v: unknown) => (v === null ? "null" : Array.isArray(v) ? "an array" : typeof v)

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
  const err = (path: string, message: string) => {
    errors.push({ path, message })
  }
  const strict = (o: Obj, path: string, known: ReadonlyArray<string>) => {
    for (const k of Object.keys(o)) {
      if (!known.includes(k))
        err(`${path}.${k}`, `unknown field "${k}"; did you mean "${closest(k, known)}"?`)
    }
  }
  const strings = (v: unknown, path: string): ReadonlyArray<string> => {
    if (v === undefined || v === null) return []
    if (!Array.isArray(v)) {
      err(path, `must be a list of strings, got ${typeName(v)}`)
      return []
    }
    const out: Array<string> = []
    v.forEach((x, i) => {
      if (typeof x === "string") out.push(x)
      else err(`${path}[${i}]`, `must be a string, got ${typeName(x)}`)
    })
    return out
  }

  let spec: unknown = raw
  if (isObj(raw) && "spec" in raw) {
    strict(raw, "", ["apiVersion", "kind", "metadata", "spec", "status"])
    errors.splice(0, errors.length, ...errors.map((e) => ({ ...e, path: e.path.slice(1) })))
    spec = raw.spec
  }
  if (!isObj(spec))
    return { errors: [...errors, { path: "spec", message: `must be an object, got ${typeName(spec)}` }] }
  strict(spec, "spec", ["parentCIDRs", "injectionRules", "internalStateRefreshCycleDuration"])

  // parent CIDRs
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

  // refresh cycle
  let refresh = 0
  const d = spec.internalStateRefreshCycleDuration
  if (d !== undefined && d !== null) {
    const ms = typeof d === "string" ? parseGoDuration(d) : undefined
    if (ms === undefined)
      err(
        "spec.internalStateRefreshCycleDuration",
        `${JSON.stringify(d)} is not a duration such as "24h" or "1h30m"`,
      )
    else refresh = ms
  }

  // rules
  const injectionRules: Array<InjectionRule> = []
  const rulesRaw = spec.injectionRules ?? []
  if (!Array.isArray(rulesRaw)) err("spec.injectionRules", `must be a list, got ${typeName(rulesRaw)}`)
  else {
    const seenRules = new Map<string, number>()
    rulesRaw.forEach((r, ri) => {
      const rp = `spec.injectionRules[${ri}]`
      if (!isObj(r)) {
        err(rp, `must be an object, got ${typeName(r)}`)
        return
      }
      strict(r, rp, [
        "id",
        "matchIdentities",
        "matchPurposes",
        "matchLabels",
        "matchExpressions",
        "injections",
      ])
      const id = typeof r.id === "string" ? r.id : ""
      if (typeof r.id !== "string") err(`${rp}.id`, "is required and must be a string")
      else if (id.length > 63)
        err(`${rp}.id`, `"${id}" is ${id.length} characters long; a rule id is a label value: at most 63`)
      else if (!RULE_ID.test(id))
        err(
          `${rp}.id`,
          `"${id}" must consist of lower case letters, digits and '-', starting and ending with a letter or digit`,
        )
      const dup = seenRules.get(id)
      if (dup !== undefined && id !== "")
        err(`${rp}.id`, `duplicate rule id "${id}" (also spec.injectionRules[${dup}].id)`)
      seenRules.set(id, ri)

      const selector = parseSelector(r, rp, err, strict, strings)

      const injections: Array<Injection> = []
      const localSizes = new Map<string, number>()
      const seenPaths = new Map<string, string>()
      const seenIds = new Map<string, number>()
      if (!Array.isArray(r.injections))
        err(
          `${rp}.injections`,
          r.injections === undefined ? "is required" : `must be a list, got ${typeName(r.injections)}`,
        )
      else {
        r.injections.forEach((inj, ii) => {
          const ip = `${rp}.injections[${ii}]`
          if (!isObj(inj)) {
            err(ip, `must be an object, got ${typeName(inj)}`)
            return
          }
          strict(inj, ip, ["id", "path", "paths", "parents", "subnetSize"])
          let injId: string | undefined
          if (inj.id !== undefined && inj.id !== "") {
            if (typeof inj.id !== "string") err(`${ip}.id`, "must be a string")
            else {
              injId = inj.id
              const prev = seenIds.get(inj.id)
              if (prev !== undefined)
                err(`${ip}.id`, `duplicate injection id "${inj.id}" (also ${rp}.injections[${prev}].id)`)
              seenIds.set(inj.id, ii)
            }
          }
          const paths: Array<string> = []
          const sources: Array<[string, unknown]> = []
          if (inj.path !== undefined && inj.path !== "") sources.push([`${ip}.path`, inj.path])
          strings(inj.paths, `${ip}.paths`).forEach((p, pi) => {
            sources.push([`${ip}.paths[${pi}]`, p])
          })
          if (sources.length === 0)
            err(`${ip}.path`, "either 'path' must be non-empty or 'paths' must contain at least one entry")
          for (const [pp, p] of sources) {
            if (typeof p !== "string") {
              err(pp, "must be a string")
              continue
            }
            const n = normalizePath(p)
            if (!n.ok) {
              err(pp, n.message)
              continue
            }
            const prev = seenPaths.get(n.path)
            if (prev !== undefined) err(pp, `duplicate path ${n.path} in rule "${id}" (also ${prev})`)
            else {
              seenPaths.set(n.path, pp)
              paths.push(n.path)
            }
          }
          const parents = strings(inj.parents, `${ip}.parents`)
          const size = inj.subnetSize
          if (!isSubnetSize(size)) {
            err(
              `${ip}.subnetSize`,
              size === undefined ? "is required" : `${JSON.stringify(size)} must be an integer from 0 to 128`,
            )
          } else {
            // the global parents it may slice from: all without `parents`; else those named, unless
            // an earlier injection of the rule has the same id (the local one is meant)
            const candidates = (
              parents.length === 0
                ? parsedParents
                : parsedParents.filter((p) => parents.includes(p.id) && !localSizes.has(p.id))
            ).map((p) => p.cidr)
            if (parents.length === 0 && parsedParents.length === 0)
              err(
                `${ip}.parents`,
                "is empty, so every parent CIDR of spec.parentCIDRs is allowed, but there is none",
              )
            let unknown = false
            parents.forEach((pid, pi) => {
              if (localSizes.has(pid)) return
              if (!(isObj(spec.parentCIDRs) && pid in spec.parentCIDRs)) {
                unknown = true
                const known = [
                  ...Object.keys(isObj(spec.parentCIDRs) ? spec.parentCIDRs : {}),
                  ...localSizes.keys(),
                ]
                err(
                  `${ip}.parents[${pi}]`,
                  `unknown parent "${pid}": neither an id of spec.parentCIDRs nor of an earlier injection of this rule${known.length > 0 ? `; did you mean "${closest(pid, known)}"?` : ""}`,
                )
              }
            })
            const fitsLocal = parents.some((pid) => size > (localSizes.get(pid) ?? Number.POSITIVE_INFINITY))
            const fitsGlobal = candidates.some((c) => size > c.prefix && size <= bitsOf(c.family))
            if (!unknown && !fitsLocal && !fitsGlobal && (candidates.length > 0 || parents.length > 0)) {
              err(
                `${ip}.subnetSize`,
                `a /${size} fits in none of its parents (${parents.length === 0 ? "all parent CIDRs" : parents.join(", ")}): it must be longer than the parent's prefix and at most 32 (IPv4) or 128 (IPv6)`,
              )
            }
            // Stryker disable next-line ConditionalExpression
            if (injId !== undefined) localSizes.set(injId, size)
            injections.push({ id: injId, paths, parents, subnetSize: size })
          }
          // an injection with a bad size is not kept: the config has errors and is not returned
        })
      }
      injectionRules.push({ id, selector, injections })
    })
  }

  if (errors.length > 0) return { errors }
  return { config: { parentCIDRs, injectionRules, internalStateRefreshCycleDuration: refresh } }
}

const parseSelector = (
  r: Obj,
  rp: string,
  err: (path: string, message: string) => void,
  strict: (o: Obj, path: string, known: ReadonlyArray<string>) => void,
  strings: (v: unknown, path: string) => ReadonlyArray<string>,
): ClusterSelector => {
  let matchIdentities: Array<ObjectReference> | undefined
  if (r.matchIdentities !== undefined && r.matchIdentities !== null) {
    if (!Array.isArray(r.matchIdentities))
      err(`${rp}.matchIdentities`, `must be a list, got ${typeName(r.matchIdentities)}`)
    else {
      const identities: Array<ObjectReference> = []
      matchIdentities = identities
      r.matchIdentities.forEach((m, i) => {
        const p = `${rp}.matchIdentities[${i}]`
        if (!isObj(m)) {
          err(p, `must be an object, got ${typeName(m)}`)
          return
        }
        strict(m, p, ["name", "namespace"])
        if (typeof m.name !== "string" || m.name === "") err(`${p}.name`, "is required")
        if (typeof m.namespace !== "string" || m.namespace === "") err(`${p}.namespace`, "is required")
        // what is pushed for a missing name or namespace is never seen: that config has errors
        identities.push({ name: String(m.name), namespace: String(m.namespace) })
      })
    }
  }
  const matchPurposes: Array<PurposeRequirement> = []
  if (r.matchPurposes !== undefined && r.matchPurposes !== null) {
    if (!Array.isArray(r.matchPurposes))
      err(`${rp}.matchPurposes`, `must be a list, got ${typeName(r.matchPurposes)}`)
    else
      r.matchPurposes.forEach((m, i) => {
        const p = `${rp}.matchPurposes[${i}]`
        if (!isObj(m)) {
          err(p, `must be an object, got ${typeName(m)}`)
          return
        }
        strict(m, p, ["operator", "values"])
        const op = m.operator
        if (!PURPOSE_OPERATORS.includes(op as PurposeOperator)) {
          err(
            `${p}.operator`,
            `${JSON.stringify(op)} is not one of ${PURPOSE_OPERATORS.join(", ")}${typeof op === "string" ? `; did you mean "${closest(op, PURPOSE_OPERATORS)}"?` : ""}`,
          )
        }
        matchPurposes.push({ operator: op as PurposeOperator, values: strings(m.values, `${p}.values`) })
      })
  }
  const matchLabels: Record<string, string> = {}
  if (r.matchLabels !== undefined && r.matchLabels !== null) {
    if (!isObj(r.matchLabels))
      err(`${rp}.matchLabels`, `must be a map of strings, got ${typeName(r.matchLabels)}`)
    else
      for (const [k, v] of Object.entries(r.matchLabels)) {
        if (typeof v !== "string") err(`${rp}.matchLabels.${k}`, `must be a string, got ${typeName(v)}`)
        else matchLabels[k] = v
      }
  }
  const matchExpressions: Array<LabelRequirement> = []
  if (r.matchExpressions !== undefined && r.matchExpressions !== null) {
    if (!Array.isArray(r.matchExpressions))
      err(`${rp}.matchExpressions`, `must be a list, got ${typeName(r.matchExpressions)}`)
    else
      r.matchExpressions.forEach((m, i) => {
        const p = `${rp}.matchExpressions[${i}]`
        if (!isObj(m)) {
          err(p, `must be an object, got ${typeName(m)}`)
          return
        }
        strict(m, p, ["key", "operator", "values"])
        if (typeof m.key !== "string" || m.key === "") err(`${p}.key`, "is required")
        const op = m.operator as LabelOperator
        const values = strings(m.values, `${p}.values`)
        if (!LABEL_OPERATORS.includes(op)) {
          err(
            `${p}.operator`,
            `${JSON.stringify(m.operator)} is not one of ${LABEL_OPERATORS.join(", ")}${typeof m.operator === "string" ? `; did you mean "${closest(m.operator, LABEL_OPERATORS)}"?` : ""}`,
          )
        } else if ((op === "In" || op === "NotIn") && values.length === 0) {
          err(`${p}.values`, `must not be empty for operator ${op}`)
        } else if ((op === "Exists" || op === "DoesNotExist") && values.length > 0) {
          err(`${p}.values`, `must be empty for operator ${op}`)
        }
        matchExpressions.push({ key: String(m.key), operator: op, values })
      })
  }
  return { matchIdentities, matchPurposes, matchLabels, matchExpressions }
}

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
