/**
 * What the soak measures of each process at every settled point: resident memory and open
 * sockets, read from /proc (Linux, as the e2e tests' control plane), and whether they stayed flat
 * once warm.
 *
 * @module
 */
import { readdirSync, readFileSync, readlinkSync } from "node:fs"
import type { SoakSettings } from "./settings.ts"

export interface Sample {
  /** Milliseconds since the damage started. */
  readonly atMs: number
  readonly rssMiB: number
  readonly sockets: number
}

/** Resident memory (`VmRSS`) in MiB and open sockets of process `pid`; undefined once it is gone. */
export const sampleProcess = (pid: number, atMs: number): Sample | undefined => {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8")
    const kib = Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1] ?? Number.NaN)
    let sockets = 0
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      try {
        if (readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith("socket:")) sockets++
      } catch {
        // closed between the listing and the read
      }
    }
    return { atMs, rssMiB: kib / 1024, sockets }
  } catch {
    return undefined
  }
}

const median = (xs: ReadonlyArray<number>): number => {
  const sorted = [...xs].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN
}

/**
 * What breaks flatness in `samples` of process `name`: of the samples taken after the warm-up,
 * the later half's median RSS may exceed the earlier half's by `rssGrowthFactor` plus
 * `rssSlackMiB`, and the later half's most open sockets the earlier half's most by
 * `socketSlack`. Fewer than four warm samples is itself a problem (nothing to judge).
 */
export const flatnessProblems = (
  name: string,
  samples: ReadonlyArray<Sample>,
  settings: Pick<SoakSettings, "warmupMs" | "rssGrowthFactor" | "rssSlackMiB" | "socketSlack">,
): ReadonlyArray<string> => {
  const warm = samples.filter((s) => s.atMs >= settings.warmupMs)
  if (warm.length < 4) return [`${name}: ${warm.length} samples after the warm-up, 4 needed to judge`]
  const half = Math.floor(warm.length / 2)
  const [early, late] = [warm.slice(0, half), warm.slice(half)]
  const problems: Array<string> = []
  const [rssEarly, rssLate] = [median(early.map((s) => s.rssMiB)), median(late.map((s) => s.rssMiB))]
  const rssBound = rssEarly * settings.rssGrowthFactor + settings.rssSlackMiB
  if (rssLate > rssBound)
    problems.push(
      `${name}: RSS grew from a median of ${rssEarly.toFixed(1)} MiB to ${rssLate.toFixed(1)} MiB (bound ${rssBound.toFixed(1)})`,
    )
  const [socketsEarly, socketsLate] = [
    Math.max(...early.map((s) => s.sockets)),
    Math.max(...late.map((s) => s.sockets)),
  ]
  if (socketsLate > socketsEarly + settings.socketSlack)
    problems.push(
      `${name}: open sockets grew from at most ${socketsEarly} to ${socketsLate} (slack ${settings.socketSlack})`,
    )
  return problems
}

/** min / median / max of one figure over samples, rounded for the report. */
export const figureSpread = (samples: ReadonlyArray<Sample>, figure: "rssMiB" | "sockets") => {
  const xs = samples.map((s) => s[figure]).sort((a, b) => a - b)
  const round = (x: number | undefined) => Math.round((x ?? Number.NaN) * 10) / 10
  return { min: round(xs[0]), median: round(median(xs)), max: round(xs.at(-1)) }
}
