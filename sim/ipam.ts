/**
 * The IPAM core inside the fleet simulator: with IPAM enabled
 * (`krtt simulate --ipam`, or an `ipam:` section in the scenario file), every Cluster the fleet
 * creates and deletes also goes through the IPAM controller of `ipamWorld.ts`, and its
 * invariants (`ipam-disjoint`, `ipam-restore`) are checked on every step beside the fleet's.
 *
 * The IPAM controller observes the fleet: it writes no trace records of its own (only
 * violations, as every check does), so a run's trace hash is the same with IPAM on or off.
 * IPAM state is one allocator for the whole fleet, so an IPAM run uses one thread.
 *
 * Scenario section (all fields optional):
 *
 * ```yaml
 * ipam:
 *   config:                 # an IPAMConfig (the object or its spec), upstream's format
 *     parentCIDRs: { v4: [10.0.0.0/16], v6: ["fd00::/48"] }
 *     injectionRules:
 *       - id: nodes
 *         injections:
 *           - { path: .spec.networking.nodes, parents: [v4], subnetSize: 24 }
 *           - { path: .spec.networking.nodesV6, parents: [v6], subnetSize: 64 }
 *   clusters:               # purposes and labels per slot range (default purposes: [workload])
 *     - { clusters: 0-49, purposes: [mcp], labels: { tier: gold } }
 *   restarts: [2h, 5h30m]   # operator restarts: state rebuilt from the cluster, then compared
 *   reconcileDelay: 0s      # trigger to reconcile
 *   gcDelay: 2s             # Cluster gone to its ClusterConfigs being deleted
 *   refreshEvery: 1h        # state refresh cycle (0: never)
 * incidents: [...]
 * ```
 *
 * @module
 */

import { closest } from "../core/ipam/config.ts"
import { type IpamConfigSpec, validateIpamConfig } from "../core/ipam/index.ts"
import type { SimConfig } from "./config.ts"
import type { FleetOptions, FleetResult, Progress } from "./fleet.ts"
import { threadCpuSeconds } from "./fleet.ts"
import {
  type IpamCheck,
  type IpamStats,
  IpamWorld,
  IpamWorldDefaults,
  type IpamWorldSettings,
} from "./ipamWorld.ts"
import { parseClusters, parseDuration } from "./scenario.ts"
import { Simulation, type SimulationOptions } from "./simulation.ts"
import { summarize } from "./summary.ts"
import { WORLD_EVENTS } from "./trace.ts"
import type { Slot } from "./world.ts"

/** Purposes and labels of the Clusters of some slots. */
export interface IpamClusterShape {
  readonly clusters: ReadonlyArray<readonly [number, number]> | undefined
  readonly purposes: ReadonlyArray<string>
  readonly labels: Readonly<Record<string, string>>
}

export interface IpamSimSettings {
  readonly config: IpamConfigSpec
  /** Later entries win; slots no entry names get `purposes: [workload]`. */
  readonly clusters: ReadonlyArray<IpamClusterShape>
  /** Virtual times (ms) of operator restarts. */
  readonly restarts: ReadonlyArray<number>
  readonly world: IpamWorldSettings
}

/** The config `--ipam` runs with when the scenario gives none: a /24 and a /64 per Cluster. */
export const DEFAULT_IPAM_CONFIG = {
  parentCIDRs: { v4: ["10.0.0.0/8"], v6: ["fd00::/40"] },
  injectionRules: [
    {
      id: "nodes",
      injections: [
        { path: ".spec.networking.nodes", parents: ["v4"], subnetSize: 24 },
        { path: ".spec.networking.nodesV6", parents: ["v6"], subnetSize: 64 },
      ],
    },
  ],
} as const

const defaultConfig = (): IpamConfigSpec => {
  const v = validateIpamConfig(DEFAULT_IPAM_CONFIG)
  if (!("config" in v)) throw new Error("the default IPAMConfig does not validate")
  return v.config
}

/** The settings `--ipam` uses without a scenario section. */
export const defaultIpamSettings = (): IpamSimSettings => ({
  config: defaultConfig(),
  clusters: [],
  restarts: [],
  world: { ...IpamWorldDefaults, gcDelay: 2_000, refreshEvery: 3_600_000 },
})

const FIELDS = ["config", "clusters", "restarts", "reconcileDelay", "gcDelay", "refreshEvery"]
const isObj = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v)

/**
 * Validates a scenario's `ipam` section; returns the settings or a list of problems, each naming
 * its field (`ipam.config.spec.injectionRules[0].id: ...`).
 */
