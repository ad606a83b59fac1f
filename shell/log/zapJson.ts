/**
 * `--logging-format=json`: one JSON object per line in the shape Cluster API's managers write
 * (Kubernetes component-base's JSON format, a zap encoder): `ts` (milliseconds since the epoch,
 * with a fraction), `msg`, `v` (the verbosity, absent on errors), then the key-value pairs in
 * the order they were added, the failure under `err`. Objects stay objects, so
 * `"Cluster":{"name":"c1","namespace":"fleet"}` is what a pipeline reads, as from upstream.
 *
 * @module
 */
import { isErrorLevel, type LogRecord, verbosityOf } from "./record.ts"

/** A value as zap encodes it: strings, numbers, booleans and objects as JSON; anything else as text. */
const jsonValue = (value: unknown): unknown => {
  if (value === undefined) return null
  if (typeof value === "bigint" || typeof value === "symbol" || typeof value === "function")
    return String(value)
  if (value instanceof Error) return value.message
  return value
}

/** One line of the JSON format (no newline). */
export const formatZapJson = (record: LogRecord): string => {
  const entry: Record<string, unknown> = { ts: record.time.getTime(), msg: record.message }
  if (!isErrorLevel(record.level)) entry.v = verbosityOf(record.level)
  for (const [key, value] of record.fields) if (!(key in entry)) entry[key] = jsonValue(value)
  return JSON.stringify(entry)
}
