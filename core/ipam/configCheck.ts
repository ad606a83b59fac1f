/**
 * The checks `validateIpamConfig` makes of every part of an IPAMConfig: one list of issues that
 * each check adds to, unknown keys (naming the closest known one) and lists of strings.
 *
 * Guarantees: a check never throws; it records an issue with the path of the field and goes on,
 * so that one validation names every wrong field.
 *
 * @module
 */
import { type ConfigIssue, closest } from "./configModel.ts"

/** A JSON object as the API server holds it. */
export type Obj = Record<string, unknown>
export const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v)
export const typeName = (v: unknown) => (v === null ? "null" : Array.isArray(v) ? "an array" : typeof v)

/** The checks of one validation, adding to its issues. */
export interface Check {
  /** Records an issue at `path`. */
  readonly err: (path: string, message: string) => void
  /** Records every key of `o` that is not `known`. */
  readonly strict: (o: Obj, path: string, known: ReadonlyArray<string>) => void
  /** The strings of a list (none when absent), recording what is not a list or not a string. */
  readonly strings: (v: unknown, path: string) => ReadonlyArray<string>
}

/** The checks adding to `errors`. */
export const makeCheck = (errors: Array<ConfigIssue>): Check => {
  const err = (path: string, message: string) => {
    errors.push({ path, message })
  }
  const strict = (o: Obj, path: string, known: ReadonlyArray<string>) => {
    for (const k of Object.keys(o)) {
      if (!known.includes(k))
        err(`${path}.${k}`, `unknown field "${k}"; did you mean "${closest(k, known)}"?`)
    }
  }
  const strings = (v: unknown, path: string): ReadonlyArray<string> => {
    if (v === undefined || v === null) return []
    if (!Array.isArray(v)) {
      err(path, `must be a list of strings, got ${typeName(v)}`)
      return []
    }
    const out: Array<string> = []
    v.forEach((x, i) => {
      if (typeof x === "string") out.push(x)
      else err(`${path}[${i}]`, `must be a string, got ${typeName(x)}`)
    })
    return out
  }
  return { err, strict, strings }
}
