/**
 * `krtt simulate` and `krtt live`: the simulator on the command line.
 *
 * `simulate` runs a fleet for a virtual duration and prints the summary (text, or JSON with
 * `--json`), optionally an HTML report and the text trace. It exits with 1 when an invariant was
 * violated and 2 on a usage error (a bad flag value or scenario file), naming what is wrong.
 *
 * @module
 */
import { closeSync, openSync, writeSync } from "node:fs"
import { readFile, writeFile } from "node:fs/promises"
import { availableParallelism } from "node:os"
import { Command, Flag } from "effect/cli"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { type SimConfig, SimDefaults, simConfig } from "./config.ts"
import { type Progress, runFleet } from "./fleet.ts"
import { CheckNames } from "./invariants.ts"
import { ipamSettingsOf, runSimulateIpam } from "./ipamCli.ts"
import { checkLiveOptions, LiveDefaults, live } from "./live.ts"
import { renderReport } from "./report.ts"
import { parseScenario, ScenarioError } from "./scenario.ts"
import { renderSummary, type SimSummary } from "./summary.ts"
import { type TraceSink, textSink } from "./trace.ts"

/** A problem with what the user asked for: printed as one message, exit code 2. */
export class SimUsageError extends Error {
  constructor(message: string) {
    super(message)
    this.name = "SimUsageError"
  }
}

export interface SimulateOptions {
  readonly clusters: number
  readonly hours: number
  readonly seed: number
  readonly outageRate: number
  readonly rotationRate: number
  readonly slowRate: number
  readonly deletionRate: number
  readonly scenario?: string | undefined
  readonly json: boolean
  readonly report?: string | undefined
  readonly trace?: string | undefined
  /** Worker threads; by default 1 for small runs, else up to 2. */
  readonly workers?: number | undefined
  /** Runs the IPAM controller over the fleet (also on when the scenario has an `ipam` section). */
  readonly ipam?: boolean | undefined
}

/** Where the command writes; a test passes its own. */
export interface SimulateIo {
  readonly stdout: (text: string) => void
  readonly stderr: (text: string) => void
  /** Whether stderr is a terminal (then progress is shown). */
  readonly tty: boolean
}

const processIo: SimulateIo = {
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
  tty: process.stderr.isTTY === true,
}

const check = (ok: boolean, message: string): void => {
  if (!ok) throw new SimUsageError(message)
}

/** The configuration the options describe; throws {@link SimUsageError} naming a bad value. */
export const configOf = async (o: SimulateOptions): Promise<SimConfig> => {
  check(
    Number.isInteger(o.clusters) && o.clusters >= 1 && o.clusters <= 1_000_000,
    `--clusters must be an integer from 1 to 1000000, got ${o.clusters}`,
  )
  check(
    Number.isFinite(o.hours) && o.hours > 0 && o.hours <= 10_000,
    `--hours must be more than 0 and at most 10000, got ${o.hours}`,
  )
  check(Number.isInteger(o.seed), `--seed must be an integer, got ${o.seed}`)
  for (const [flag, v] of [
    ["--outage-rate", o.outageRate],
    ["--rotation-rate", o.rotationRate],
    ["--slow-rate", o.slowRate],
    ["--deletion-rate", o.deletionRate],
  ] as const)
    check(
      Number.isFinite(v) && v >= 0 && v <= 100,
      `${flag} must be a rate per cluster-hour from 0 to 100, got ${v}`,
    )
  if (o.workers !== undefined)
    check(
      Number.isInteger(o.workers) && o.workers >= 1 && o.workers <= 64,
      `--workers must be an integer from 1 to 64, got ${o.workers}`,
    )
  let scenario: SimConfig["scenario"] = []
  if (o.scenario !== undefined) {
    let text: string
    try {
      text = await readFile(o.scenario, "utf8")
    } catch (e) {
      throw new SimUsageError(
        `cannot read the scenario file ${o.scenario}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`,
      )
    }
    try {
      scenario = parseScenario(text, o.clusters)
    } catch (e) {
      if (e instanceof ScenarioError) throw new SimUsageError(`${o.scenario}: ${e.message}`)
      throw e
    }
  }
  return simConfig({
    clusters: o.clusters,
    hours: o.hours,
    seed: o.seed >>> 0,
    faults: { outage: o.outageRate, rotation: o.rotationRate, slow: o.slowRate },
    churn: { deletionRate: o.deletionRate },
    scenario,
  })
}

/** Workers for a run: one for small runs, else as many as there are cores, at most two. */
export const defaultWorkers = (config: SimConfig): number =>
  config.clusters * config.hours >= 20_000 ? Math.max(1, Math.min(2, availableParallelism())) : 1

const bar = (p: Progress): string => {
  const width = 24
  const done = Math.round((p.now / p.end) * width)
  const h = (ms: number) => `${Math.round((ms / 3_600_000) * 10) / 10}h`
  return `\r[${"=".repeat(done)}${" ".repeat(width - done)}] ${h(p.now)}/${h(p.end)}  connected ${p.connected}/${p.clusters}  Provisioned ${p.provisioned}  transitions ${(p.transitions / 1e6).toFixed(1)}M  violations ${p.violations} `
}

