/**
 * The spec's own reading of the IPAM documents, written from upstream's docs (config.md
 * "Selectors", state.md, the CRD field descriptions) and not from core: selector matching, the
 * names of labels and annotations, and a brute-force CIDR model (every aligned block of a
 * parent is tried in address order) that the tables' predicates use to say what must happen.
 *
 * Generated configs keep parents small (at most a few hundred candidate blocks), so brute force
 * is cheap here; core's allocator walks gaps instead.
 *
 * @module
 */
import type { ClusterView, IpamConfigSpec } from "../../core/ipam/index.ts"

export const OP = "openmcp.cloud/operation"
export const APPLIED = "ipam.gardener.clusters.openmcp.cloud/applied-injection-rules"
export const FINALIZER = "ipam.gardener.clusters.openmcp.cloud/cidr-management"
export const RULE_LABEL = "ipam.gardener.clusters.openmcp.cloud/injection-rule"
export const CLUSTER_LABEL = "ipam.gardener.clusters.openmcp.cloud/cluster"
export const MANAGED_BY = "openmcp.cloud/managed-by"
export const PURPOSE = "openmcp.cloud/managed-purpose"
export const ENV = "openmcp.cloud/environment"

type Annotated = { readonly annotations: Readonly<Record<string, string>> }
export const ignored = (o: Annotated) => o.annotations[OP] === "ignore"
export const reconcileAnnotation = (o: Annotated) => o.annotations[OP] === "reconcile"

type Rule = IpamConfigSpec["injectionRules"][number]

/** config.md "Selectors": identities overrule; otherwise purposes, labels and expressions are ANDed. */
export const selects = (rule: Rule, c: ClusterView): boolean => {
  const s = rule.selector
  if (s.matchIdentities !== undefined)
    return s.matchIdentities.some((i) => i.name === c.name && i.namespace === c.namespace)
  const purposes = new Set(c.purposes)
  for (const req of s.matchPurposes) {
    const vals = [...new Set(req.values)]
    const ok =
      req.operator === "ContainsAll"
        ? vals.length > 0 && vals.every((v) => purposes.has(v))
        : req.operator === "ContainsAny"
          ? vals.some((v) => purposes.has(v))
          : req.operator === "ContainsNone"
            ? vals.every((v) => !purposes.has(v))
            : req.operator === "Equals"
              ? vals.length === purposes.size && vals.every((v) => purposes.has(v))
              : false
    if (!ok) return false
  }
  for (const [k, v] of Object.entries(s.matchLabels)) if (c.labels[k] !== v) return false
  for (const e of s.matchExpressions) {
    const has = e.key in c.labels
    const ok =
      e.operator === "In"
        ? has && e.values.includes(c.labels[e.key] as string)
        : e.operator === "NotIn"
          ? !(has && e.values.includes(c.labels[e.key] as string))
          : e.operator === "Exists"
            ? has
            : !has
    if (!ok) return false
  }
  return true
}

export const anyRuleSelects = (config: IpamConfigSpec, c: ClusterView) =>
  config.injectionRules.some((r) => selects(r, c))

// ---- CIDRs, brute force -------------------------------------------------------------------

export interface Block {
  readonly v6: boolean
  readonly first: bigint
  readonly last: bigint
  readonly len: number
}

const v4 = (s: string): bigint => s.split(".").reduce((a, o) => a * 256n + BigInt(o), 0n)
const v6 = (s: string): bigint => {
  const [h = "", t] = s.split("::")
  const hs = h === "" ? [] : h.split(":")
  const ts = t === undefined || t === "" ? [] : t.split(":")
  const groups = t === undefined ? hs : [...hs, ...Array(8 - hs.length - ts.length).fill("0"), ...ts]
  return groups.reduce((a, g) => a * 65536n + BigInt(Number.parseInt(g, 16)), 0n)
}

/** A CIDR text as a block of addresses (the texts here are written canonically by the generators). */
export const block = (cidr: string): Block => {
  const [addr = "", len = "0"] = cidr.split("/")
  const isV6 = addr.includes(":")
  const bits = isV6 ? 128 : 32
  const first = isV6 ? v6(addr) : v4(addr)
  const n = Number(len)
  return { v6: isV6, first, last: first + (1n << BigInt(bits - n)) - 1n, len: n }
}

export const text = (b: Block): string => {
  if (!b.v6) return `${[24n, 16n, 8n, 0n].map((s) => String((b.first >> s) & 255n)).join(".")}/${b.len}`
  const g = Array.from({ length: 8 }, (_, i) => Number((b.first >> BigInt(112 - 16 * i)) & 0xffffn))
  // longest run of zeros (length >= 2) becomes "::"
  let at = -1
  let best = 1
  for (let i = 0; i < 8; i++) {
    let j = i
    while (j < 8 && g[j] === 0) j++
    if (j - i > best) {
      at = i
      best = j - i
    }
  }
  const hex = (xs: number[]) => xs.map((x) => x.toString(16)).join(":")
  return `${at === -1 ? hex(g) : `${hex(g.slice(0, at))}::${hex(g.slice(at + best))}`}/${b.len}`
}

export const meets = (a: Block, b: Block) => a.v6 === b.v6 && a.first <= b.last && b.first <= a.last
export const within = (outer: Block, inner: Block) =>
  outer.v6 === inner.v6 && outer.first <= inner.first && inner.last <= outer.last

/**
 * The first aligned `/len` block of `parent`, in address order, that meets none of `taken`
 * except blocks that contain the parent itself (its ancestors).
 */
export const firstFree = (parent: Block, len: number, taken: ReadonlyArray<Block>): Block | undefined => {
  const bits = parent.v6 ? 128 : 32
  if (len <= parent.len || len > bits) return undefined
  const size = 1n << BigInt(bits - len)
  const inside = taken.filter((t) => meets(t, parent) && !within(t, parent))
  for (let at = parent.first; at + size - 1n <= parent.last; at += size) {
    const cand: Block = { v6: parent.v6, first: at, last: at + size - 1n, len }
    if (!inside.some((t) => meets(t, cand))) return cand
  }
  return undefined
}
