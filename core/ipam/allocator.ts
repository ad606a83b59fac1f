/**
 * The CIDR allocator as a pure data structure: parent prefixes, allocations sliced from them
 * (an allocation may itself be the parent of later ones, as an injection's `id` allows), acquire
 * the lowest free block of a size, acquire a specific block (restoring state), release.
 *
 * Every operation returns a new state and leaves its argument untouched; nothing throws for a
 * full parent: `acquire` answers `Exhausted`.
 *
 * Guarantees: the allocations with the same parent are pairwise disjoint and inside it; an
 * allocation never overlaps an allocation whose parent is gone from the config (kept as
 * "parentless" until released); the same inputs give the same CIDRs (lowest address first).
 *
 * @module
 */
import { type Cidr, compareCidr, contains, formatCidr, lastOf, overlaps, sizeOf } from "./cidr.ts"
import { LayeredMap } from "./layered.ts"

/** One allocated CIDR. */
export interface Allocation {
  readonly cidr: Cidr
  /** Canonical text of the prefix it was sliced from; `undefined` when that parent is unknown. */
  readonly parent: string | undefined
}

/** The allocator's state. Keys are canonical CIDR texts. */
export interface IpamState {
  /** The parent prefixes of the config. */
  readonly parents: ReadonlyMap<string, Cidr>
  /** Every allocated CIDR. */
  readonly allocated: ReadonlyMap<string, Allocation>
  /** Direct children of a parent or allocation, sorted by address; key `""` holds the parentless. */
  readonly children: ReadonlyMap<string, ReadonlyArray<Cidr>>
  /**
   * A hint, by the same keys as `children`: the first `n` children cover their parent from its
   * first address on without a gap, so the search for a free block starts after them. Absent
   * means 0 (search from the start); always safe to drop.
   */
  readonly dense?: ReadonlyMap<string, number>
}

/** An allocator without parents or allocations. */
export const emptyIpam: IpamState = { parents: new Map(), allocated: new Map(), children: new Map() }

/** The outcome of `acquire`. */
export type AcquireResult =
  | { readonly _tag: "Acquired"; readonly state: IpamState; readonly cidr: string }
  /** The parent has no free block of that size. */
  | { readonly _tag: "Exhausted"; readonly parent: string; readonly prefix: number }
  /** The parent is neither a registered parent nor an allocation. */
  | { readonly _tag: "UnknownParent"; readonly parent: string }
  /** The requested block is not smaller than the parent, or of another family. */
  | { readonly _tag: "DoesNotFit"; readonly parent: string; readonly prefix: number }

/** The outcome of `acquireSpecific`. */
export type AcquireSpecificResult =
  | { readonly _tag: "Acquired"; readonly state: IpamState; readonly cidr: string }
  /** The block overlaps an allocation of the same parent (or a parentless one): `with` names it. */
  | { readonly _tag: "Conflict"; readonly cidr: string; readonly with: string }

const insertSorted = (list: ReadonlyArray<Cidr>, c: Cidr): ReadonlyArray<Cidr> => {
  let lo = 0
  let hi = list.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    // Stryker disable next-line EqualityOperator
    if (compareCidr(list[mid] as Cidr, c) < 0) lo = mid + 1
    else hi = mid
  }
  return [...list.slice(0, lo), c, ...list.slice(lo)]
}

const prefixOf = (state: IpamState, key: string): Cidr | undefined =>
  state.parents.get(key) ?? state.allocated.get(key)?.cidr

/**
 * Allocations that a new child of `parent` must not overlap, sorted by address: its own children
 * and, for a registered parent, the parentless allocations that overlap it. (The children of an
 * allocation only meet each other: anything else overlapping it would already be a clash.)
 */
const blockedIn = (state: IpamState, parentKey: string, parent: Cidr): ReadonlyArray<Cidr> => {
  const own = state.children.get(parentKey) ?? []
  if (!state.parents.has(parentKey)) return own
  // Stryker disable next-line ArrayDeclaration,MethodExpression
  const loose = (state.children.get("") ?? []).filter((c) => overlaps(c, parent))
  // Stryker disable next-line ConditionalExpression
  return loose.length === 0 ? own : [...own, ...loose].sort(compareCidr)
}

