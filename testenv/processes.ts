// Child processes of the control plane: each in its own process group, logged to a file,
// and killed (with its group) however this process ends: stop(), exit, SIGINT, SIGTERM, SIGHUP,
// or, through the reaper, even SIGKILL.
import { type ChildProcess, spawn } from "node:child_process"
import { closeSync, openSync, readFileSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { fileURLToPath } from "node:url"

export interface Exit {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
}

export interface Managed {
  readonly name: string
  readonly pid: number
  readonly logPath: string
  readonly child: ChildProcess
  /** Settles when the process has exited; never rejects. */
  readonly exited: Promise<Exit>
  /** Set once the process has exited. */
  readonly exit: () => Exit | undefined
}

/** Starts `command` detached (its own process group), stdout and stderr appended to `logPath`. */
export const startProcess = (
  name: string,
  command: string,
  args: ReadonlyArray<string>,
  options: { readonly cwd: string; readonly logPath: string; readonly env?: NodeJS.ProcessEnv },
): Promise<Managed> =>
  new Promise((resolve, reject) => {
    const fd = openSync(options.logPath, "a")
    let child: ChildProcess
    try {
      child = spawn(command, args, {
        cwd: options.cwd,
        env: options.env ?? process.env,
        detached: true,
        stdio: ["ignore", fd, fd],
      })
    } finally {
      closeSync(fd)
    }
    let exit: Exit | undefined
    const exited = new Promise<Exit>((settle) => {
      child.once("exit", (code, signal) => {
        exit = { code, signal }
        settle(exit)
      })
    })
    child.once("error", (e) => reject(new Error(`cannot start ${name} (${command}): ${e.message}`)))
    child.once("spawn", () => {
      // A forgotten stop() must not keep the process alive; the exit handler kills the group.
      child.unref()
      resolve({
        name,
        pid: child.pid ?? -1,
        logPath: options.logPath,
        child,
        exited,
        exit: () => exit,
      })
    })
  })

/** Signals the whole process group of `pid`; a group that is gone already is fine. */
export const killGroup = (pid: number, signal: NodeJS.Signals = "SIGKILL"): void => {
  try {
    process.kill(-pid, signal)
  } catch {
    try {
      process.kill(pid, signal)
    } catch {
      // gone already
    }
  }
}

/** The process exists and is not a zombie (an init that does not reap leaves those). */
export const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM"
  }
  try {
    // /proc/<pid>/stat: "pid (comm) S ..."; the state follows the last ")"
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z"
  } catch {
    return true
  }
}

/** Kills the group of `p` and waits for the process to be gone (at most `timeoutMs`). */
export const stopProcess = async (p: Managed, timeoutMs = 10_000): Promise<void> => {
  if (p.exit() !== undefined) return
  p.child.ref() // keep the event loop alive until the exit is seen
  killGroup(p.pid, "SIGKILL")
  let timer: NodeJS.Timeout | undefined
  await Promise.race([p.exited, new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs)))])
  clearTimeout(timer)
}

/** The last `lines` lines of a log file, for error messages. */
export const tail = (path: string, lines = 20): string => {
  try {
    return readFileSync(path, "utf8").trimEnd().split("\n").slice(-lines).join("\n")
  } catch {
    return "(no log)"
  }
}

// ---------------------------------------------------------------------------------------------
// Emergency clean-up: synchronous, for exit and signals

const cleanups = new Set<() => void>()
const signals: ReadonlyArray<NodeJS.Signals> = ["SIGINT", "SIGTERM", "SIGHUP"]

const runCleanups = (): void => {
  for (const cleanup of cleanups) {
    try {
      cleanup()
    } catch {
      // best effort: the others must still run
    }
  }
  cleanups.clear()
}

const onSignal = (signal: NodeJS.Signals): void => {
  runCleanups()
  uninstall()
  // With nobody else listening, do what the signal would have done without us.
  if (process.listenerCount(signal) === 0) process.kill(process.pid, signal)
}

const install = (): void => {
  process.on("exit", runCleanups)
  for (const signal of signals) process.on(signal, onSignal)
}

const uninstall = (): void => {
  process.off("exit", runCleanups)
  for (const signal of signals) process.off(signal, onSignal)
}

/** Registers a synchronous clean-up for exit and signals; call the result to unregister it. */
export const onEmergency = (cleanup: () => void): (() => void) => {
  if (cleanups.size === 0) install()
  cleanups.add(cleanup)
  return () => {
    cleanups.delete(cleanup)
    if (cleanups.size === 0) uninstall()
  }
}

/** Kills the groups and removes the directory, synchronously. */
export const killAndRemoveSync = (pids: ReadonlyArray<number>, dir: string): void => {
  for (const pid of pids) killGroup(pid, "SIGKILL")
  rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 })
}

/**
 * Starts the reaper: a small detached process that, should this process vanish without running
 * its handlers (SIGKILL, a crash of the runtime), kills the groups listed in `dir/pids.json` and
 * removes `dir`. It exits by itself once `dir` is gone.
 */
export const startReaper = (dir: string): ChildProcess => {
  const script = fileURLToPath(new URL("./reaper.ts", import.meta.url))
  const child = spawn(process.execPath, [script, String(process.pid), dir], {
    detached: true,
    stdio: "ignore",
  })
  child.unref()
  return child
}

// ---------------------------------------------------------------------------------------------
// Ports

const handedOut = new Set<number>()

const probePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer()
    server.unref()
    server.on("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() => {
        if (address !== null && typeof address === "object") resolve(address.port)
        else reject(new Error("no port"))
      })
    })
  })

/**
 * `n` distinct loopback ports that were free a moment ago. Ports handed out before by this
 * process are skipped, so that parallel start-ups do not race for the same port; a race with
 * another process stays possible and is handled by retrying the start.
 */
export const freePorts = async (n: number): Promise<ReadonlyArray<number>> => {
  const ports: Array<number> = []
  while (ports.length < n) {
    const port = await probePort()
    if (handedOut.has(port)) continue
    handedOut.add(port)
    ports.push(port)
  }
  return ports
}

export const addressInUse = (log: string): boolean => /address already in use|bind: address/i.test(log)
