/**
 * Injection paths and durations as upstream writes them: a JSONPatch path (`/spec/network/cidr`)
 * or a JSONPath-like one (`.spec.network.cidr`, `.spec.list[0]`, `.metadata.labels["a/b"]`),
 * both normalized to the JSONPatch form that ClusterConfig patches and the applied-rules
 * annotation carry. (Go durations, for `internalStateRefreshCycleDuration`, are `core/krtt`'s.)
 *
 * @module
 */

/** A path in JSONPatch form, or why the text is not a path. */
export type PathResult =
  | { readonly ok: true; readonly path: string }
  | { readonly ok: false; readonly message: string }

const escapeSegment = (segment: string) => segment.replaceAll("~", "~0").replaceAll("/", "~1")

/** Normalizes an injection path to JSONPatch form (RFC 6901). */
export const normalizePath = (text: string): PathResult => {
  if (text.startsWith("/")) {
    const segments = text.slice(1).split("/")
    if (segments.some((s) => s === "")) return { ok: false, message: `"${text}" has an empty segment` }
    if (segments.some((s) => /~[^01]|~$/.test(s)))
      return { ok: false, message: `"${text}" has a '~' that is not '~0' or '~1'` }
    return { ok: true, path: text }
  }
  if (!text.startsWith(".")) {
    return {
      ok: false,
      message: `"${text}" is neither a JSONPatch path (/a/b) nor a JSONPath-like one (.a.b)`,
    }
  }
  const segments: Array<string> = []
  let i = 0
  while (i < text.length) {
    const c = text[i]
    if (c === ".") {
      const rest = text.slice(i + 1)
      const stop = rest.search(/[.[]/)
      const name = stop === -1 ? rest : rest.slice(0, stop)
      if (name === "") return { ok: false, message: `"${text}" has an empty segment at position ${i}` }
      segments.push(name)
      i += 1 + name.length
    } else if (c === "[") {
      const close = text.indexOf("]", i)
      if (close === -1) return { ok: false, message: `"${text}" has an unclosed '['` }
      const inner = text.slice(i + 1, close)
      const quoted = /^"(.*)"$|^'(.*)'$/.exec(inner)
      if (quoted !== null) segments.push(quoted[1] ?? (quoted[2] as string))
      else if (/^(0|[1-9][0-9]*)$/.test(inner)) segments.push(inner)
      else return { ok: false, message: `"${text}" has "[${inner}]", neither an index nor a quoted key` }
      i = close + 1
    } else {
      return { ok: false, message: `"${text}" has an unexpected '${c}' at position ${i}` }
    }
  }
  // the text starts with '.', so the first step above either returns an error or adds a segment
  return { ok: true, path: `/${segments.map(escapeSegment).join("/")}` }
}
