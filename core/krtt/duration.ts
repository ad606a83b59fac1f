/**
 * Go durations both ways: read as `time.ParseDuration` reads them (flags, `metav1.Duration`
 * fields) and worded as `time.Duration.String()` words them (`10s`, `1m30s`, `1h0m0s`, `250ms`),
 * for log lines that upstream writes with `%s` of a duration. Milliseconds on our side.
 *
 * @module
 */

/** `ms` milliseconds as Go prints a `time.Duration` of that length. */
export const goDuration = (ms: number): string => {
  if (ms === 0) return "0s"
  const sign = ms < 0 ? "-" : ""
  let rest = Math.abs(ms)
  if (rest < 1_000) return `${sign}${rest}ms`
  const hours = Math.floor(rest / 3_600_000)
  rest -= hours * 3_600_000
  const minutes = Math.floor(rest / 60_000)
  rest -= minutes * 60_000
  // seconds with their fraction, trailing zeros dropped (1.5s, 10s)
  const seconds = `${rest / 1_000}s`
  if (hours > 0) return `${sign}${hours}h${minutes}m${seconds}`
  if (minutes > 0) return `${sign}${minutes}m${seconds}`
  return `${sign}${seconds}`
}

const UNITS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
}

/** Parses a Go duration (`metav1.Duration`: `24h`, `1h30m`, `90s`, `0`) to milliseconds. */
export const parseGoDuration = (text: string): number | undefined => {
  if (text === "0") return 0
  const re = /([0-9]+(?:\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h)/y
  let total = 0
  let at = 0
  while (at < text.length) {
    re.lastIndex = at
    const m = re.exec(text)
    if (m === null) return undefined
    total += Number(m[1]) * (UNITS[m[2] as string] as number)
    at = re.lastIndex
  }
  return at === 0 ? undefined : total
}
