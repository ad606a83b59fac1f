/**
 * Injection paths in the two notations of openmcp's controller-utils ("Path Notation" in its
 * jsonpatch documentation), both normalized to the JSON Pointer form (RFC 6901) that
 * ClusterConfig patches and the applied-rules annotation carry.
 *
 * - JSON Pointer: starts with `/`; `~0` is `~`, `~1` is `/`. Kept as written; a `~` followed by
 *   anything but `0` or `1` is refused (RFC 6901).
 * - JSON Path (simplified RFC 9535, one path, no queries): segments separated by `.` or written
 *   in brackets; the leading `.` is optional (`spec.network.cidr`). Outside quotes `\` escapes
 *   `\ . [ ] ' "`. In brackets the value is unquoted (dots are part of it, `\` escapes as
 *   outside, unescaped `[` is refused) or quoted with `'` or `"`: the quote must follow `[` at
 *   once and precede `]` at once, and nothing inside is special. A segment ends at a `.` or `[`
 *   (outside brackets), so `a[0]b` is `/a/0/b` and `a..b` has an empty segment, as upstream.
 *   Numeric segments (`mylist.0.asdf`, `mylist[0]`) are plain segments.
 *
 * Every refusal names the position (a 0-based index into the text) and the reason.
 *
 * @module
 */
import * as Data from "effect/Data"

/** A text that is not a path: where (a 0-based index into the text) and why. */
export class PathError extends Data.TaggedError("PathError")<{
  readonly text: string
  readonly position: number
  readonly reason: string
}> {
  /** A `PathResult` that is not a path. */
  readonly ok = false as const
  /** `"<text>" at position <n>: <reason>` */
  override get message(): string {
    return `"${this.text}" at position ${this.position}: ${this.reason}`
  }
}

/** A path in JSON Pointer form, or why the text is not a path. */
export type PathResult = { readonly ok: true; readonly path: string } | PathError

const fail = (text: string, position: number, reason: string): PathError =>
  new PathError({ text, position, reason })

/** One segment escaped for a JSON Pointer. */
export const escapePointerSegment = (segment: string): string =>
  segment.replaceAll("~", "~0").replaceAll("/", "~1")

/** A JSON Pointer from its segments (`[]` is the whole document, ``). */
export const pointerOf = (segments: ReadonlyArray<string>): string =>
  segments.map((s) => `/${escapePointerSegment(s)}`).join("")

/** The segments of a JSON Pointer, or the position of a bad `~` escape. */
export const pointerSegments = (pointer: string): ReadonlyArray<string> | PathError => {
  for (let i = 0; i < pointer.length; i++) {
    if (pointer[i] === "~" && pointer[i + 1] !== "0" && pointer[i + 1] !== "1")
      return fail(pointer, i, "'~' must be followed by '0' (for '~') or '1' (for '/') in a JSON Pointer")
  }
  if (pointer === "") return []
  return pointer
    .slice(1)
    .split("/")
    .map((s) => s.replaceAll("~1", "/").replaceAll("~0", "~"))
}

const ESCAPABLE = new Set(["\\", ".", "[", "]", "'", '"'])

/** The escaped character at `i` (a backslash), or a failure. */
const escaped = (text: string, i: number): string | PathError => {
  const c = text[i + 1]
  if (c === undefined) return fail(text, i, "'\\' at the end: it escapes nothing")
  if (!ESCAPABLE.has(c)) return fail(text, i + 1, `'\\${c}' is no escape; only \\\\ \\. \\[ \\] \\' \\" are`)
  return c
}

type Step = { readonly segment: string; readonly next: number } | PathError

/** A segment after an optional `.`, ending before the next unescaped `.` or `[`. */
const plainSegment = (text: string, start: number): Step => {
  let i = start
  if (text[i] === ".") {
    i++
    if (i === text.length) return fail(text, start, "'.' at the end: a segment must follow")
  }
  let segment = ""
  for (; i < text.length; i++) {
    const c = text[i] as string
    if (c === "." || c === "[") break
    if (c === "]" || c === "'" || c === '"')
      return fail(text, i, `unescaped '${c}' outside brackets; write '\\${c}'`)
    if (c === "\\") {
      const e = escaped(text, i)
      if (e instanceof PathError) return e
      segment += e
      i++
    } else segment += c
  }
  return { segment, next: i }
}

/** A bracketed segment starting at `[`: quoted with `'` or `"`, or unquoted with escapes. */
const bracketSegment = (text: string, start: number): Step => {
  const quote = text[start + 1]
  if (quote === undefined) return fail(text, start, "'[' at the end: a segment and ']' must follow")
  if (quote === "'" || quote === '"') {
    const close = text.indexOf(`${quote}]`, start + 2)
    if (close === -1) return fail(text, start, `no closing ${quote}] for this [${quote}`)
    return { segment: text.slice(start + 2, close), next: close + 2 }
  }
  let segment = ""
  for (let i = start + 1; i < text.length; i++) {
    const c = text[i] as string
    if (c === "]") return { segment, next: i + 1 }
    if (c === "[") return fail(text, i, "unescaped '[' inside brackets; brackets do not nest (write '\\[')")
    if (c === "\\") {
      const e = escaped(text, i)
      if (e instanceof PathError) return e
      segment += e
      i++
    } else segment += c
  }
  return fail(text, start, "no closing ']' for this '['")
}

/** The segments of a JSON Path, or the position and reason it is refused. */
export const jsonPathSegments = (text: string): ReadonlyArray<string> | PathError => {
  const segments: Array<string> = []
  let i = 0
  while (i < text.length) {
    const step = text[i] === "[" ? bracketSegment(text, i) : plainSegment(text, i)
    if (step instanceof PathError) return step
    segments.push(step.segment)
    i = step.next
  }
  return segments
}

/** Normalizes an injection path in either notation to JSON Pointer form. */
export const normalizePath = (text: string): PathResult => {
  if (text === "") return fail(text, 0, "the path is empty")
  if (text.startsWith("/")) {
    const s = pointerSegments(text)
    return s instanceof PathError ? s : { ok: true, path: text }
  }
  const s = jsonPathSegments(text)
  return s instanceof PathError ? s : { ok: true, path: pointerOf(s) }
}

/** A segment in dot notation: `\` before each of `\ . [ ] ' "`. */
export const escapeJsonPathSegment = (segment: string): string =>
  [...segment].map((c) => (ESCAPABLE.has(c) ? `\\${c}` : c)).join("")

/**
 * The JSON Path of a JSON Pointer, in dot notation with a leading `.`; an empty segment at the
 * end, which dot notation cannot end with, is written `[""]`.
 */
export const jsonPathOf = (pointer: string): PathResult => {
  const s = pointerSegments(pointer)
  if (s instanceof PathError) return s
  if (s.length === 0) return fail(pointer, 0, "the whole document has no JSON Path segment to name")
  const last = s.length - 1
  const text = s.map((seg, i) => (i === last && seg === "" ? '[""]' : `.${escapeJsonPathSegment(seg)}`))
  return { ok: true, path: text.join("") }
}