/** Registers parent prefixes (keeps those already there). */
export const withParents = (state: IpamState, parents: ReadonlyArray<Cidr>): IpamState => {
  const next = new Map(state.parents)
  for (const p of parents) next.set(formatCidr(p), p)
  return { ...state, parents: next }
}

/**
 * Replaces the registered parents. Allocations sliced from a parent that is gone become
 * parentless: they stay allocated and block their addresses for every parent that overlaps
 * them (upstream: "already assigned CIDRs are not revoked if their parent network is removed").
 */
export const reconfigure = (state: IpamState, parents: ReadonlyArray<Cidr>): IpamState => {
  const nextParents = new Map(parents.map((p) => [formatCidr(p), p] as const))
  let s: IpamState = { ...state, parents: nextParents }
  for (const key of state.parents.keys()) {
    if (nextParents.has(key)) continue
    const orphans = state.children.get(key) ?? []
    // Stryker disable next-line ConditionalExpression
    if (orphans.length === 0) continue
    const children = new Map(s.children)
    const allocated = new Map(s.allocated)
    children.delete(key)
    let loose = children.get("") ?? []
    for (const o of orphans) {
      loose = insertSorted(loose, o)
      allocated.set(formatCidr(o), { cidr: o, parent: undefined })
    }
    children.set("", loose)
    s = { ...s, children, allocated }
  }
  return s
}

const endOf = (c: Cidr): bigint => c.base + (1n << BigInt((c.family === 4 ? 32 : 128) - c.prefix))

/** The dense hint of a list after a change at index `at` (the run is re-extended from there). */
const denseAfter = (state: IpamState, list: string, children: ReadonlyArray<Cidr>, at: number): number => {
  const owner = state.parents.get(list) ?? state.allocated.get(list)?.cidr
  if (owner === undefined) return 0
  let k = Math.min(state.dense?.get(list) ?? 0, at)
  let end = k === 0 ? owner.base : endOf(children[k - 1] as Cidr)
  while (k < children.length && (children[k] as Cidr).base === end) {
    end = endOf(children[k] as Cidr)
    k++
  }
  return k
}

const add = (state: IpamState, parentKey: string | undefined, c: Cidr): IpamState => {
  const key = formatCidr(c)
  const list = parentKey ?? ""
  const siblings = insertSorted(state.children.get(list) ?? [], c)
  const at = siblings.indexOf(c)
  const allocated = LayeredMap.of(state.allocated).with(key, { cidr: c, parent: parentKey })
  const children = LayeredMap.of(state.children).with(list, siblings)
  const dense = LayeredMap.of(state.dense ?? new Map<string, number>()).with(
    list,
    denseAfter({ ...state, allocated }, list, siblings, at),
  )
  return { ...state, allocated, children, dense }
}

/**
 * Acquires the lowest free block of `/prefix` inside `parent` (a registered parent or an
 * allocation, by canonical text).
 */
export const acquire = (state: IpamState, parent: string, prefix: number): AcquireResult => {
  const p = prefixOf(state, parent)
  if (p === undefined) return { _tag: "UnknownParent", parent }
  const bits = p.family === 4 ? 32 : 128
  if (prefix <= p.prefix || prefix > bits) return { _tag: "DoesNotFit", parent, prefix }
  const size = 1n << BigInt(bits - prefix)
  const mask = ~(size - 1n)
  const blocked = blockedIn(state, parent, p)
  // start after the run of children that covers the parent from its start without a gap (the
  // hint holds for the parent's own children only: not when parentless blocks meet it)
  // Stryker disable next-line ArrayDeclaration,LogicalOperator
  const own = state.children.get(parent) ?? []
  // Stryker disable next-line ConditionalExpression,EqualityOperator
  const k = blocked === own ? Math.min(state.dense?.get(parent) ?? 0, own.length) : 0
  let candidate = k === 0 ? p.base : (endOf(own[k - 1] as Cidr) + size - 1n) & mask
  for (let i = k; i < blocked.length; i++) {
    const b = blocked[i] as Cidr
    if (candidate + size <= b.base) break
    // the first aligned address after b (blocks are aligned CIDRs: base + size of b)
    const after = b.base + (1n << BigInt(bits - b.prefix))
    // Stryker disable next-line ConditionalExpression,EqualityOperator
    if (after > candidate) candidate = (after + size - 1n) & mask
  }
  if (candidate + size - 1n > lastOf(p)) return { _tag: "Exhausted", parent, prefix }
  const cidr: Cidr = { family: p.family, base: candidate, prefix }
  return { _tag: "Acquired", state: add(state, parent, cidr), cidr: formatCidr(cidr) }
}

