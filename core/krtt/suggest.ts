/**
 * "Did you mean": the known name closest to a mistyped one, for strict inputs (an unknown key
 * is an error naming the closest known one). Pure.
 *
 * @module
 */

/** Levenshtein distance between two strings. */
export const editDistance = (a: string, b: string): number => {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const cur = [i]
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(
        (prev[j] ?? 0) + 1,
        (cur[j - 1] ?? 0) + 1,
        (prev[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1),
      )
    }
    prev = cur
  }
  return prev[b.length] ?? 0
}

/**
 * The known name closest to `name` (ignoring case), when it is close enough to be a typo: at
 * most 2 edits, or half the name's length for longer names.
 */
export const closestKey = (name: string, known: Iterable<string>): string | undefined => {
  let best: string | undefined
  let bestDistance = Number.POSITIVE_INFINITY
  for (const k of known) {
    const d = editDistance(name.toLowerCase(), k.toLowerCase())
    if (d < bestDistance) [best, bestDistance] = [k, d]
  }
  // With no known name, `bestDistance` stays infinite and the bound below fails: no check on `best` is needed.
  return bestDistance <= Math.max(2, Math.floor(name.length / 2)) ? best : undefined
}

/** `; did you mean "x"?` when a known name is close, else the empty string. */
export const didYouMean = (name: string, known: Iterable<string>): string => {
  const k = closestKey(name, known)
  return k === undefined ? "" : `; did you mean "${k}"?`
}
