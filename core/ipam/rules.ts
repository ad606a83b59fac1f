/**
 * The injection rules of an IPAMConfig as `validateIpamConfig` reads them: each rule's id,
 * selectors (core/ipam/selector.ts) and injections, with their paths, parents and subnet sizes.
 *
 * Refused: rule ids that are no label value or appear twice, duplicate injection ids or paths
 * within a rule, malformed paths, unknown parents (naming the closest known one), subnet sizes
 * that fit in none of their parents.
 *
 * Guarantees: an injection may name an earlier injection of its rule as its parent (a local id
 * shadows a parent id of the config); an injection with a bad subnet size is not kept (the config
 * has errors then and is not returned).
 *
 * @module
 */
import { bitsOf, type Cidr } from "./cidr.ts"
import { type Check, isObj, type Obj, typeName } from "./configCheck.ts"
import { closest, type Injection, type InjectionRule } from "./configModel.ts"
import { normalizePath } from "./paths.ts"
import { parseSelector } from "./selector.ts"

const RULE_ID = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/

/** A prefix length some family allows: an integer from 0 to 128. */
const isSubnetSize = (v: unknown): v is number =>
  Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 128

/** A parent CIDR of the config, where it was written. */
export interface ParsedParent {
  readonly id: string
  readonly path: string
  readonly cidr: Cidr
}

/** What the injections of one rule share while they are read. */
interface RuleScope {
  readonly spec: Obj
  readonly parsedParents: ReadonlyArray<ParsedParent>
  /** The rule's path and id. */
  readonly rp: string
  readonly id: string
  /** Subnet sizes of the rule's earlier injections, by their id. */
  readonly localSizes: Map<string, number>
  readonly seenPaths: Map<string, string>
  readonly seenIds: Map<string, number>
}

/** The normalized paths of an injection (`path` and `paths`), recording every issue. */
const injectionPaths = (inj: Obj, ip: string, scope: RuleScope, check: Check): Array<string> => {
  const { err, strings } = check
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
    const prev = scope.seenPaths.get(n.path)
    if (prev !== undefined) err(pp, `duplicate path ${n.path} in rule "${scope.id}" (also ${prev})`)
    else {
      scope.seenPaths.set(n.path, pp)
      paths.push(n.path)
    }
  }
  return paths
}

/** Checks the parents of an injection of subnet size `size`; whether the size fits them. */
const checkParents = (
  parents: ReadonlyArray<string>,
  size: number,
  ip: string,
  scope: RuleScope,
  check: Check,
): void => {
  const { err } = check
  const { spec, parsedParents, localSizes } = scope
  // the global parents it may slice from: all without `parents`; else those named, unless
  // an earlier injection of the rule has the same id (the local one is meant)
  const candidates = (
    parents.length === 0
      ? parsedParents
      : parsedParents.filter((p) => parents.includes(p.id) && !localSizes.has(p.id))
  ).map((p) => p.cidr)
  if (parents.length === 0 && parsedParents.length === 0)
    err(`${ip}.parents`, "is empty, so every parent CIDR of spec.parentCIDRs is allowed, but there is none")
  let unknown = false
  parents.forEach((pid, pi) => {
    if (localSizes.has(pid)) return
    if (!(isObj(spec.parentCIDRs) && pid in spec.parentCIDRs)) {
      unknown = true
      const known = [...Object.keys(isObj(spec.parentCIDRs) ? spec.parentCIDRs : {}), ...localSizes.keys()]
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
}

/** Adds one injection of a rule to `into`, unless it is no object or its subnet size is bad. */
const parseInjection = (
  inj: unknown,
  ii: number,
  scope: RuleScope,
  check: Check,
  into: Array<Injection>,
): void => {
  const { err, strict, strings } = check
  const ip = `${scope.rp}.injections[${ii}]`
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
      const prev = scope.seenIds.get(inj.id)
      if (prev !== undefined)
        err(`${ip}.id`, `duplicate injection id "${inj.id}" (also ${scope.rp}.injections[${prev}].id)`)
      scope.seenIds.set(inj.id, ii)
    }
  }
  const paths = injectionPaths(inj, ip, scope, check)
  const parents = strings(inj.parents, `${ip}.parents`)
  const size = inj.subnetSize
  if (!isSubnetSize(size)) {
    err(
      `${ip}.subnetSize`,
      size === undefined ? "is required" : `${JSON.stringify(size)} must be an integer from 0 to 128`,
    )
    return
  }
  checkParents(parents, size, ip, scope, check)
  // Stryker disable next-line ConditionalExpression
  if (injId !== undefined) scope.localSizes.set(injId, size)
  into.push({ id: injId, paths, parents, subnetSize: size })
}

/** The id of the rule `r` at `rp`, recording an id that is no label value or appears twice. */
const ruleId = (r: Obj, rp: string, ri: number, seenRules: Map<string, number>, check: Check): string => {
  const { err } = check
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
  return id
}

/** Adds the rule at index `ri` of `spec.injectionRules` to `into`, unless it is no object. */
export const parseRule = (
  r: unknown,
  ri: number,
  seenRules: Map<string, number>,
  spec: Obj,
  parsedParents: ReadonlyArray<ParsedParent>,
  check: Check,
  into: Array<InjectionRule>,
): void => {
  const { err, strict } = check
  const rp = `spec.injectionRules[${ri}]`
  if (!isObj(r)) {
    err(rp, `must be an object, got ${typeName(r)}`)
    return
  }
  strict(r, rp, ["id", "matchIdentities", "matchPurposes", "matchLabels", "matchExpressions", "injections"])
  const id = ruleId(r, rp, ri, seenRules, check)
  const selector = parseSelector(r, rp, check)
  const injections: Array<Injection> = []
  const scope: RuleScope = {
    spec,
    parsedParents,
    rp,
    id,
    localSizes: new Map(),
    seenPaths: new Map(),
    seenIds: new Map(),
  }
  if (!Array.isArray(r.injections))
    err(
      `${rp}.injections`,
      r.injections === undefined ? "is required" : `must be a list, got ${typeName(r.injections)}`,
    )
  else
    r.injections.forEach((inj, ii) => {
      parseInjection(inj, ii, scope, check, injections)
    })
  into.push({ id, selector, injections })
}
