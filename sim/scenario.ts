/**
 * Scenario files: a timeline of incidents on chosen Clusters, in YAML or JSON.
 *
 * ```yaml
 * - at: 2h
 *   clusters: 0-99
 *   incident: apiserver-down
 *   for: 5m
 * - at: 3h
 *   clusters: 10-19,42
 *   incident: rotate-credentials
 *   fixAfter: 2m      # optional: when the kubeconfig Secret is fixed (default: random)
 * ```
 *
 * Durations are strings of numbers with units (`90s`, `1h30m`, `250ms`) or plain numbers of
 * seconds. `clusters` is `all`, a slot index, a range `a-b` (both included) or a comma-separated
 * list of those. Every bad entry is reported, each naming its field.
 *
 * @module
 */
import { parse as parseYaml } from "yaml"
import { didYouMean } from "../core/krtt/suggest.ts"

export const IncidentKinds = [
  "apiserver-down",
  "apiserver-slow",
  "rotate-credentials",
  "delete-cluster",
] as const
export type IncidentKind = (typeof IncidentKinds)[number]

/** One incident on a set of slots. */
export interface Incident {
  /** Virtual time, ms since the start. */
  readonly at: number
  /** Slot ranges, both ends included; `undefined` for every slot. */
  readonly clusters: ReadonlyArray<readonly [number, number]> | undefined
  readonly incident: IncidentKind
  /** How long an outage or a slow period lasts. */
  readonly for?: number
  /** For a credential rotation: when the kubeconfig is fixed (default: drawn from the configuration). */
  readonly fixAfter?: number
}

/** A scenario that does not validate; `problems` names each bad field. */
export class ScenarioError extends Error {
  readonly problems: ReadonlyArray<string>

  constructor(problems: ReadonlyArray<string>) {
    super(`invalid scenario:\n${problems.map((p) => `  - ${p}`).join("\n")}`)
    this.problems = problems
    this.name = "ScenarioError"
  }
}

const UNITS: Readonly<Record<string, number>> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }

/** Parses `1h30m`, `90s`, `250ms` or a number of seconds; `undefined` when it is not a duration. */
export const parseDuration = (v: unknown): number | undefined => {
  if (typeof v === "number") return Number.isFinite(v) && v >= 0 ? v * 1_000 : undefined
  if (typeof v !== "string") return undefined
  const text = v.trim()
  if (text === "") return undefined
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/gy
  let total = 0
  let end = 0
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    total += Number(m[1]) * (UNITS[m[2] as string] as number)
    end = re.lastIndex
  }
  return end === text.length && end > 0 ? total : undefined
}