/** Runs `krtt simulate`; returns the exit code. */
export const runSimulate = async (o: SimulateOptions, io: SimulateIo = processIo): Promise<number> => {
  const config = await configOf(o)
  const workers = o.workers ?? defaultWorkers(config)
  let fd: number | undefined
  let trace: TraceSink | undefined
  if (o.trace !== undefined) {
    try {
      fd = openSync(o.trace, "w")
    } catch (e) {
      throw new SimUsageError(
        `cannot write the trace file ${o.trace}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`,
      )
    }
    const out = fd
    trace = textSink((text) => writeSync(out, text), CheckNames)
  }
  const ipam = await ipamSettingsOf(o)
  if (ipam !== undefined) return runSimulateIpam(o, config, ipam, io, trace, fd)
  let summary: SimSummary
  try {
    const result = await runFleet(config, {
      workers,
      ...(trace === undefined ? {} : { trace }),
      ...(io.tty ? { onProgress: (p: Progress) => io.stderr(bar(p)) } : {}),
    })
    summary = result.summary
    if (io.tty) io.stderr("\r\x1b[K")
    if (o.report !== undefined) await writeFile(o.report, renderReport(summary, result.measurements))
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
  io.stdout(o.json ? `${JSON.stringify(summary, null, 2)}\n` : `${renderSummary(summary)}\n`)
  if (o.report !== undefined && !o.json) io.stdout(`report: ${o.report}\n`)
  return summary.violations === 0 ? 0 : 1
}

/** Runs a step and turns a usage error into one line on stderr and exit code 2. */
const userFacing = (f: () => Promise<number>): Effect.Effect<void> =>
  Effect.tryPromise({ try: f, catch: (e) => e }).pipe(
    Effect.match({
      onSuccess: (code) => {
        if (code !== 0) process.exitCode = code
      },
      onFailure: (e) => {
        process.stderr.write(
          `krtt: ${e instanceof SimUsageError ? e.message : `unexpected error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`}\n`,
        )
        process.exitCode = 2
      },
    }),
  )

const rate = (name: string, description: string, value: number) =>
  Flag.Finite(name).pipe(
    Flag.withDescription(`${description} per cluster-hour (default ${value})`),
    Flag.withDefault(value),
  )

export const simulate = Command.make(
  "simulate",
  {
    clusters: Flag.Int("clusters").pipe(
      Flag.withDescription("Cluster slots in the fleet"),
      Flag.withDefault(SimDefaults.clusters),
    ),
    hours: Flag.Finite("hours").pipe(
      Flag.withDescription("Virtual hours to simulate"),
      Flag.withDefault(SimDefaults.hours),
    ),
    seed: Flag.Int("seed").pipe(
      Flag.withDescription("Seed of the random streams"),
      Flag.withDefault(SimDefaults.seed),
    ),
    outageRate: rate("outage-rate", "API server outages", SimDefaults.faults.outage),
    rotationRate: rate("rotation-rate", "Credential rotations", SimDefaults.faults.rotation),
    slowRate: rate("slow-rate", "Slow periods (past the probe timeout)", SimDefaults.faults.slow),
    deletionRate: rate("deletion-rate", "Cluster deletions", SimDefaults.churn.deletionRate),
    scenario: Flag.optional(
      Flag.String("scenario").pipe(
        Flag.withDescription("A YAML or JSON timeline of incidents (see docs/simulation.md)"),
      ),
    ),
    json: Flag.Boolean("json").pipe(
      Flag.withDescription("Print the summary as JSON"),
      Flag.withDefault(false),
    ),
    report: Flag.optional(
      Flag.String("report").pipe(Flag.withDescription("Write a self-contained HTML report")),
    ),
    trace: Flag.optional(
      Flag.String("trace").pipe(Flag.withDescription("Write the trace as text, one record a line")),
    ),
    workers: Flag.optional(
      Flag.Int("workers").pipe(Flag.withDescription("Worker threads (default: 1 for small runs, else 2)")),
    ),
    ipam: Flag.Boolean("ipam").pipe(
      Flag.withDescription(
        "Run the IPAM controller (seed 004) over the fleet and check its invariants; the scenario's ipam section configures it",
      ),
      Flag.withDefault(false),
    ),
  },
  (f) =>
    userFacing(() =>
      runSimulate({
        clusters: f.clusters,
        hours: f.hours,
        seed: f.seed,
        outageRate: f.outageRate,
        rotationRate: f.rotationRate,
        slowRate: f.slowRate,
        deletionRate: f.deletionRate,
        scenario: Option.getOrUndefined(f.scenario),
        json: f.json,
        report: Option.getOrUndefined(f.report),
        trace: Option.getOrUndefined(f.trace),
        workers: Option.getOrUndefined(f.workers),
        ipam: f.ipam,
      }),
    ),
).pipe(
  Command.withDescription(
    "Simulate a fleet of Clusters in virtual time, running the ClusterCache and Cluster controller tables, and check their invariants",
  ),
)

export const liveCommand = Command.make(
  "live",
  {
    clusters: Flag.Int("clusters").pipe(
      Flag.withDescription("Clusters to watch"),
      Flag.withDefault(LiveDefaults.clusters),
    ),
    minutes: Flag.Finite("minutes").pipe(
      Flag.withDescription("Virtual minutes to run"),
      Flag.withDefault(LiveDefaults.minutes),
    ),
    speed: Flag.Finite("speed").pipe(
      Flag.withDescription("Virtual seconds per real second"),
      Flag.withDefault(LiveDefaults.speed),
    ),
    seed: Flag.Int("seed").pipe(
      Flag.withDescription("Seed of the random streams"),
      Flag.withDefault(LiveDefaults.seed),
    ),
  },
  (f) =>
    userFacing(async () => {
      const o = { clusters: f.clusters, minutes: f.minutes, speed: f.speed, seed: f.seed }
      const problem = checkLiveOptions(o)
      if (problem !== undefined) throw new SimUsageError(problem)
      return live(o)
    }),
).pipe(
  Command.withDescription(
    "Watch a small simulated fleet live: phases, connections, incidents and how they are handled",
  ),
)
