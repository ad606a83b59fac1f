/**
 * `krtt live` (and `npm start`): a small simulated fleet to watch. A few dozen Clusters are
 * created, provisioned and connected; API servers go down, get slow, have their credentials
 * rotated; Clusters are deleted and replaced. The terminal shows every Cluster's phase and
 * connection a few times per second while virtual time runs faster than real time, with the
 * incidents and how the controllers handled them. Without a terminal it prints a few summary
 * lines and exits.
 *
 * @module
 */
import { parseArgs } from "node:util"
import { type SimConfig, simConfig } from "./config.ts"
import { formatViolation, type Violation } from "./invariants.ts"
import { LiveDefaults, type LiveOptions } from "./liveOptions.ts"
import type { Incident } from "./scenario.ts"
import { Simulation } from "./simulation.ts"
import { decisions } from "./stats.ts"
import type { WorldEvent } from "./trace.ts"
import type { Slot } from "./world.ts"

export { checkLiveOptions, LiveDefaults, type LiveOptions } from "./liveOptions.ts"

const MIN = 60_000
const FRAME_MS = 250

/** How to go from the simulation to a real management cluster. */
export const REAL_CLUSTER_HINT = [
  "This was a simulation: the operator runs the same transition tables against real clusters.",
  "Against a real management cluster (see docs/operator.md):",
  "  krtt run --kubeconfig ~/.kube/config",
  "A large fleet, with every invariant checked: krtt simulate --clusters 10000 --hours 24",
].join("\n")

/** The live fleet: quick providers, frequent faults and a scripted set of incidents. */
export const liveConfig = (o: LiveOptions): SimConfig => {
  const n = o.clusters
  const pick = (from: number, count: number): ReadonlyArray<readonly [number, number]> => {
    const a = Math.min(n - 1, Math.floor(from * n))
    return [[a, Math.min(n - 1, a + Math.max(0, count - 1))]]
  }
  const at = (minute: number) => Math.min(minute, o.minutes * 0.9) * MIN
  const scenario: Array<Incident> = [
    { at: at(14), clusters: pick(0, 6), incident: "apiserver-down", for: 3 * MIN },
    { at: at(22), clusters: pick(0.3, 4), incident: "rotate-credentials", fixAfter: 90_000 },
    { at: at(28), clusters: pick(0.5, 3), incident: "apiserver-slow", for: 2 * MIN },
    { at: at(34), clusters: pick(0.85, 3), incident: "delete-cluster" },
  ]
  return simConfig({
    clusters: n,
    hours: o.minutes / 60,
    seed: o.seed >>> 0,
    faults: { outage: 0.15, slow: 0.05, rotation: 0.08 },
    providers: {
      infrastructureProvision: { min: 30_000, max: 120_000 },
      controlPlaneInitialize: { min: 60_000, max: 180_000 },
      stuckFraction: 0.03,
    },
    churn: { creationWindow: 3 * MIN, deletionRate: 0.1, recreateAfter: { min: MIN, max: 3 * MIN } },
    scenario,
  })
}

const ESC = "\x1b["
const color = (code: number, s: string) => `${ESC}${code}m${s}${ESC}0m`
const dim = (s: string) => color(2, s)
const green = (s: string) => color(32, s)
const red = (s: string) => color(31, s)
const yellow = (s: string) => color(33, s)
const magenta = (s: string) => color(35, s)
const bold = (s: string) => color(1, s)

const clock = (ms: number): string => {
  const s = Math.floor(ms / 1000)
  const pad = (v: number) => String(v).padStart(2, "0")
  return `${pad(Math.floor(s / 3600))}:${pad(Math.floor(s / 60) % 60)}:${pad(s % 60)}`
}

