/**
 * What a fault-free chaos run logged, as lines that equal runs share: level, message and fields
 * (a failure's text by its first line: a stack trace names places in the code, not what
 * happened), without the time; each distinct line once (how often a retry logs during an outage
 * follows its backoff's random draws more than what the runtime does), sorted (concurrent fibers
 * log in either order).
 *
 * Guarantees: every entry of every level is captured while `captureLogs` runs, and nothing is
 * written anywhere; a value that does not serialize is written as its `String`.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as References from "effect/References"
import { ERROR_KEY, recordOf } from "../log/record.ts"

const fieldValue = (key: string, value: unknown): unknown => {
  if (key === ERROR_KEY) return String(value).split("\n", 1)[0]
  try {
    return JSON.parse(JSON.stringify(value) ?? "null") as unknown
  } catch {
    return String(value)
  }
}

/** Runs `effect` logging every level into the returned lines (distinct, sorted), and nowhere else. */
export const captureLogs = <A, E, R>(
  effect: Effect.Effect<A, E, R>,
): Effect.Effect<readonly [A, ReadonlyArray<string>], E, R> =>
  Effect.suspend(() => {
    const lines: Array<string> = []
    const capture = Logger.make((options) => {
      const record = recordOf(options)
      const fields = record.fields.map(([k, v]) => [k, fieldValue(k, v)])
      lines.push(`${record.level} ${record.message} ${JSON.stringify(fields)}`)
    })
    return effect.pipe(
      Effect.provide(Logger.layer([capture])),
      Effect.provideService(References.MinimumLogLevel, "All"),
      Effect.map((a) => [a, [...new Set(lines)].sort()] as const),
    )
  })