export const validateIpamSection = (
  data: unknown,
  slots?: number,
): IpamSimSettings | ReadonlyArray<string> => {
  if (data === undefined || data === null) return defaultIpamSettings()
  if (!isObj(data)) return [`ipam: expected a mapping with ${FIELDS.join(", ")}`]
  const problems: Array<string> = []
  for (const k of Object.keys(data))
    if (!FIELDS.includes(k)) problems.push(`ipam.${k}: unknown field; did you mean "${closest(k, FIELDS)}"?`)
  let config = defaultConfig()
  if (data.config !== undefined) {
    const v = validateIpamConfig(data.config)
    if ("errors" in v) for (const e of v.errors) problems.push(`ipam.config.${e.path}: ${e.message}`)
    else config = v.config
  }
  const clusters: Array<IpamClusterShape> = []
  if (data.clusters !== undefined) {
    if (!Array.isArray(data.clusters))
      problems.push("ipam.clusters: expected a list of { clusters, purposes, labels }")
    else
      data.clusters.forEach((e, i) => {
        const at = `ipam.clusters[${i}]`
        if (!isObj(e)) {
          problems.push(`${at}: expected a mapping with clusters, purposes, labels`)
          return
        }
        for (const k of Object.keys(e))
          if (!["clusters", "purposes", "labels"].includes(k))
            problems.push(
              `${at}.${k}: unknown field; did you mean "${closest(k, ["clusters", "purposes", "labels"])}"?`,
            )
        const ranges = parseClusters(e.clusters)
        if (typeof ranges === "string") problems.push(`${at}.clusters: ${ranges}`)
        else if (slots !== undefined)
          for (const [, to] of ranges ?? [])
            if (to >= slots) problems.push(`${at}.clusters: slot ${to} is past the fleet (${slots} clusters)`)
        const purposes = e.purposes ?? []
        if (!Array.isArray(purposes) || purposes.some((p) => typeof p !== "string"))
          problems.push(`${at}.purposes: expected a list of strings`)
        const labels = e.labels ?? {}
        if (!isObj(labels) || Object.values(labels).some((v) => typeof v !== "string"))
          problems.push(`${at}.labels: expected a mapping of strings`)
        if (typeof ranges !== "string")
          clusters.push({
            clusters: ranges,
            purposes: purposes as Array<string>,
            labels: labels as Record<string, string>,
          })
      })
  }
  const restarts: Array<number> = []
  if (data.restarts !== undefined) {
    if (!Array.isArray(data.restarts)) problems.push('ipam.restarts: expected a list of times like "2h"')
    else
      data.restarts.forEach((r, i) => {
        const t = parseDuration(r)
        if (t === undefined)
          problems.push(`ipam.restarts[${i}]: expected a duration like "2h", got ${JSON.stringify(r)}`)
        else restarts.push(t)
      })
  }
  const duration = (k: "reconcileDelay" | "gcDelay" | "refreshEvery") => {
    if (data[k] === undefined) return IpamWorldDefaults[k]
    const t = parseDuration(data[k])
    if (t === undefined)
      problems.push(`ipam.${k}: expected a duration like "2s", got ${JSON.stringify(data[k])}`)
    return t ?? 0
  }
  const world: IpamWorldSettings = {
    ...IpamWorldDefaults,
    reconcileDelay: duration("reconcileDelay"),
    gcDelay: duration("gcDelay"),
    refreshEvery:
      data.refreshEvery === undefined && config.internalStateRefreshCycleDuration > 0
        ? config.internalStateRefreshCycleDuration
        : duration("refreshEvery"),
  }
  if (problems.length > 0) return problems
  return { config, clusters, restarts: restarts.sort((a, b) => a - b), world }
}

/** Purposes and labels of the Cluster in a slot. */
export const shapeOf = (
  settings: IpamSimSettings,
  slot: number,
): { purposes: ReadonlyArray<string>; labels: Readonly<Record<string, string>> } => {
  let shape: { purposes: ReadonlyArray<string>; labels: Readonly<Record<string, string>> } = {
    purposes: ["workload"],
    labels: {},
  }
  for (const e of settings.clusters) {
    if (e.clusters === undefined || e.clusters.some(([a, b]) => slot >= a && slot <= b))
      shape = { purposes: e.purposes, labels: e.labels }
  }
  return shape
}

/** The fleet simulation with the IPAM controller observing it. */
export class IpamSimulation extends Simulation {
  readonly ipamWorld: IpamWorld
  private readonly ipamSettings: IpamSimSettings
  private readonly byName = new Map<string, Slot>()
  private nextRestart = 0

  constructor(options: SimulationOptions, settings: IpamSimSettings) {
    super(options)
    this.ipamSettings = settings
    this.ipamWorld = new IpamWorld(
      settings.config,
      (cluster, check, message) => this.ipamViolation(cluster, check, message),
      settings.world,
    )
  }

  private ipamViolation(cluster: string, check: IpamCheck, message: string): void {
    const s = this.byName.get(cluster) ?? (this.slots.find((x) => x !== undefined) as Slot)
    this.violation(s, check, [], message)
  }

  protected override world(s: Slot, code: number, arg: number): void {
    super.world(s, code, arg)
    const w = this.ipamWorld as IpamWorld | undefined
    if (w === undefined) return // events during construction come before the IPAM controller starts
    const now = this.now
    const restarts = this.ipamSettings.restarts
    while (this.nextRestart < restarts.length && (restarts[this.nextRestart] as number) <= now) {
      w.restart(restarts[this.nextRestart] as number)
      this.nextRestart++
    }
    switch (WORLD_EVENTS[code]) {
      case "created": {
        this.byName.set(s.name, s)
        const shape = shapeOf(this.ipamSettings, s.index)
        w.createCluster(s.name, s.uid, shape.purposes, shape.labels, now)
        return
      }
      case "delete-requested":
        w.requestDelete(s.name, now)
        return
      case "cluster-removed":
        w.removeCluster(s.name, now)
        return
      default:
        w.advance(now)
    }
  }