/** One Cluster as a fixed-width cell: slot, phase, connection, and the fault it suffers. */
const cell = (sim: Simulation, s: Slot): string => {
  const id = String(s.index).padStart(2, "0")
  if (!s.exists) return `${dim(`${id} ${"(none)".padEnd(12)} ·`)}     `
  const phase = s.status?.phase ?? "—"
  const painted =
    phase === "Provisioned"
      ? green(phase.padEnd(12))
      : phase === "Deleting"
        ? magenta(phase.padEnd(12))
        : phase === "Provisioning"
          ? yellow(phase.padEnd(12))
          : dim(phase.padEnd(12))
  const conn = sim.isConnected(s.index) ? green("●") : s.serverUp ? red("○") : dim("○")
  const fault =
    s.down > 0
      ? red("down")
      : s.slow > 0
        ? yellow("slow")
        : s.credentialsRotated
          ? red("401 ")
          : s.infraStuck
            ? yellow("stuk")
            : "    "
  return `${id} ${painted} ${conn} ${fault}`
}

interface Feed {
  readonly lines: Array<string>
  add(line: string): void
}

const feed = (max: number): Feed => {
  const lines: Array<string> = []
  return {
    lines,
    add(line) {
      lines.push(line)
      if (lines.length > max) lines.shift()
    },
  }
}

const WORLD_TEXT: Partial<Record<WorldEvent, (s: Slot) => string>> = {
  created: (s) => `${s.name} created`,
  "delete-requested": (s) => `${s.name} deletion requested`,
  "control-plane-initialized": (s) => `${s.name} control plane initialized`,
  "apiserver-down": (s) => red(`${s.name} API server down`),
  "apiserver-up": (s) => `${s.name} API server back`,
  "apiserver-slow": (s) => yellow(`${s.name} API server slower than the probe timeout`),
  "apiserver-fast": (s) => `${s.name} API server fast again`,
  "credentials-rotated": (s) => red(`${s.name} credentials rotated: the kubeconfig is stale`),
  "kubeconfig-fixed": (s) => `${s.name} kubeconfig Secret fixed`,
  "cluster-removed": (s) => `${s.name} removed after deleting descendants, control plane, infrastructure`,
  "provider-stuck": (s) => yellow(`${s.name} infrastructure provider stuck`),
}

/** Without a terminal: runs to the end and writes a summary; the exit code. */
const summaryOnly = (sim: Simulation, config: SimConfig, o: LiveOptions, out: NodeJS.WriteStream): number => {
  const r = sim.runToEnd()
  const d = decisions(r.measurements)
  const t = r.measurements.totals
  out.write(
    [
      `krtt live: ${config.clusters} simulated Clusters for ${o.minutes} virtual minutes (no terminal: summary only)`,
      `${t.clustersCreated} created, ${sim.provisioned} Provisioned and ${sim.connected} connected at the end; ${t.outages} outages, ${t.rotations} credential rotations, ${t.slowPeriods} slow periods, ${t.clustersDeleted} deleted`,
      `${t.disconnects} disconnects (${d["clustercache.reconciler#10"] ?? 0} at the failure threshold, ${d["clustercache.reconciler#11"] ?? 0} on a 401), ${t.connects} connects, ${t.transitions} transitions`,
      `invariants: ${r.violations.total === 0 ? "all held" : `${r.violations.total} violations`}; trace sha256 ${r.traceHash}`,
      REAL_CLUSTER_HINT,
      "",
    ].join("\n"),
  )
  return r.violations.total === 0 ? 0 : 1
}

/** One frame of the live view: the header, a cell per Cluster, the legend and the recent events. */
const frameLines = (
  sim: Simulation,
  slots: ReadonlyArray<Slot>,
  o: LiveOptions,
  violated: number,
  events: Feed,
  width: number,
  final: boolean,
): Array<string> => {
  const perRow = Math.max(1, Math.floor(width / 26))
  const t = sim.measurements.totals
  const lines = [
    `${bold("krtt live")} — ${slots.length} simulated Clusters running Cluster API's Cluster controller and ClusterCache tables`,
    `virtual time ${bold(clock(sim.now))} of ${clock(sim.end)} (${o.speed}× real time)   connected ${bold(`${sim.connected}/${sim.clusters}`)}   Provisioned ${sim.provisioned}   transitions ${t.transitions.toLocaleString("en-US")}   invariants ${violated === 0 ? green("all held") : red(`${violated} violated`)}`,
    "",
  ]
  for (let i = 0; i < slots.length; i += perRow)
    lines.push(
      slots
        .slice(i, i + perRow)
        .map((s) => cell(sim, s))
        .join(" "),
    )
  lines.push(
    "",
    `${green("●")} connected  ${red("○")} not connected  down/slow/401: the API server's trouble`,
    "",
    bold("Recent"),
  )
  for (const e of events.lines) lines.push(`  ${e}`)
  if (final) lines.push("", REAL_CLUSTER_HINT)
  return lines
}

