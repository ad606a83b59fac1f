/**
 * Equality of accessor states as the seed means it: a field that is absent and a field that is
 * `undefined` both mean "never happened" (e.g. `lastConnectionCreationErrorTime`), so they are the
 * same state. Deep equality otherwise.
 *
 * @module
 */
import { isDeepStrictEqual } from "node:util"

const defined = (o: object): Record<string, unknown> =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined))

/** Whether two states (or two absent states) are the same, absent and `undefined` fields alike. */
export const sameState = (a: object | undefined, b: object | undefined): boolean =>
  a === b || (a !== undefined && b !== undefined && isDeepStrictEqual(defined(a), defined(b)))

/**
 * Whether the actions log the seed's documented wording: exactly `text`, or a message starting
 * with `text` when the seed elides the rest ("Skip creation of watch...").
 */
export const logsDocumented = (
  actions: ReadonlyArray<{ readonly _tag: string; readonly message?: string }>,
  text: string,
): boolean => {
  const prefix = text.endsWith("...") ? text.slice(0, -3) : undefined
  return actions.some(
    (a) =>
      a._tag === "Log" &&
      a.message !== undefined &&
      (prefix === undefined ? a.message === text : a.message.startsWith(prefix)),
  )
}
