import type { ConditionStatus } from "./types.ts"

/** How much a merged condition weighs, most first. */
export const Priority = { Issue: 0, Unknown: 1, Info: 2 } as const
export type Priority = (typeof Priority)[keyof typeof Priority]

/** One condition to merge, and the object it belongs to. */
export interface Owned {
  readonly kind: string
  readonly name: string
  /** A Machine with the control-plane label: listed first. */
  readonly controlPlaneMachine?: boolean
  readonly type: string
  readonly status: ConditionStatus
  readonly reason: string
  readonly message: string
  readonly lastTransitionTime?: string | undefined
}

/** The reasons of a merged condition, by the highest priority among its parts. */
export interface MergeReasons {
  readonly issue: string
  readonly unknown: string
  readonly info: string
}

/** True is info and False an issue; the other way round for a negative-polarity type. */
export const defaultPriority =
  (negative: ReadonlyArray<string> = []) =>
  (c: Pick<Owned, "type" | "status">): Priority => {
    if (c.status === "Unknown") return Priority.Unknown
    const good = (c.status === "True") !== negative.includes(c.type)
    return good ? Priority.Info : Priority.Issue
  }

const BULLET = /[\t\n\f\r ]*\*[\t\n\f\r ]+/

/** A message after `* X:`: on the same line, or indented below it when it has several lines or bullets. */
export const indentIfMultiline = (m: string): string => {
  if (!m.includes("\n") && !BULLET.test(m)) return ` ${m}`
  const lines = m.split("\n")
  const mixed = lines.some((l) => !BULLET.test(l))
  const indented = lines.map((l) => (mixed ? (BULLET.test(l) ? `    ${l}` : `  * ${l}`) : `  ${l}`))
  return `\n${indented.join("\n")}`
}

const time = (t: string | undefined): number => {
  const ms = t === undefined ? Number.NaN : Date.parse(t)
  return Number.isNaN(ms) ? Number.NEGATIVE_INFINITY : ms
}

/** Orders conditions by the position of their type, then by transition time (stable). */
export const sortOwned = (cs: ReadonlyArray<Owned>, order: ReadonlyArray<string>): Array<Owned> => {
  const rank = new Map<string, number>()
  order.forEach((t, i) => {
    rank.set(t, i)
  })
  const at = (c: Owned) => rank.get(c.type) ?? 0
  return cs
    .map((c, i) => ({ c, i }))
    .sort(
      (a, b) => at(a.c) - at(b.c) || time(a.c.lastTransitionTime) - time(b.c.lastTransitionTime) || a.i - b.i,
    )
    .map((x) => x.c)
}

/** The status of a merge, given whether its type has positive polarity. */
export const mergedStatus = (
  priorities: ReadonlyArray<Priority>,
  positive: boolean,
): { readonly status: ConditionStatus; readonly top: Priority } => {
  if (priorities.includes(Priority.Issue)) return { status: positive ? "False" : "True", top: Priority.Issue }
  if (priorities.includes(Priority.Unknown)) return { status: "Unknown", top: Priority.Unknown }
  return { status: positive ? "True" : "False", top: Priority.Info }
}

/** The reason of a merge by its highest priority. */
export const mergedReason = (top: Priority, reasons: MergeReasons): string =>
  top === Priority.Issue ? reasons.issue : top === Priority.Unknown ? reasons.unknown : reasons.info
