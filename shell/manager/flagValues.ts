/**
 * The flags' values read as pflag reads them, each reader naming its flag in the `FlagError` it
 * throws, and the "did you mean" of an unknown name.
 *
 * @module
 */
import { parseGoDuration } from "../../core/krtt/duration.ts"
import { UpstreamFeatureGates, UpstreamFlags } from "./flagTable.ts"

/** A command line krtt refuses: the message names the flag. Exit code 2. */
export class FlagError extends Error {
  override readonly name = "FlagError"
}

/** Levenshtein distance, for "did you mean". */
const distance = (a: string, b: string): number => {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0] as number
    row[0] = i
    for (let j = 1; j <= b.length; j++) {
      const cur = row[j] as number
      row[j] = Math.min(
        (row[j] as number) + 1,
        (row[j - 1] as number) + 1,
        prev + (a[i - 1] === b[j - 1] ? 0 : 1),
      )
      prev = cur
    }
  }
  return row[b.length] as number
}

/** The known name closest to `name`. */
export const closestFlag = (
  name: string,
  names: Iterable<string> = UpstreamFlags.map((s) => s.name),
): string => {
  let best = ""
  let bestD = Number.POSITIVE_INFINITY
  for (const n of names) {
    const d = distance(name, n)
    if (d < bestD) {
      best = n
      bestD = d
    }
  }
  return best
}

const BOOL = /^(true|false|1|0|t|f|TRUE|FALSE|True|False|T|F)$/

export const readBool = (flag: string, v: string): boolean => {
  if (!BOOL.test(v))
    throw new FlagError(`invalid argument "${v}" for --${flag}: not a boolean (true or false)`)
  return /^(true|1|t)$/i.test(v)
}

export const readInt = (flag: string, v: string): number => {
  if (!/^[+-]?\d+$/.test(v)) throw new FlagError(`invalid argument "${v}" for --${flag}: not an integer`)
  return Number(v)
}

export const readFloat = (flag: string, v: string): number => {
  const n = Number(v)
  if (v.trim() === "" || !Number.isFinite(n))
    throw new FlagError(`invalid argument "${v}" for --${flag}: not a number`)
  return n
}

/** Go's time.ParseDuration: `300ms`, `1.5h`, `2h45m`, `10m0s`, `0`. Milliseconds. */
export const readDuration = (flag: string, v: string): number => {
  const ms = parseGoDuration(v)
  if (ms === undefined)
    throw new FlagError(`invalid argument "${v}" for --${flag}: not a duration (e.g. 500ms, 10s, 5m, 1h30m)`)
  return ms
}

/**
 * pflag's int32 list: comma-separated, each item an integer literal as Go's
 * `strconv.ParseInt(item, 0, 32)` reads it (decimal, `0x`/`0o`/`0b` or a leading `0` for octal,
 * an optional sign, `_` between digits), within int32's range. Items are not trimmed.
 */
export const readInt32List = (flag: string, v: string): ReadonlyArray<number> =>
  v.split(",").map((item) => {
    const g = GO_INT.exec(item)?.groups
    if (g === undefined)
      throw new FlagError(`invalid argument "${v}" for --${flag}: "${item}" is not an integer`)
    const [digits, base] =
      g.hex !== undefined
        ? [g.hex, 16]
        : g.bin !== undefined
          ? [g.bin, 2]
          : g.dec !== undefined
            ? [g.dec, 10]
            : [g.oct ?? g.zero ?? "", 8]
    const magnitude = digits === "" ? 0 : Number.parseInt(digits.replaceAll("_", ""), base)
    const n = g.sign === "-" ? -magnitude : magnitude
    if (n < -(2 ** 31) || n > 2 ** 31 - 1)
      throw new FlagError(`invalid argument "${v}" for --${flag}: ${item} is out of the range of int32`)
    return n
  })

/** Go's integer literals as `strconv.ParseInt` with base 0 reads them. */
const GO_INT =
  /^(?<sign>[+-]?)(?:0[xX](?<hex>(?:_?[0-9a-fA-F])+)|0[bB](?<bin>(?:_?[01])+)|0[oO](?<oct>(?:_?[0-7])+)|0(?<zero>(?:_?[0-7])*)|(?<dec>[1-9](?:_?[0-9])*))$/

export const readList = (v: string): ReadonlyArray<string> =>
  v
    .split(",")
    .map((x) => x.trim())
    .filter((x) => x !== "")

/** `--feature-gates`: known gates only, values true or false. */
export const readFeatureGates = (v: string): Readonly<Record<string, boolean>> => {
  const out: Record<string, boolean> = {}
  for (const item of readList(v)) {
    const [name = "", setting = ""] = item.split("=").map((x) => x.trim())
    if (!(name in UpstreamFeatureGates))
      throw new FlagError(
        `invalid argument "${item}" for --feature-gates: unrecognized feature gate ${name} (did you mean ${closestFlag(name, Object.keys(UpstreamFeatureGates))}?)`,
      )
    if (!BOOL.test(setting))
      throw new FlagError(`invalid argument "${item}" for --feature-gates: ${name} must be true or false`)
    out[name] = readBool("feature-gates", setting)
  }
  return out
}
