/**
 * `krtt simulate`: runs a fleet for a virtual duration and prints the summary (text, or JSON with
 * `--json`), optionally an HTML report and the text trace. It exits with 1 when an invariant was
 * violated and 2 on a usage error (a bad flag value or scenario file), naming what is wrong. The
 * command line is read in `commands.ts`, which loads this module when the command runs.
 *
 * @module
 */
import { closeSync, openSync, writeSync } from "node:fs"
import { readFile, writeFile } from "node:fs/promises"
import { availableParallelism } from "node:os"
import { type SimConfig, simConfig } from "./config.ts"
import { type Progress, runFleet } from "./fleet.ts"
import { CheckNames } from "./invariants.ts"
import { ipamSettingsOf, runSimulateIpam } from "./ipamCli.ts"
import { renderReport } from "./report.ts"
import { parseScenario, ScenarioError } from "./scenario.ts"
import { renderSummary, type SimSummary } from "./summary.ts"
import { type TraceSink, textSink } from "./trace.ts"
import { SimUsageError } from "./usageError.ts"

export { SimUsageError }

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