/** Runs the live view; returns the exit code (1 if an invariant was violated). */
export const live = async (
  o: LiveOptions = LiveDefaults,
  out: NodeJS.WriteStream = process.stdout,
): Promise<number> => {
  const config = liveConfig(o)
  const events = feed(9)
  const violations: Array<Violation> = []
  const sim = new Simulation({
    config,
    onWorldEvent: (s, e, at) => {
      const text = WORLD_TEXT[e]
      if (text !== undefined) events.add(`${dim(clock(at))} ${text(s)}`)
    },
    onViolation: (v) => {
      violations.push(v)
      events.add(red(`VIOLATION ${formatViolation(v)}`))
    },
  })
  if (out.isTTY !== true) return summaryOnly(sim, config, o, out)
  const slots = sim.slots.filter((s): s is Slot => s !== undefined)
  let previous = slots.map((s) => sim.isConnected(s.index))
  const render = (final: boolean): void => {
    // Connection changes since the last frame: how the ClusterCache handled the incidents.
    slots.forEach((s, k) => {
      const now = sim.isConnected(s.index)
      if (now !== previous[k])
        events.add(
          `${dim(clock(sim.now))} ${now ? green(`${s.name} connected`) : red(`${s.name} disconnected`)}`,
        )
    })
    previous = slots.map((s) => sim.isConnected(s.index))
    const lines = frameLines(sim, slots, o, violations.length, events, out.columns ?? 100, final)
    out.write(`${ESC}H${ESC}J${lines.map((l) => `${l}${ESC}K`).join("\n")}\n`)
  }
  out.write(`${ESC}?25l${ESC}2J`)
  const restore = () => out.write(`${ESC}?25h`)
  const onSignal = () => {
    restore()
    process.exit(130)
  }
  process.once("SIGINT", onSignal)
  try {
    await new Promise<void>((resolve) => {
      const timer = setInterval(() => {
        sim.runUntil((sim.now + o.speed * FRAME_MS) | 0)
        const done = sim.now >= sim.end
        render(done)
        if (done) {
          clearInterval(timer)
          resolve()
        }
      }, FRAME_MS)
    })
  } finally {
    process.off("SIGINT", onSignal)
    restore()
  }
  const r = sim.finish()
  return r.violations.total === 0 ? 0 : 1
}

if (import.meta.main) {
  // `node sim/live.ts [--clusters N] [--minutes M] [--speed S] [--seed K]`: what `npm start` runs.
  const { values } = parseArgs({
    options: {
      clusters: { type: "string" },
      minutes: { type: "string" },
      speed: { type: "string" },
      seed: { type: "string" },
    },
  })
  const num = (v: string | undefined, d: number) => (v === undefined ? d : Number(v))
  const o: LiveOptions = {
    clusters: num(values.clusters, LiveDefaults.clusters),
    minutes: num(values.minutes, LiveDefaults.minutes),
    speed: num(values.speed, LiveDefaults.speed),
    seed: num(values.seed, LiveDefaults.seed),
  }
  const bad = Object.entries(o).find(
    ([k, v]) => !Number.isFinite(v) || v <= 0 || (k !== "speed" && k !== "minutes" && !Number.isInteger(v)),
  )
  if (bad !== undefined) {
    process.stderr.write(`krtt live: --${bad[0]} must be a positive number, got ${bad[1]}\n`)
    process.exitCode = 2
  } else
    live(o).then(
      (code) => {
        process.exitCode = code
      },
      (e) => {
        process.stderr.write(`krtt live: ${e instanceof Error ? e.message : String(e)}\n`)
        process.exitCode = 2
      },
    )
}