/** Formats a duration in ms as `1h30m`, `90s`, `250ms`. */
export const formatDuration = (ms: number): string => {
  if (ms === 0) return "0s"
  if (ms < 1_000) return `${ms}ms`
  let rest = Math.round(ms / 1_000)
  const parts: Array<string> = []
  for (const [unit, size] of [
    ["d", 86_400],
    ["h", 3_600],
    ["m", 60],
    ["s", 1],
  ] as const) {
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)}${unit}`)
      rest %= size
    }
  }
  return parts.join("")
}

/** Parses `all`, `7`, `0-99` or `0-9,20-29`; a string describing the problem when it cannot. */
export const parseClusters = (v: unknown): ReadonlyArray<readonly [number, number]> | undefined | string => {
  if (v === undefined || v === "all") return undefined
  if (typeof v === "number")
    return Number.isInteger(v) && v >= 0 ? [[v, v]] : `expected a slot index, got ${v}`
  if (typeof v !== "string")
    return `expected "all", an index, a range like "0-99" or a list, got ${describe(v)}`
  const ranges: Array<readonly [number, number]> = []
  for (const part of v.split(",")) {
    const m = /^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$/.exec(part)
    if (m === null) return `expected "all", an index, a range like "0-99" or a list, got "${v}"`
    const from = Number(m[1])
    const to = m[2] === undefined ? from : Number(m[2])
    if (to < from) return `range "${part.trim()}" ends before it starts`
    ranges.push([from, to])
  }
  return ranges
}

const describe = (v: unknown): string => (v === null ? "null" : Array.isArray(v) ? "a list" : typeof v)

const FIELDS = new Set(["at", "clusters", "incident", "for", "fixAfter"])

/** Validates parsed data (from YAML or JSON) as a scenario; throws {@link ScenarioError}. */
export const validateScenario = (data: unknown, clusters?: number): ReadonlyArray<Incident> => {
  // a mapping holds `incidents` and/or the IPAM section `ipam` (sim/ipam.ts reads that one)
  const list =
    data !== null &&
    typeof data === "object" &&
    !Array.isArray(data) &&
    ("incidents" in data || "ipam" in data)
      ? ((data as { incidents?: unknown }).incidents ?? [])
      : data
  if (!Array.isArray(list)) throw new ScenarioError([`expected a list of incidents, got ${describe(list)}`])
  const problems: Array<string> = []
  const incidents: Array<Incident> = []
  list.forEach((entry, i) => {
    const where = `entry ${i}`
    if (entry === null || typeof entry !== "object" || Array.isArray(entry)) {
      problems.push(`${where}: expected a mapping with at, clusters, incident, got ${describe(entry)}`)
      return
    }
    const e = entry as Record<string, unknown>
    const before = problems.length
    for (const key of Object.keys(e))
      if (!FIELDS.has(key))
        problems.push(
          `${where}.${key}: unknown field${didYouMean(key, FIELDS)} (known: ${[...FIELDS].join(", ")})`,
        )
    const at = parseDuration(e.at)
    if (e.at === undefined) problems.push(`${where}.at: missing (a time like "2h" or "90m")`)
    else if (at === undefined)
      problems.push(`${where}.at: expected a duration like "2h", "5m", "30s", got ${JSON.stringify(e.at)}`)
    const kind = e.incident
    if (kind === undefined) problems.push(`${where}.incident: missing (one of ${IncidentKinds.join(", ")})`)
    else if (!(IncidentKinds as ReadonlyArray<unknown>).includes(kind))
      problems.push(
        `${where}.incident: expected one of ${IncidentKinds.join(", ")}, got ${JSON.stringify(kind)}`,
      )
    const ranges = parseClusters(e.clusters)
    if (typeof ranges === "string") problems.push(`${where}.clusters: ${ranges}`)
    else if (clusters !== undefined && ranges !== undefined) {
      for (const [, to] of ranges)
        if (to >= clusters)
          problems.push(
            `${where}.clusters: slot ${to} is past the fleet (${clusters} clusters: 0-${clusters - 1})`,
          )
    }
    const duration = e.for === undefined ? undefined : parseDuration(e.for)
    const timed = kind === "apiserver-down" || kind === "apiserver-slow"
    if (e.for !== undefined && duration === undefined)
      problems.push(`${where}.for: expected a duration like "5m", got ${JSON.stringify(e.for)}`)
    else if (timed && e.for === undefined) problems.push(`${where}.for: missing (how long the ${kind} lasts)`)
    else if (!timed && e.for !== undefined && kind !== undefined && typeof kind === "string")
      problems.push(`${where}.for: not used by ${kind}`)
    const fixAfter = e.fixAfter === undefined ? undefined : parseDuration(e.fixAfter)
    if (e.fixAfter !== undefined && fixAfter === undefined)
      problems.push(`${where}.fixAfter: expected a duration like "2m", got ${JSON.stringify(e.fixAfter)}`)
    else if (e.fixAfter !== undefined && kind !== "rotate-credentials")
      problems.push(`${where}.fixAfter: only rotate-credentials takes it`)
    if (problems.length > before || at === undefined || typeof ranges === "string") return
    incidents.push({
      at,
      clusters: ranges,
      incident: kind as IncidentKind,
      ...(duration === undefined ? {} : { for: duration }),
      ...(fixAfter === undefined ? {} : { fixAfter }),
    })
  })
  if (problems.length > 0) throw new ScenarioError(problems)
  return incidents
}

/** Parses a scenario file's text, YAML or JSON (JSON is YAML). */
export const parseScenario = (text: string, clusters?: number): ReadonlyArray<Incident> => {
  let data: unknown
  try {
    data = parseYaml(text)
  } catch (e) {
    throw new ScenarioError([`not YAML or JSON: ${(e as Error).message.split("\n")[0]}`])
  }
  return validateScenario(data, clusters)
}

// In config.ts, so that a simulation worker does not load the YAML parser.
export { appliesTo } from "./config.ts"
