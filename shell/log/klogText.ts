/**
 * `--logging-format=text`: klog's text format, the one Cluster API's managers write by default:
 *
 *     I1126 03:40:00.123000   12345 krtt:0] "Reconcile done" controller="cluster" result="success"
 *
 * a severity letter (I, W, E, F), the date as MMDD, the time with microseconds, the process id,
 * the source (`krtt:0`: a JavaScript process has no Go file and line to give), then the quoted
 * message and the key-value pairs: strings quoted as Go quotes them, numbers and booleans bare,
 * an object with a name as `"namespace/name"` (klog's KObj), other objects as JSON, and a
 * string of several lines as klog writes it, `key=<` then each line indented by a tab, then ` >`.
 *
 * @module
 */
import type * as LogLevel from "effect/LogLevel"
import type { LogRecord } from "./record.ts"

const severity = (level: LogLevel.LogLevel): string =>
  level === "Fatal" ? "F" : level === "Error" ? "E" : level === "Warn" ? "W" : "I"

const pad = (n: number, width: number): string => String(n).padStart(width, "0")

/** `MMDD hh:mm:ss.uuuuuu`, in UTC. */
const stamp = (t: Date): string =>
  `${pad(t.getUTCMonth() + 1, 2)}${pad(t.getUTCDate(), 2)} ${pad(t.getUTCHours(), 2)}:${pad(t.getUTCMinutes(), 2)}:${pad(t.getUTCSeconds(), 2)}.${pad(t.getUTCMilliseconds() * 1000, 6)}`

/** A string as Go's `%q` writes it, for the characters log values hold. */
export const goQuote = (s: string): string =>
  JSON.stringify(s)
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029")

/** An object klog would print as a reference: one with a string `name` (and maybe `namespace`). */
const asReference = (value: object): string | undefined => {
  const o = value as { readonly name?: unknown; readonly namespace?: unknown }
  if (typeof o.name !== "string") return undefined
  return typeof o.namespace === "string" && o.namespace !== "" ? `${o.namespace}/${o.name}` : o.name
}

/** One `key=value` pair. */
const pair = (key: string, value: unknown): string => {
  if (typeof value === "string")
    return value.includes("\n") ? `${key}=<\n${value.replace(/^/gm, "\t")}\n >` : `${key}=${goQuote(value)}`
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint")
    return `${key}=${value}`
  if (value === undefined || value === null) return `${key}=<nil>`
  if (value instanceof Error) return pair(key, value.message)
  if (typeof value === "object") {
    const ref = asReference(value)
    return ref === undefined ? `${key}=${JSON.stringify(value)}` : `${key}=${goQuote(ref)}`
  }
  return `${key}=${goQuote(String(value))}`
}

/** One entry of the text format (no final newline; several lines only for multi-line values). */
export const formatKlogText = (record: LogRecord, pid: number = process.pid): string => {
  const header = `${severity(record.level)}${stamp(record.time)} ${String(pid).padStart(7)} krtt:0]`
  const pairs = record.fields.map(([key, value]) => pair(key, value))
  return [header, goQuote(record.message), ...pairs].join(" ")
}
