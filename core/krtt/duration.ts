/**
 * Durations worded as Go's `time.Duration.String()` words them (`10s`, `1m30s`, `1h0m0s`,
 * `250ms`), for log lines that upstream writes with `%s` of a duration.
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
