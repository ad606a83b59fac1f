/**
 * Semantic versions as Cluster API v1.14.2 reads Kubernetes versions: blang/semver's strict
 * `Parse` and tolerant `ParseTolerant` (a leading `v`, surrounding white space, leading zeros and
 * a missing minor or patch are accepted), and `util/version.Compare` with build tags: standard
 * semver precedence first, then build identifiers left to right (numbers numerically and below
 * words, two different words incomparable, more identifiers greater when the rest is equal).
 *
 * Numbers are unsigned 64-bit integers, as in Go: a component beyond 2^64-1 does not parse.
 *
 * @module
 */

/** A parsed version. Pre-release identifiers are numbers (bigint) or words. */
export interface SemVer {
  readonly major: bigint
  readonly minor: bigint
  readonly patch: bigint
  readonly pre: ReadonlyArray<bigint | string>
  readonly build: ReadonlyArray<string>
}

const U64_MAX = (1n << 64n) - 1n
const DIGITS = /^[0-9]*$/
const ALPHANUM = /^[0-9A-Za-z-]*$/
/** Go's `unicode.IsSpace`, which `strings.TrimSpace` trims. */
const GO_SPACE = "[\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]+"
const TRIM = new RegExp(`^${GO_SPACE}|${GO_SPACE}$`, "g")

const leadingZero = (s: string): boolean => s.length > 1 && s[0] === "0"

/** `strconv.ParseUint(s, 10, 64)`: digits only (checked by the caller), at most 2^64-1. */
const u64 = (s: string): bigint | undefined => {
  if (s === "") return undefined
  const n = BigInt(s)
  return n > U64_MAX ? undefined : n
}

const numeric = (s: string): bigint | undefined => (DIGITS.test(s) && !leadingZero(s) ? u64(s) : undefined)

/** blang/semver's `Parse`: `MAJOR.MINOR.PATCH[-pre][+build]`, strictly. */
export const parseStrict = (s: string): SemVer | undefined => {
  // Stryker disable next-line StringLiteral
  if (s === "") return undefined
  const [maj, min, rest, ...extra] = splitN(s, 3)
  if (maj === undefined || min === undefined || rest === undefined || extra.length > 0) return undefined
  const major = numeric(maj)
  const minor = numeric(min)
  if (major === undefined || minor === undefined) return undefined
  let patchStr = rest
  let build: Array<string> = []
  let pre: Array<string> = []
  const plus = patchStr.indexOf("+")
  if (plus !== -1) {
    build = patchStr.slice(plus + 1).split(".")
    patchStr = patchStr.slice(0, plus)
  }
  const dash = patchStr.indexOf("-")
  if (dash !== -1) {
    pre = patchStr.slice(dash + 1).split(".")
    patchStr = patchStr.slice(0, dash)
  }
  const patch = numeric(patchStr)
  if (patch === undefined) return undefined
  const parsedPre: Array<bigint | string> = []
  for (const p of pre) {
    // Stryker disable next-line StringLiteral
    if (p === "") return undefined
    if (DIGITS.test(p)) {
      const n = numeric(p)
      if (n === undefined) return undefined
      parsedPre.push(n)
    } else if (ALPHANUM.test(p)) parsedPre.push(p)
    else return undefined
  }
  for (const b of build) if (b === "" || !ALPHANUM.test(b)) return undefined
  return { major, minor, patch, pre: parsedPre, build }
}

/** Go's `strings.SplitN(s, ".", n)`. */
const splitN = (s: string, n: number): Array<string> => {
  const parts = s.split(".")
  return parts.length <= n ? parts : [...parts.slice(0, n - 1), parts.slice(n - 1).join(".")]
}

/** blang/semver's `ParseTolerant`. */
export const parseTolerant = (input: string): SemVer | undefined => {
  let s = input.replace(TRIM, "")
  if (s.startsWith("v")) s = s.slice(1)
  const parts = splitN(s, 3).map((p) => {
    if (p.length <= 1) return p
    const t = p.replace(/^0+/, "")
    return t === "" || !/^[0-9]/.test(t) ? `0${t}` : t
  })
  if (parts.length < 3) {
    if (/[+-]/.test(parts[parts.length - 1] as string)) return undefined
    while (parts.length < 3) parts.push("0")
  }
  return parseStrict(parts.join("."))
}

const cmp = <A extends bigint | number | string>(a: A, b: A): -1 | 0 | 1 => (a < b ? -1 : a > b ? 1 : 0)

/** Standard semver precedence: build metadata ignored. */
export const compareSemVer = (a: SemVer, b: SemVer): -1 | 0 | 1 => {
  const core = cmp(a.major, b.major) || cmp(a.minor, b.minor) || cmp(a.patch, b.patch)
  if (core !== 0) return core
  if (a.pre.length === 0 || b.pre.length === 0)
    return a.pre.length === b.pre.length ? 0 : a.pre.length === 0 ? 1 : -1
  for (let i = 0; i < a.pre.length && i < b.pre.length; i++) {
    const x = a.pre[i] as bigint | string
    const y = b.pre[i] as bigint | string
    if (typeof x !== typeof y) return typeof x === "bigint" ? -1 : 1
    const c = cmp(x, y)
    if (c !== 0) return c
  }
  return cmp(a.pre.length, b.pre.length)
}

/**
 * `util/version.Compare(a, b, WithBuildTags())`: -1, 0, 1, or 2 when two build identifiers are
 * different words, whose order cannot be told.
 */
export const compareWithBuild = (a: SemVer, b: SemVer): -1 | 0 | 1 | 2 => {
  const c = compareSemVer(a, b)
  if (c !== 0) return c
  const n = Math.min(a.build.length, b.build.length)
  for (let i = 0; i < n; i++) {
    const x = buildId(a.build[i] as string)
    const y = buildId(b.build[i] as string)
    if (typeof x !== typeof y) return typeof x === "bigint" ? -1 : 1
    if (typeof x === "bigint") {
      const d = cmp(x, y)
      if (d !== 0) return d
    } else if (x !== y) return 2
  }
  return cmp(a.build.length, b.build.length)
}

/** A build identifier: digits are a number (`ParseUint`; beyond 2^64-1 it saturates), else a word. */
const buildId = (s: string): bigint | string => {
  if (!DIGITS.test(s)) return s
  const n = BigInt(s)
  return n > U64_MAX ? U64_MAX : n
}