/**
 * The parent a block that is already in use is recorded under: `parent` when its prefix (none
 * without a parent, or for an unknown one) holds the block, strictly larger; else none: a block
 * outside its named parent is recorded parentless.
 */
const holder = (parent: string | undefined, prefix: Cidr | undefined, c: Cidr): string | undefined =>
  prefix !== undefined && contains(prefix, c) && prefix.prefix < c.prefix ? parent : undefined

/**
 * Records a block that is already in use (restoring state from the cluster): under `parent`
 * when given and it holds the block, parentless otherwise (a parentless block blocks every
 * parent that overlaps it). Acquiring a block already recorded under the same parent
 * is a no-op.
 */
export const acquireSpecific = (
  state: IpamState,
  parent: string | undefined,
  cidr: Cidr,
): AcquireSpecificResult => {
  const key = formatCidr(cidr)
  // Stryker disable next-line ConditionalExpression
  const under = holder(parent, parent === undefined ? undefined : prefixOf(state, parent), cidr)
  const existing = state.allocated.get(key)
  if (existing !== undefined && existing.parent === under) return { _tag: "Acquired", state, cidr: key }
  // Under a parent that holds it: the parent's children, and for a registered parent every
  // parentless block (IpamBuilder checks the same); parentless: every block.
  const siblings =
    under === undefined
      ? [...state.children.values()].flat()
      : [
          // Stryker disable next-line ArrayDeclaration
          ...(state.children.get(under) ?? []),
          // Stryker disable next-line ArrayDeclaration
          ...(state.parents.has(under) ? (state.children.get("") ?? []) : []),
        ]
  const clash = siblings.find((c) => overlaps(c, cidr))
  if (clash !== undefined) return { _tag: "Conflict", cidr: key, with: formatCidr(clash) }
  return { _tag: "Acquired", state: add(state, under, cidr), cidr: key }
}

/** Releases an allocation and everything sliced from it. Releasing what is not allocated is a no-op. */
export const release = (state: IpamState, cidr: string): IpamState => {
  const a = state.allocated.get(cidr)
  if (a === undefined) return state
  let allocated = LayeredMap.of(state.allocated)
  let children = LayeredMap.of(state.children)
  let dense = LayeredMap.of(state.dense ?? new Map<string, number>())
  const drop = (key: string) => {
    allocated = allocated.without(key)
    for (const c of children.get(key) ?? []) drop(formatCidr(c))
    children = children.without(key)
    dense = dense.without(key)
  }
  drop(cidr)
  const list = a.parent ?? ""
  // Stryker disable next-line ArrayDeclaration
  const before = children.get(list) ?? []
  const at = before.findIndex((c) => formatCidr(c) === cidr)
  const siblings = before.filter((_, i) => i !== at)
  // Stryker disable next-line ConditionalExpression
  if (siblings.length === 0) {
    children = children.without(list)
    dense = dense.without(list)
  } else {
    children = children.with(list, siblings)
    // the run of blocks without a gap ends where the released block was, at the latest
    // Stryker disable next-line ConditionalExpression,EqualityOperator
    if (at !== -1 && at < (dense.get(list) ?? 0)) dense = dense.with(list, at)
  }
  return { ...state, allocated, children, dense }
}

/** Releases several allocations. */
export const releaseAll = (state: IpamState, cidrs: ReadonlyArray<string>): IpamState =>
  cidrs.reduce(release, state)

