/**
 * CIDRs of both address families as plain data, with bigint arithmetic: parsing (strict),
 * canonical text (RFC 5952 for IPv6), containment and overlap.
 *
 * Upstream's allocator (go-ipam) handles IPv4 in the IPAM platform service; this module gives
 * IPv6 the same treatment: an address is a bigint of 32 or 128 bits.
 *
 * @module
 */
import * as Data from "effect/Data"

/** One CIDR: the family, the first address and the prefix length. Host bits are zero. */
export interface Cidr {
  readonly family: 4 | 6
  /** The network address as an unsigned integer of 32 (IPv4) or 128 (IPv6) bits. */
  readonly base: bigint
  /** The part after the `/`. */
  readonly prefix: number
}

/** A text that is not a CIDR, and why, in words. */
export class MalformedCidrError extends Data.TaggedError("MalformedCidrError")<{
  readonly text: string
  readonly reason: string
}> {
  override get message(): string {
    return `"${this.text}" is not a CIDR: ${this.reason}`
  }
}

/** Address bits of a family: 32 or 128. */
export const bitsOf = (family: 4 | 6): number => (family === 4 ? 32 : 128)

/** Number of addresses of a CIDR. */
export const sizeOf = (c: Cidr): bigint => 1n << BigInt(bitsOf(c.family) - c.prefix)

/** The last address of a CIDR. */
export const lastOf = (c: Cidr): bigint => c.base + sizeOf(c) - 1n

const parseV4 = (text: string): bigint | undefined => {
  const parts = text.split(".")
  if (parts.length !== 4) return undefined
  let v = 0n
  for (const p of parts) {
    if (!/^(0|[1-9][0-9]{0,2})$/.test(p)) return undefined
    const n = Number(p)
    if (n > 255) return undefined
    v = (v << 8n) | BigInt(n)
  }
  return v
}

const parseV6 = (text: string): bigint | undefined => {
  const halves = text.split("::")
  if (halves.length > 2) return undefined
  // an empty group (`1:::2`, `:1::`) is refused below by the group's own pattern
  const groups = (s: string): Array<string> => (s === "" ? [] : s.split(":"))
  const head = groups(halves[0] as string)
  const tail = groups(halves[1] ?? "")
  // an embedded IPv4 address in the last group counts as two groups
  const expand = (g: Array<string>): Array<number> | undefined => {
    const out: Array<number> = []
    for (let i = 0; i < g.length; i++) {
      const x = g[i] as string
      if (x.includes(".")) {
        if (i !== g.length - 1) return undefined
        const v4 = parseV4(x)
        if (v4 === undefined) return undefined
        out.push(Number(v4 >> 16n), Number(v4 & 0xffffn))
      } else {
        if (!/^[0-9a-fA-F]{1,4}$/.test(x)) return undefined
        out.push(Number.parseInt(x, 16))
      }
    }
    return out
  }
  const h = expand(head)
  const t = expand(tail)
  if (h === undefined || t === undefined) return undefined
  if (halves.length === 2 && (head.some((x) => x.includes(".")) || h.length + t.length > 7)) return undefined
  if (halves.length === 1 && h.length !== 8) return undefined
  const all = [...h, ...Array.from({ length: 8 - h.length - t.length }, () => 0), ...t]
  return all.reduce((acc, g) => (acc << 16n) | BigInt(g), 0n)
}

/**
 * Parses `a.b.c.d/n` or an IPv6 `x:y::z/n`. Strict: decimal octets without leading zeros, a
 * prefix length within the family's bits, and no host bits set (`10.0.0.1/24` is refused,
 * naming `10.0.0.0/24`).
 */
export const parseCidr = (text: string): Cidr | MalformedCidrError => {
  const bad = (why: string) => new MalformedCidrError({ text, reason: why })
  if (typeof text !== "string") return bad("not a string")
  const slash = text.indexOf("/")
  if (slash === -1) return bad("the prefix length after '/' is missing")
  const addr = text.slice(0, slash)
  const len = text.slice(slash + 1)
  const family: 4 | 6 = addr.includes(":") ? 6 : 4
  const base = family === 4 ? parseV4(addr) : parseV6(addr)
  if (base === undefined) return bad(`"${addr}" is not an IPv${family} address`)
  if (!/^(0|[1-9][0-9]{0,2})$/.test(len)) return bad(`"${len}" is not a prefix length`)
  const prefix = Number(len)
  if (prefix > bitsOf(family)) return bad(`the prefix length ${prefix} exceeds ${bitsOf(family)}`)
  const host = (1n << BigInt(bitsOf(family) - prefix)) - 1n
  if ((base & host) !== 0n) {
    return bad(`host bits are set; the network is ${formatCidr({ family, base: base & ~host, prefix })}`)
  }
  return { family, base, prefix }
}

/** Whether a parse result is an error. */
export const isCidrError = (c: Cidr | MalformedCidrError): c is MalformedCidrError =>
  c instanceof MalformedCidrError

/** Parses or throws: for texts this program wrote itself (allocations it made). */
export const cidrOf = (text: string): Cidr => {
  const c = parseCidr(text)
  if (isCidrError(c)) throw c
  return c
}

/** The text of an address. IPv6 follows RFC 5952: lower case, the longest run of zeros as `::`. */
export const formatAddress = (family: 4 | 6, v: bigint): string => {
  if (family === 4) return [24n, 16n, 8n, 0n].map((s) => String((v >> s) & 0xffn)).join(".")
  const g = Array.from({ length: 8 }, (_, i) => Number((v >> BigInt(112 - 16 * i)) & 0xffffn))
  // the first of the longest runs of zero groups, if longer than one group (RFC 5952, 4.2.2-4.2.3)
  let bestAt = -1
  let bestLen = 1
  let runAt = -1
  g.forEach((x, i) => {
    if (x !== 0) {
      runAt = -1
      return
    }
    if (runAt === -1) runAt = i
    if (i - runAt + 1 > bestLen) {
      bestAt = runAt
      bestLen = i - runAt + 1
    }
  })
  const hex = (xs: Array<number>) => xs.map((x) => x.toString(16)).join(":")
  if (bestAt === -1) return hex(g)
  return `${hex(g.slice(0, bestAt))}::${hex(g.slice(bestAt + bestLen))}`
}

/** The canonical text of a CIDR. */
export const formatCidr = (c: Cidr): string => `${formatAddress(c.family, c.base)}/${c.prefix}`

/** Whether `inner` lies within `outer` (equal counts). */
export const contains = (outer: Cidr, inner: Cidr): boolean =>
  outer.family === inner.family && inner.base >= outer.base && lastOf(inner) <= lastOf(outer)

/** Whether two CIDRs share an address. */
export const overlaps = (a: Cidr, b: Cidr): boolean =>
  a.family === b.family && a.base <= lastOf(b) && b.base <= lastOf(a)

/** Orders CIDRs by family, then address, then prefix length. */
export const compareCidr = (a: Cidr, b: Cidr): number =>
  a.family !== b.family
    ? a.family - b.family
    : a.base < b.base
      ? -1
      : a.base > b.base
        ? 1
        : a.prefix - b.prefix
