/**
 * One condition type aggregated over many objects, as Cluster API v1.14.2's
 * `NewAggregateCondition` with its default merge strategy: an object that does not report the
 * type counts as Unknown (`Condition <type> not yet reported`); the message lists, per kind
 * (kinds sorted), one `* <Kind> <names>: <message>` line per distinct message: control-plane
 * Machines' messages first, then issues before unknowns, then the messages most objects share;
 * at most `max` names per line (`, ... (N more)`) and `max` lines in all, the rest counted as
 * `And N <Kinds> with other issues` (or `with status unknown`, `with additional info`).
 * When nothing is an issue or unknown, the info messages are listed instead, empty ones left out.
 *
 * @module
 */
import type { Decided } from "./conditions.ts"
import { findCondition } from "./conditions.ts"
import {
  defaultPriority,
  indentIfMultiline,
  type MergeReasons,
  mergedReason,
  mergedStatus,
  type Owned,
  Priority,
  sortOwned,
} from "./merge.ts"
import type { Condition } from "./types.ts"

/** An object whose condition is aggregated. */
export interface Source {
  readonly kind: string
  readonly name: string
  readonly controlPlaneMachine?: boolean
  readonly conditions: ReadonlyArray<Condition> | undefined
}

const OTHERS: Readonly<Record<Priority, string>> = {
  [Priority.Issue]: "with other issues",
  [Priority.Unknown]: "with status unknown",
  [Priority.Info]: "with additional info",
}

const owned = (s: Source, type: string): Owned => {
  const c = findCondition(s.conditions, type)
  const base = { kind: s.kind, name: s.name, controlPlaneMachine: s.controlPlaneMachine === true, type }
  if (c === undefined)
    return {
      ...base,
      status: "Unknown",
      reason: "NotYetReported",
      message: `Condition ${type} not yet reported`,
    }
  return {
    ...base,
    status: c.status,
    reason: c.reason === undefined || c.reason === "" ? "NoReasonReported" : c.reason,
    message: c.message ?? "",
    lastTransitionTime: c.lastTransitionTime,
  }
}

/**
 * Aggregates `type` over `sources` (at least one). `negative`: True is the issue (RollingOut,
 * ScalingUp, ScalingDown), and the aggregate is True then.
 */
export const aggregateCondition = (
  sources: ReadonlyArray<Source>,
  type: string,
  reasons: MergeReasons,
  max: number,
  negative = false,
): Decided => {
  const priorityOf = defaultPriority(negative ? [type] : [])
  const cs = sortOwned(
    sources.map((s) => owned(s, type)),
    [type],
  )
  const issues = cs.filter((c) => priorityOf(c) !== Priority.Info)
  const { status, top } = mergedStatus(cs.map(priorityOf), !negative)
  const budget = { lines: max }
  const lines =
    issues.length > 0
      ? aggregateMessages(issues, budget, max, false, priorityOf, [Priority.Issue, Priority.Unknown])
      : aggregateMessages(cs, budget, max, true, priorityOf, [Priority.Info])
  return { status, reason: mergedReason(top, reasons), message: lines.join("\n") }
}

/** What one kind's messages share: the names of each message, in the order they came. */
interface Grouped {
  readonly byKind: Map<string, Map<string, Array<string>>>
  readonly priority: Map<string, Priority>
  readonly first: Set<string>
  readonly controlPlane: Set<string>
}

const group = (cs: ReadonlyArray<Owned>, dropEmpty: boolean, priorityOf: (c: Owned) => Priority): Grouped => {
  const g: Grouped = { byKind: new Map(), priority: new Map(), first: new Set(), controlPlane: new Set() }
  for (const c of cs) {
    if (dropEmpty && c.message === "") continue
    const m = c.message
    let messages = g.byKind.get(c.kind)
    if (messages === undefined) {
      messages = new Map()
      g.byKind.set(c.kind, messages)
    }
    messages.set(m, [...(messages.get(m) ?? []), c.name])
    if (c.controlPlaneMachine === true) {
      g.controlPlane.add(c.name)
      g.first.add(m)
    }
    // A message keeps the highest priority any of its conditions has.
    const p = priorityOf(c)
    const current = g.priority.get(m)
    if (current === undefined || p < current) g.priority.set(m, p)
  }
  return g
}

const byteOrder = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

const messageOrder =
  (g: Grouped, names: Map<string, Array<string>>) =>
  (a: string, b: string): number => {
    const fa = g.first.has(a)
    const fb = g.first.has(b)
    if (fa !== fb) return fa ? -1 : 1
    const pa = g.priority.get(a) ?? Priority.Info
    const pb = g.priority.get(b) ?? Priority.Info
    if (pa !== pb) return pa - pb
    const na = names.get(a) ?? []
    const nb = names.get(b) ?? []
    if (na.length !== nb.length) return nb.length - na.length
    return byteOrder(na.join(","), nb.join(","))
  }

const header = (kind: string, names: ReadonlyArray<string>, max: number): string => {
  if (names.length === 1) return `* ${kind} ${names[0]}:`
  if (names.length <= max) return `* ${kind}s ${names.join(", ")}:`
  return `* ${kind}s ${names.slice(0, max).join(", ")}, ... (${names.length - max} more):`
}

const aggregateMessages = (
  cs: ReadonlyArray<Owned>,
  budget: { lines: number },
  max: number,
  dropEmpty: boolean,
  priorityOf: (c: Owned) => Priority,
  counted: ReadonlyArray<Priority>,
): Array<string> => {
  const g = group(cs, dropEmpty, priorityOf)
  const out: Array<string> = []
  for (const kind of [...g.byKind.keys()].sort(byteOrder)) {
    const names = g.byKind.get(kind) as Map<string, Array<string>>
    const others = new Map<Priority, number>()
    for (const m of [...names.keys()].sort(messageOrder(g, names))) {
      const objects = names.get(m) as Array<string>
      if (budget.lines <= 0) {
        const p = g.priority.get(m) ?? Priority.Info
        others.set(p, (others.get(p) ?? 0) + objects.length)
        continue
      }
      const sorted = [...objects].sort(
        (a, b) => Number(g.controlPlane.has(b)) - Number(g.controlPlane.has(a)) || byteOrder(a, b),
      )
      out.push(`${header(kind, sorted, max)}${indentIfMultiline(m)}`)
      budget.lines--
    }
    for (const p of counted) {
      const n = others.get(p)
      if (n !== undefined && n > 0) out.push(`And ${n} ${n === 1 ? kind : `${kind}s`} ${OTHERS[p]}`)
    }
  }
  return out
}
