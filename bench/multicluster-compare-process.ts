/**
 * One controller process as `bench/multicluster-compare.ts` observes it, whichever runtime it
 * is: started in its own process group with its log lines (stdout and stderr) handed to a
 * callback and kept in a file, its CPU time (user + system) and resident memory read from
 * `/proc/<pid>`, and stopped with SIGTERM (SIGKILL after a timeout).
 *
 * # Guarantees
 * - A process still running when the bench exits on an error is killed (testenv's emergency
 *   hook), so no controller outlives the control plane it talks to.
 *
 * @module
 */
import { spawn } from "node:child_process"
import { createWriteStream, readFileSync } from "node:fs"
import { createInterface } from "node:readline"
import { killGroup, onEmergency, tail } from "../testenv/processes.ts"

/** Clock ticks per second of `/proc/<pid>/stat` (USER_HZ, 100 on Linux). */
const TICKS = 100

/** What `/proc` says of a process now. */
export interface ProcSample {
  /** User + system CPU seconds since it started. */
  readonly cpuS: number
  /** Resident set size, KiB. */
  readonly rssKiB: number
  /** The highest resident set size so far (VmHWM), KiB. */
  readonly peakRssKiB: number
}

/** A started process. */
export interface Observed {
  readonly pid: number
  readonly command: string
  readonly sample: () => ProcSample
  /** Whether it has exited, and how. */
  readonly exit: () => { readonly code: number | null; readonly signal: string | null } | undefined
  /** The last lines of its log. */
  readonly tail: (lines?: number) => string
  /** SIGTERM, SIGKILL after `timeoutMs`; resolves once it exited. */
  readonly stop: (timeoutMs?: number) => Promise<void>
}

/** Reads CPU and memory of `pid` from `/proc`. */
export const procSample = (pid: number): ProcSample => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
  // Fields after the command (which may hold spaces) start after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  const utime = Number(fields[11])
  const stime = Number(fields[12])
  const status = readFileSync(`/proc/${pid}/status`, "utf8")
  const kib = (key: string) =>
    Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? Number.NaN)
  return { cpuS: (utime + stime) / TICKS, rssKiB: kib("VmRSS"), peakRssKiB: kib("VmHWM") }
}

/** Starts `command` with `args`; every output line goes to `onLine` and to `logPath`. */
export const startObserved = (options: {
  readonly name: string
  readonly command: string
  readonly args: ReadonlyArray<string>
  readonly env: NodeJS.ProcessEnv
  readonly cwd: string
  readonly logPath: string
  readonly onLine: (line: string) => void
}): Promise<Observed> =>
  new Promise((resolve, reject) => {
    const child = spawn(options.command, options.args, {
      cwd: options.cwd,
      env: options.env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    })
    const file = createWriteStream(options.logPath)
    let exit: { readonly code: number | null; readonly signal: string | null } | undefined
    const exited = new Promise<void>((settle) =>
      child.once("exit", (code, signal) => {
        exit = { code, signal }
        settle()
      }),
    )
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY }).on("line", (line) => {
        file.write(`${line}\n`)
        options.onLine(line)
      })
    }
    child.once("error", (e) =>
      reject(new Error(`cannot start ${options.name} (${options.command}): ${e.message}`)),
    )
    child.once("spawn", () => {
      const pid = child.pid ?? -1
      const unregister = onEmergency(() => killGroup(pid, "SIGKILL"))
      void exited.then(() => {
        unregister()
        file.end()
      })
      resolve({
        pid,
        command: `${options.command} ${options.args.join(" ")}`,
        sample: () => procSample(pid),
        exit: () => exit,
        tail: (lines = 30) => `last lines of ${options.logPath}:\n${tail(options.logPath, lines)}`,
        stop: async (timeoutMs = 15_000) => {
          if (exit !== undefined) return
          killGroup(pid, "SIGTERM")
          const timer = setTimeout(() => killGroup(pid, "SIGKILL"), timeoutMs)
          await exited
          clearTimeout(timer)
        },
      })
    })
  })