  /** Runs the IPAM controller to the end of the run, then rebuilds and compares its state once more. */
  finishIpam(): void {
    this.ipamWorld.advance(this.end)
    this.ipamWorld.restart(this.end)
  }
}

/** What an IPAM run reports besides the fleet's summary. */
export interface IpamSummary {
  readonly parents: ReadonlyArray<string>
  readonly rules: ReadonlyArray<string>
  readonly reconciles: number
  readonly triggers: number
  readonly acquired: number
  readonly released: number
  readonly allocatedAtEnd: number
  readonly peakAllocated: number
  readonly exhaustedEvents: number
  readonly refreshes: number
  readonly decisions: Readonly<Record<string, number>>
  readonly invariants: Readonly<Record<IpamCheck, number>>
}

export const summarizeIpam = (
  sim: IpamSimulation,
  stats: IpamStats,
  config: IpamConfigSpec,
): IpamSummary => ({
  parents: Object.values(config.parentCIDRs).flat(),
  rules: config.injectionRules.map((r) => r.id),
  reconciles: stats.reconciles,
  triggers: stats.triggers,
  acquired: stats.acquired,
  released: stats.released,
  allocatedAtEnd: sim.ipamWorld.ipam.allocated.size,
  peakAllocated: stats.peakAllocated,
  exhaustedEvents: stats.exhaustedEvents,
  refreshes: stats.refreshes,
  decisions: Object.fromEntries(Object.entries(stats.rows).sort(([a], [b]) => (a < b ? -1 : 1))),
  invariants: {
    "ipam-disjoint": sim.violations.counts["ipam-disjoint"],
    "ipam-restore": sim.violations.counts["ipam-restore"],
  },
})

/** The IPAM part of the text summary. */
export const renderIpamSummary = (s: IpamSummary): string =>
  [
    "IPAM",
    `  parents            ${s.parents.join(", ")}`,
    `  rules              ${s.rules.join(", ")}`,
    `  reconciles         ${s.reconciles} (${s.triggers} watch events decided)`,
    `  CIDRs              ${s.acquired} acquired, ${s.released} released, ${s.allocatedAtEnd} held at the end (peak ${s.peakAllocated})`,
    `  exhausted          ${s.exhaustedEvents} Warning Events`,
    `  state rebuilt      ${s.refreshes} times (refreshes, restarts, end of run)`,
    `  ipam-disjoint      ${s.invariants["ipam-disjoint"]} violations`,
    `  ipam-restore       ${s.invariants["ipam-restore"]} violations`,
  ].join("\n")

/** Runs a fleet with the IPAM controller, in this thread. */
export const runIpamFleet = (
  config: SimConfig,
  settings: IpamSimSettings,
  options: Pick<FleetOptions, "trace" | "onProgress" | "progressEvery" | "onViolation"> = {},
): FleetResult & { readonly ipam: IpamSummary } => {
  const started = performance.now()
  const cpu0 = threadCpuSeconds()
  const every = options.progressEvery ?? 600_000
  const end = config.hours * 3_600_000
  const sim = new IpamSimulation(
    {
      config,
      ...(options.trace === undefined ? {} : { trace: options.trace }),
      ...(options.onViolation === undefined ? {} : { onViolation: options.onViolation }),
    },
    settings,
  )
  for (let t = Math.min(every, end); ; t = Math.min(t + every, end)) {
    sim.runUntil(t)
    const p: Progress = {
      now: t,
      end,
      clusters: sim.clusters,
      connected: sim.connected,
      provisioned: sim.provisioned,
      transitions: sim.measurements.totals.transitions,
      violations: sim.violations.total,
    }
    options.onProgress?.(p)
    if (t >= end) break
  }
  sim.finishIpam()
  const r = sim.finish()
  return {
    measurements: r.measurements,
    violations: r.violations,
    cpuSeconds: { main: threadCpuSeconds() - cpu0, workers: [] },
    ipam: summarizeIpam(sim, sim.ipamWorld.stats, settings.config),
    summary: summarize({
      config,
      workers: 1,
      measurements: r.measurements,
      violations: r.violations,
      traceHash: r.traceHash ?? "",
      traceRecords: r.traceRecords,
      wallSeconds: (performance.now() - started) / 1000,
      peakRssBytes: process.resourceUsage().maxRSS * 1024,
    }),
  }
}

/** The `ipam` section of a scenario file's text (YAML or JSON), `undefined` when it has none. */
export const ipamSectionOf = (data: unknown): { readonly present: boolean; readonly section: unknown } =>
  isObj(data) && "ipam" in data
    ? { present: true, section: data.ipam }
    : { present: false, section: undefined }