/** Every allocated CIDR, sorted. */
export const allocations = (state: IpamState): ReadonlyArray<string> =>
  [...state.allocated.values()]
    .map((a) => a.cidr)
    .sort(compareCidr)
    .map(formatCidr)

/** Addresses allocated directly from a registered parent, and the addresses still free in it. */
export interface ParentUsage {
  readonly parent: string
  readonly allocated: bigint
  readonly free: bigint
}

/** Usage of every registered parent, for metrics (allocated and free space per parent). */
export const usage = (state: IpamState): ReadonlyArray<ParentUsage> =>
  [...state.parents.entries()]
    .sort(([, a], [, b]) => compareCidr(a, b))
    .map(([key, p]) => {
      const used = blockedIn(state, key, p).reduce((n, c) => {
        // Stryker disable next-line EqualityOperator
        const from = c.base > p.base ? c.base : p.base
        // Stryker disable next-line EqualityOperator
        const to = lastOf(c) < lastOf(p) ? lastOf(c) : lastOf(p)
        // Stryker disable next-line ConditionalExpression
        return to >= from ? n + (to - from + 1n) : n
      }, 0n)
      return { parent: key, allocated: used, free: sizeOf(p) - used }
    })

/**
 * Builds a state from many allocations at once, as a restore does: the maps are filled in place
 * and handed out as a new state by `done()`, so n allocations cost O(n log n) rather than n
 * copies. The state it started from is not touched. Conflicts are answered as `acquireSpecific`
 * answers them.
 */
export class IpamBuilder {
  private readonly parents: Map<string, Cidr>
  private readonly allocated: Map<string, Allocation>
  private readonly children: Map<string, Array<Cidr>>

  constructor(from: IpamState) {
    this.parents = new Map(from.parents)
    this.allocated = new Map(from.allocated)
    this.children = new Map([...from.children].map(([k, v]) => [k, [...v]]))
  }

  /** The neighbours of `c` in a sorted list that overlap it (siblings are disjoint: two at most). */
  private clashIn(list: ReadonlyArray<Cidr>, c: Cidr): { at: number; clash: Cidr | undefined } {
    let lo = 0
    let hi = list.length
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      // Stryker disable next-line EqualityOperator
      if (compareCidr(list[mid] as Cidr, c) < 0) lo = mid + 1
      else hi = mid
    }
    const prev = list[lo - 1]
    const next = list[lo]
    const clash =
      prev !== undefined && overlaps(prev, c)
        ? prev
        : next !== undefined && overlaps(next, c)
          ? next
          : undefined
    return { at: lo, clash }
  }

  /** `acquireSpecific`, in place. */
  acquireSpecific(parent: string | undefined, cidr: Cidr): "Acquired" | { readonly conflict: string } {
    const key = formatCidr(cidr)
    const under = holder(
      parent,
      // Stryker disable next-line ConditionalExpression
      parent === undefined ? undefined : (this.parents.get(parent) ?? this.allocated.get(parent)?.cidr),
      cidr,
    )
    const existing = this.allocated.get(key)
    if (existing !== undefined && existing.parent === under) return "Acquired"
    const list = under ?? ""
    let clash: Cidr | undefined
    if (under === undefined) {
      for (const a of this.allocated.values()) if (overlaps(a.cidr, cidr)) clash = a.cidr
    } else {
      // Stryker disable next-line ArrayDeclaration
      clash = this.clashIn(this.children.get(list) ?? [], cidr).clash
      if (clash === undefined && this.parents.has(list))
        // Stryker disable next-line ArrayDeclaration
        clash = (this.children.get("") ?? []).find((c) => overlaps(c, cidr))
    }
    if (clash !== undefined) return { conflict: formatCidr(clash) }
    const siblings = this.children.get(list) ?? []
    siblings.splice(this.clashIn(siblings, cidr).at, 0, cidr)
    this.children.set(list, siblings)
    this.allocated.set(key, { cidr, parent: under })
    return "Acquired"
  }

  /** The state built so far. */
  done(): IpamState {
    return {
      parents: new Map(this.parents),
      allocated: new Map(this.allocated),
      children: new Map(this.children),
    }
  }
}
