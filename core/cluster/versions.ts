/**
 * `status.controlPlane.versions` and `status.workers.versions` (Cluster API v1.14.2,
 * `internal/util/version/version.go` and `internal/contract/controlplane.go`): how many replicas
 * run each Kubernetes version.
 *
 * - A Machine's version is `status.nodeInfo.kubeletVersion` when set, else `spec.version`;
 *   Machines are taken in creation-time order, then by name, and Machines without one are skipped.
 * - Lists are summed per exact version string and sorted: versions that parse (tolerantly) by
 *   semver precedence, build identifiers included; equal versions spelled differently by their
 *   strings (byte order); those that do not parse last, by their strings; anything else (two
 *   different build words) in the order first seen. The order is that of Go's `sort.SliceStable`
 *   (insertion sort in blocks of 20, then SymMerge), so lists whose pairs cannot all be compared
 *   come out as upstream's do.
 * - A control-plane object's `status.versions` is read as upstream's contract reads it: every
 *   version parses, the list never goes down, no replica count is negative.
 *
 * @module
 */
import { compareWithBuild, parseTolerant } from "./semver.ts"
import type { Machine, StatusVersion } from "./types.ts"

/** A version with the position it was first seen at. */
interface Seen {
  readonly version: string
  replicas: number
  readonly order: number
}

/** Byte order of the UTF-8 encodings, which is code-point order (Go's string `<`). */
export const compareStrings = (a: string, b: string): number => {
  const x = [...a]
  const y = [...b]
  for (let i = 0; i < x.length && i < y.length; i++) {
    const d = ((x[i] as string).codePointAt(0) ?? 0) - ((y[i] as string).codePointAt(0) ?? 0)
    if (d !== 0) return d
  }
  return x.length - y.length
}

/** Upstream's order of two versions (see the module doc). */
const less = (i: Seen, j: Seen): boolean => {
  const vi = parseTolerant(i.version)
  const vj = parseTolerant(j.version)
  if (vi !== undefined && vj !== undefined) {
    const c = compareWithBuild(vi, vj)
    if (c === -1) return true
    if (c === 1) return false
    if (c === 0 && i.version !== j.version) return compareStrings(i.version, j.version) < 0
    return i.order < j.order
  }
  if (vi !== undefined) return true
  if (vj !== undefined) return false
  if (i.version !== j.version) return compareStrings(i.version, j.version) < 0
  // Stryker disable next-line ConditionalExpression,EqualityOperator
  return i.order < j.order
}

const sorted = (seen: Array<Seen>): ReadonlyArray<StatusVersion> | undefined => {
  if (seen.length === 0) return undefined
  goStableSort(seen, less)
  return seen.map((s) =>
    s.replicas === 0 ? { version: s.version } : { version: s.version, replicas: s.replicas },
  )
}

/**
 * The versions summed per exact string and sorted; `undefined` when there are none. Entries with
 * an empty version are skipped.
 */
export const aggregateVersions = (
  versions: ReadonlyArray<StatusVersion>,
): ReadonlyArray<StatusVersion> | undefined => {
  const index = new Map<string, Seen>()
  const seen: Array<Seen> = []
  for (const v of versions) {
    if (v.version === "") continue
    const found = index.get(v.version)
    if (found !== undefined) {
      found.replicas += v.replicas ?? 0
      continue
    }
    const s: Seen = { version: v.version, replicas: v.replicas ?? 0, order: seen.length }
    index.set(v.version, s)
    seen.push(s)
  }
  return sorted(seen)
}

/** A Machine's Kubernetes version: its kubelet's once it has a Node, else its spec's. */
export const machineVersion = (m: Machine): string => {
  const kubelet = m.status?.nodeInfo?.kubeletVersion
  return kubelet !== undefined && kubelet !== "" ? kubelet : (m.spec?.version ?? "")
}

/** RFC 3339 to ms; a Machine without a creation time sorts first, as Go's zero time. */
const createdAt = (m: Machine): number => {
  const t = m.metadata.creationTimestamp
  const ms = t === undefined ? Number.NaN : Date.parse(t)
  return Number.isNaN(ms) ? Number.NEGATIVE_INFINITY : ms
}

/** The versions of Machines, one replica each (see the module doc); `undefined` when none. */
export const versionsFromMachines = (
  machines: ReadonlyArray<Machine>,
): ReadonlyArray<StatusVersion> | undefined => {
  const ordered = [...machines].sort((a, b) => {
    const d = createdAt(a) - createdAt(b)
    if (d !== 0 && !Number.isNaN(d)) return d
    return compareStrings(a.metadata.name, b.metadata.name)
  })
  return aggregateVersions(ordered.map((m) => ({ version: machineVersion(m), replicas: 1 })))
}

/** Go's `sort.SliceStable` over an array, in place, with `less`. */
export const goStableSort = <A>(data: Array<A>, lt: (a: A, b: A) => boolean): void => {
  const n = data.length
  const lessAt = (i: number, j: number) => lt(data[i] as A, data[j] as A)
  const swap = (i: number, j: number) => {
    const t = data[i] as A
    data[i] = data[j] as A
    data[j] = t
  }
  const insertion = (a: number, b: number) => {
    for (let i = a + 1; i < b; i++) for (let j = i; j > a && lessAt(j, j - 1); j--) swap(j, j - 1)
  }
  const swapRange = (a: number, b: number, k: number) => {
    for (let i = 0; i < k; i++) swap(a + i, b + i)
  }
  const rotate = (a: number, m: number, b: number) => {
    let i = m - a
    let j = b - m
    while (i !== j) {
      if (i > j) {
        swapRange(m - i, m, j)
        i -= j
      } else {
        swapRange(m - i, m + j - i, i)
        j -= i
      }
    }
    swapRange(m - i, m, i)
  }
  const symMerge = (a: number, m: number, b: number): void => {
    if (m - a === 1) {
      let i = m
      let j = b
      while (i < j) {
        const h = (i + j) >>> 1
        if (lessAt(h, a)) i = h + 1
        else j = h
      }
      for (let k = a; k < i - 1; k++) swap(k, k + 1)
      return
    }
    if (b - m === 1) {
      let i = a
      let j = m
      while (i < j) {
        const h = (i + j) >>> 1
        if (!lessAt(m, h)) i = h + 1
        else j = h
      }
      for (let k = m; k > i; k--) swap(k, k - 1)
      return
    }
    const mid = (a + b) >>> 1
    const total = mid + m
    let start = m > mid ? total - b : a
    let r = m > mid ? mid : m
    const p = total - 1
    while (start < r) {
      const c = (start + r) >>> 1
      if (!lessAt(p - c, c)) start = c + 1
      else r = c
    }
    const end = total - start
    if (start < m && m < end) rotate(start, m, end)
    if (a < start && start < mid) symMerge(a, start, mid)
    if (mid < end && end < b) symMerge(mid, end, b)
  }
  let block = 20
  let a = 0
  let b = block
  for (; b <= n; a = b, b += block) insertion(a, b)
  insertion(a, n)
  for (; block < n; block *= 2) {
    a = 0
    b = 2 * block
    for (; b <= n; a = b, b += 2 * block) symMerge(a, a + block, b)
    if (a + block < n) symMerge(a, a + block, n)
  }
}
