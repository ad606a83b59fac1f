/**
 * One log entry as the formats of shell/log see it: when, how severe, the message, and the
 * key-value pairs (the fiber's log annotations, in the order they were added, then the cause
 * of a failure as `err`). Effect's logger options are read once here so that each format is a
 * plain function of a record.
 *
 * @module
 */
import * as Cause from "effect/Cause"
import type * as Logger from "effect/Logger"
import type * as LogLevel from "effect/LogLevel"
import * as References from "effect/References"

/** A key and its value, as the code annotated it. */
export type Field = readonly [key: string, value: unknown]

/** One log entry. */
export interface LogRecord {
  readonly time: Date
  readonly level: LogLevel.LogLevel
  readonly message: string
  readonly fields: ReadonlyArray<Field>
}

/** The key a failure's text is logged under, as controller-runtime's loggers do. */
export const ERROR_KEY = "err"

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && Object.getPrototypeOf(v) === Object.prototype

/**
 * The message of a log call and the fields its extra arguments add: the first argument is the
 * message; a plain object after it gives key-value pairs (`Effect.logDebug("done", {next})`);
 * anything else is appended to the message, an error by its message, other values as JSON.
 */
const messageOf = (message: unknown): { readonly text: string; readonly fields: ReadonlyArray<Field> } => {
  const [first, ...rest] = Array.isArray(message) ? message : [message]
  const words = [first, ...rest.filter((p) => !isPlainObject(p))].map((p) =>
    typeof p === "string" ? p : p instanceof Error ? p.message : (JSON.stringify(p) ?? String(p)),
  )
  const fields = rest.filter(isPlainObject).flatMap((o) => Object.entries(o))
  return { text: words.join(" "), fields }
}

/**
 * The record of one call of an Effect logger. An annotation named `error` (the name the code
 * base uses) is logged under {@link ERROR_KEY}; a cause with failures adds its pretty form there
 * when no annotation gave one.
 */
export const recordOf = (options: Logger.Options<unknown>): LogRecord => {
  const annotations = options.fiber.getRef(References.CurrentLogAnnotations)
  const message = messageOf(options.message)
  const fields: Array<Field> = [...message.fields]
  let error: unknown
  for (const [key, value] of Object.entries(annotations)) {
    if (key === "error" || key === ERROR_KEY) error = value
    else fields.push([key, value])
  }
  if (error === undefined && options.cause.reasons.length > 0) error = Cause.pretty(options.cause)
  if (error !== undefined) fields.push([ERROR_KEY, error])
  return { time: options.date, level: options.logLevel, message: message.text, fields }
}

/**
 * klog's verbosity of a level: what `-v` must reach for it to be written. Info and Warn are
 * `V(0)`; Debug is `V(4)` and Trace `V(6)`, the levels `-v` turns them on at (shell/manager).
 */
export const verbosityOf = (level: LogLevel.LogLevel): number =>
  level === "Debug" ? 4 : level === "Trace" ? 6 : 0

/** Whether a level is an error's: logged with `err`, without `v`, as `E` in klog's text. */
export const isErrorLevel = (level: LogLevel.LogLevel): boolean => level === "Error" || level === "Fatal"
