/**
 * The IPAM world's checks, independent of the allocator: the CIDRs recorded for a Cluster (its
 * applied-rules annotation and its ClusterConfigs) are CIDRs, allocated in the controller's
 * state, within a parent CIDR, and disjoint from every other Cluster's. `HeldBlocks` keeps every
 * Cluster's maximal recorded blocks sorted by family and address, so that a Cluster's new blocks
 * are compared with their neighbours only.
 *
 * @module
 */
import {
  APPLIED_RULES_ANNOTATION,
  AppliedRulesError,
  allocations,
  type Cidr,
  type ClusterConfigView,
  type ClusterView,
  cidrOf,
  contains,
  type IpamState,
  isCidrError,
  overlaps,
  parseAppliedRules,
  parseCidr,
  type RestoreResult,
} from "../core/ipam/index.ts"

/** The invariants of the IPAM world, by name (the fleet simulator adds them to its checks). */
export const IpamChecks = {
  "ipam-disjoint":
    "CIDRs recorded for different Clusters (applied-rules annotations and ClusterConfigs) never overlap, on every step, and each lies within a parent CIDR of the config (seed 004: allocated CIDRs pairwise disjoint and inside their parents)",
  "ipam-restore":
    "Every recorded CIDR is allocated in the controller's state, and the state rebuilt from annotations and ClusterConfigs alone holds exactly the same CIDRs: a restart loses nothing and changes nothing (upstream docs/controllers/state.md)",
} as const
export type IpamCheck = keyof typeof IpamChecks

interface Held {
  readonly owner: string
  readonly cidr: Cidr
  readonly text: string
}

const key = (c: Cidr) => `${c.family}:${c.base}`

/** CIDRs recorded for one Cluster: its annotation and its ClusterConfigs. */
export const recordedCidrs = (
  c: ClusterView | undefined,
  ccs: Iterable<ClusterConfigView>,
): ReadonlyArray<string> => {
  const out = new Set<string>()
  const parsed = parseAppliedRules(c?.annotations[APPLIED_RULES_ANNOTATION])
  if (!(parsed instanceof AppliedRulesError))
    for (const m of Object.values(parsed)) for (const v of Object.values(m)) out.add(v)
  for (const cc of ccs) {
    for (const p of cc.patches) if (typeof p.value === "string") out.add(p.value)
  }
  return [...out]
}

/** Every Cluster's maximal recorded blocks, sorted by family and address. */
export class HeldBlocks {
  private readonly held: Array<Held> = []
  private readonly heldBy = new Map<string, Array<Held>>()
  private readonly report: (cluster: string, check: IpamCheck, message: string) => void

  constructor(report: (cluster: string, check: IpamCheck, message: string) => void) {
    this.report = report
  }

  /** Checks the CIDRs recorded for `owner` and replaces its blocks with them. */
  check(
    owner: string,
    texts: ReadonlyArray<string>,
    allocated: { has(cidr: string): boolean },
    parents: ReadonlyArray<Cidr>,
  ): void {
    const blocks: Array<Held> = []
    for (const t of texts) {
      const c = parseCidr(t)
      if (isCidrError(c)) {
        this.report(owner, "ipam-disjoint", `recorded value ${t} is not a CIDR`)
        continue
      }
      blocks.push({ owner, cidr: c, text: t })
      if (!allocated.has(t))
        this.report(
          owner,
          "ipam-restore",
          `${t} is recorded for ${owner} but not allocated in the controller's state`,
        )
      const inside =
        parents.some((p) => contains(p, c)) || texts.some((o) => o !== t && contains(cidrOf(o), c))
      if (!inside) this.report(owner, "ipam-disjoint", `${t} of ${owner} lies within no parent CIDR`)
    }
    // maximal blocks only: nested CIDRs of one Cluster are its own business
    const maximal = blocks.filter(
      (b) => !blocks.some((o) => o !== b && contains(o.cidr, b.cidr) && o.cidr.prefix < b.cidr.prefix),
    )
    for (const h of this.heldBy.get(owner) ?? []) {
      const at = this.held.indexOf(h, this.position(h.cidr))
      if (at !== -1) this.held.splice(at, 1)
    }
    this.heldBy.set(owner, maximal)
    if (maximal.length === 0) this.heldBy.delete(owner)
    for (const b of maximal) this.insert(b)
  }

  /** The keys of the held blocks (one per maximal block). */
  keys(): ReadonlyArray<string> {
    return this.held.map((h) => key(h.cidr))
  }

  /** The first index of `held` whose block is not before `c`. */
  private position(c: Cidr): number {
    const cmp = (x: Cidr, y: Cidr) =>
      x.family !== y.family ? x.family - y.family : x.base < y.base ? -1 : x.base > y.base ? 1 : 0
    let lo = 0
    let hi = this.held.length
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (cmp((this.held[mid] as Held).cidr, c) < 0) lo = mid + 1
      else hi = mid
    }
    return lo
  }

  private insert(b: Held): void {
    const lo = this.position(b.cidr)
    for (const n of [this.held[lo - 1], this.held[lo]]) {
      if (n !== undefined && n.owner !== b.owner && overlaps(n.cidr, b.cidr)) {
        this.report(b.owner, "ipam-disjoint", `${b.text} of ${b.owner} overlaps ${n.text} of ${n.owner}`)
      }
    }
    this.held.splice(lo, 0, b)
  }
}

/**
 * How the state rebuilt from annotations and ClusterConfigs alone differs from the live one (at
 * a `refresh` or a `restart`), or `undefined` when it holds exactly the same CIDRs.
 */
export const restoreDifference = (
  why: "refresh" | "restart",
  live: IpamState,
  restored: RestoreResult,
): string | undefined => {
  const liveCidrs = allocations(live)
  const rebuilt = allocations(restored.ipam)
  const liveSet = new Set(liveCidrs)
  const rebuiltSet = new Set(rebuilt)
  const lost = liveCidrs.filter((c) => !rebuiltSet.has(c))
  const added = rebuilt.filter((c) => !liveSet.has(c))
  if (lost.length === 0 && added.length === 0 && restored.conflicts.length === 0) return undefined
  return `the state rebuilt at a ${why} differs: ${lost.length > 0 ? `lost ${lost.slice(0, 5).join(", ")}` : ""}${added.length > 0 ? ` added ${added.slice(0, 5).join(", ")}` : ""}${
    restored.conflicts.length > 0
      ? ` conflicts ${restored.conflicts
          .slice(0, 3)
          .map((c) => `${c.cidr}/${c.with}`)
          .join(", ")}`
      : ""
  }`
}
