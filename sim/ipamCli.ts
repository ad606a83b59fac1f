/**
 * `krtt simulate --ipam` (or a scenario with an `ipam` section): the fleet run with the IPAM
 * controller observing it, in one thread; the summary gains an IPAM part (text) or an `ipam`
 * key (JSON).
 *
 * @module
 */
import { closeSync } from "node:fs"
import { readFile, writeFile } from "node:fs/promises"
import { parse as parseYaml } from "yaml"
import type { SimulateIo, SimulateOptions } from "./cli.ts"
import type { SimConfig } from "./config.ts"
import {
  defaultIpamSettings,
  type IpamSimSettings,
  ipamSectionOf,
  renderIpamSummary,
  runIpamFleet,
  validateIpamSection,
} from "./ipam.ts"
import { renderReport } from "./report.ts"
import { renderSummary } from "./summary.ts"
import type { TraceSink } from "./trace.ts"

/** A usage problem (exit code 2); the CLI's own class is not imported to keep the modules acyclic. */
const usage = async (message: string): Promise<never> => {
  const { SimUsageError } = await import("./cli.ts")
  throw new SimUsageError(message)
}

/** The IPAM settings of a run, or `undefined` when IPAM is off. */
export const ipamSettingsOf = async (o: SimulateOptions): Promise<IpamSimSettings | undefined> => {
  let section: { present: boolean; section: unknown } = { present: false, section: undefined }
  if (o.scenario !== undefined) {
    try {
      section = ipamSectionOf(parseYaml(await readFile(o.scenario, "utf8")))
    } catch {
      // configOf has read and validated the file already; an unreadable file never gets here
    }
  }
  if (!section.present && o.ipam !== true) return undefined
  if (o.workers !== undefined && o.workers > 1)
    return usage(
      "--workers: the IPAM controller runs in one thread (one allocator for the fleet); drop --workers or use 1",
    )
  if (!section.present) return defaultIpamSettings()
  const v = validateIpamSection(section.section, o.clusters)
  if (Array.isArray(v))
    return usage(`${o.scenario}: invalid ipam section:\n${v.map((p) => `  - ${p}`).join("\n")}`)
  return v as IpamSimSettings
}

/** Runs the fleet with IPAM and prints the summary; returns the exit code. */
export const runSimulateIpam = async (
  o: SimulateOptions,
  config: SimConfig,
  ipam: IpamSimSettings,
  io: SimulateIo,
  trace: TraceSink | undefined,
  fd: number | undefined,
): Promise<number> => {
  let result: ReturnType<typeof runIpamFleet>
  try {
    result = runIpamFleet(config, ipam, trace === undefined ? {} : { trace })
    if (o.report !== undefined) await writeFile(o.report, renderReport(result.summary, result.measurements))
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
  const { summary } = result
  io.stdout(
    o.json
      ? `${JSON.stringify({ ...summary, ipam: result.ipam }, null, 2)}\n`
      : `${renderSummary(summary)}\n${renderIpamSummary(result.ipam)}\n`,
  )
  if (o.report !== undefined && !o.json) io.stdout(`report: ${o.report}\n`)
  return summary.violations === 0 ? 0 : 1
}
