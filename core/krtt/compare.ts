/**
 * Orders of plain values that several tables sort by.
 *
 * @module
 */

/** Strings in code-unit order (as Go's `sort.Strings`), for `Array.prototype.sort`. */
export const compareText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

/** Objects by their `name`, in code-unit order. */
export const byName = (a: { readonly name: string }, b: { readonly name: string }): number =>
  compareText(a.name, b.name)
