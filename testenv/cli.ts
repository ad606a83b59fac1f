// npm run testenv -- <command>
//   install                          provide kube-apiserver, etcd and kubectl (build them once if needed)
//   path                             print the folder that holds them (nothing else on stdout)
//   up --clusters N --dir DIR        start a control plane in the background; write DIR/cluster-<i>.kubeconfig
//      [--no-controller-manager]     without kube-controller-manager (it runs by default)
//   down --dir DIR                   stop it and remove what `up` wrote
import { type ChildProcess, spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { mkdir, open, readdir, readFile, rm, rmdir, writeFile } from "node:fs/promises"
import { join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { parseArgs } from "node:util"
import { type Assets, AssetsError, ETCD_VERSION, ensureAssets, KUBERNETES_VERSION } from "./assets.ts"
import { ensureClusterctl } from "./capiBuild.ts"
import { CLUSTER_API_VERSION } from "./clusterapi.ts"
import { type ControlPlaneInfo, startControlPlane } from "./controlplane.ts"
import { isAlive, killGroup, tail } from "./processes.ts"

const usage = `usage: npm run --silent testenv -- <command>

  install                               provide kube-apiserver ${KUBERNETES_VERSION}, etcd ${ETCD_VERSION}, kubectl and kube-controller-manager:
                                        from KUBEBUILDER_ASSETS if set, else built once from Go modules
                                        and cached in \${XDG_CACHE_HOME:-~/.cache}/krtt/k8s-${KUBERNETES_VERSION};
                                        and Cluster API's clusterctl ${CLUSTER_API_VERSION}, built once from its module
  path                                  print the folder that holds the three binaries
  up --dir DIR [--clusters N] [--users N] [--controller-manager | --no-controller-manager]
                                        start one etcd and N kube-apiservers (1 by default) in the background,
                                        each with a kube-controller-manager (garbage collector, namespace
                                        controller, ClusterRole aggregation) unless --no-controller-manager;
                                        writes DIR/cluster-<i>.kubeconfig (admin) and
                                        DIR/cluster-<i>.noaccess.kubeconfig (authenticated, no permissions)
  down --dir DIR                        stop the control plane started in DIR and remove what up wrote
`

class CliError extends Error {
  override readonly name = "CliError"
}

// ---------------------------------------------------------------------------------------------
// The state `up` leaves in DIR

const STATE = "testenv.json"
const LOG = "testenv.log"
const RUN = "run"

interface State {
  readonly status: "starting" | "running"
  /** The `up` command while starting, then the background process that owns the control plane. */
  readonly pid: number
  readonly clusters: number
  readonly kubernetesVersion?: string
  readonly startedAt: string
}

const kubeconfigFiles = (index: number): { readonly admin: string; readonly noAccess: string } => ({
  admin: `cluster-${index}.kubeconfig`,
  noAccess: `cluster-${index}.noaccess.kubeconfig`,
})

const readState = async (dir: string): Promise<State | undefined> => {
  try {
    return JSON.parse(await readFile(join(dir, STATE), "utf8")) as State
  } catch {
    return undefined
  }
}

/** Alive, and (where /proc tells) still this command: pids get reused. */
const isTestenv = (pid: number): boolean => {
  if (!isAlive(pid)) return false
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("cli.ts")
  } catch {
    return true
  }
}

/** Kills what a control plane in DIR may have left and removes every file `up` wrote. */
const removeLeftovers = async (dir: string): Promise<void> => {
  try {
    const pids = JSON.parse(await readFile(join(dir, RUN, "pids.json"), "utf8")) as Array<number>
    for (const pid of pids) killGroup(pid, "SIGKILL")
  } catch {
    // nothing was started
  }
  await rm(join(dir, RUN), { recursive: true, force: true, maxRetries: 10, retryDelay: 100 })
  const files = await readdir(dir).catch(() => [] as Array<string>)
  for (const file of files) {
    if (file === STATE || file === LOG || /^cluster-\d+(\.noaccess)?\.kubeconfig$/.test(file)) {
      await rm(join(dir, file), { force: true })
    }
  }
  // DIR itself goes when nothing else is in it
  await rmdir(dir).catch(() => {})
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

const waitGone = async (pid: number, ms: number): Promise<boolean> => {
  const deadline = Date.now() + ms
  while (isAlive(pid)) {
    if (Date.now() > deadline) return false
    await sleep(100)
  }
  return true
}

// ---------------------------------------------------------------------------------------------
// Commands

const positiveInt = (value: string | undefined, name: string, fallback: number): number => {
  if (value === undefined) return fallback
  const n = Number(value)
  if (!Number.isInteger(n) || n < 1) throw new CliError(`--${name} must be a positive integer, got ${value}`)
  return n
}

const requireDir = (value: string | undefined, command: string): string => {
  if (value === undefined || value === "") throw new CliError(`${command} needs --dir DIR`)
  // npm run changes to the package's folder; a relative DIR means relative to where the user was
  return resolve(process.env.INIT_CWD ?? process.cwd(), value)
}

const up = async (
  dir: string,
  clusters: number,
  users: number,
  controllerManager: boolean,
): Promise<void> => {
  const started = Date.now()
  await mkdir(dir, { recursive: true })
  // Claim DIR: the state file is created exclusively, so two `up`s on one DIR cannot both start.
  for (;;) {
    try {
      const claim = await open(join(dir, STATE), "wx")
      const state: State = {
        status: "starting",
        pid: process.pid,
        clusters,
        startedAt: new Date().toISOString(),
      }
      await claim.writeFile(JSON.stringify(state, null, 2))
      await claim.close()
      break
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e
    }
    const state = await readState(dir)
    if (state !== undefined && isTestenv(state.pid)) {
      throw new CliError(
        `a control plane is already ${state.status} in ${dir} (pid ${state.pid}, ${state.clusters} cluster(s)); ` +
          `stop it first with: npm run testenv -- down --dir ${dir}`,
      )
    }
    process.stderr.write(`testenv: removing what a control plane that is gone left in ${dir}\n`)
    await removeLeftovers(dir)
    await mkdir(dir, { recursive: true })
  }

  let child: ChildProcess | undefined
  let interruptedBy: NodeJS.Signals | undefined
  try {
    const assets = await ensureAssets({ controllerManager })
    const readyFrom = Date.now()
    const log = await open(join(dir, LOG), "a")
    const cli = fileURLToPath(import.meta.url)
    const args = [cli, "serve", "--dir", dir, "--clusters", String(clusters), "--users", String(users)]
    args.push("--kube-apiserver", assets.kubeApiserver, "--etcd", assets.etcd)
    if (assets.kubeControllerManager !== undefined)
      args.push("--kube-controller-manager", assets.kubeControllerManager)
    child = spawn(process.execPath, args, {
      cwd: dir,
      detached: true,
      stdio: ["ignore", log.fd, log.fd, "ipc"],
    })
    await log.close()
    const spawned = child
    // Interrupted while waiting: the background process is in a group of its own, so the
    // terminal's SIGINT does not reach it; stop it rather than leave it running unseen.
    const interrupted = (signal: NodeJS.Signals): void => {
      interruptedBy = signal
      if (spawned.pid !== undefined) killGroup(spawned.pid, "SIGTERM")
    }
    process.once("SIGINT", interrupted)
    process.once("SIGTERM", interrupted)
    const ready = await new Promise<{ readonly info: ControlPlaneInfo; readonly startupMs: number }>(
      (resolveReady, reject) => {
        spawned.once("message", (message) =>
          resolveReady(message as { info: ControlPlaneInfo; startupMs: number }),
        )
        spawned.once("error", reject)
        spawned.once("exit", (code, signal) =>
          reject(
            new CliError(
              `the control plane did not start (${signal ?? `exit ${code}`}); ${join(dir, LOG)}:\n${tail(join(dir, LOG), 30)}`,
            ),
          ),
        )
      },
    )
    spawned.removeAllListeners("exit")
    process.off("SIGINT", interrupted)
    process.off("SIGTERM", interrupted)
    if (spawned.connected) spawned.disconnect()
    spawned.unref()
    const seconds = ((Date.now() - readyFrom) / 1000).toFixed(1)
    for (const cluster of ready.info.clusters) {
      const files = kubeconfigFiles(cluster.index)
      process.stdout.write(
        `${cluster.name}  ${cluster.server}  ${join(dir, files.admin)}  ${join(dir, files.noAccess)}\n`,
      )
    }
    process.stdout.write(
      `control plane up in ${seconds} s: ${clusters} cluster(s), Kubernetes ${ready.info.kubernetesVersion}, ` +
        `${ready.info.controllerManager === true ? "with" : "without"} kube-controller-manager, ` +
        `pid ${spawned.pid} (${((Date.now() - started) / 1000).toFixed(1)} s in all)\n` +
        `stop it with: npm run testenv -- down --dir ${dir}\n`,
    )
  } catch (e) {
    if (child?.pid !== undefined) killGroup(child.pid, "SIGTERM")
    if (child?.pid !== undefined) await waitGone(child.pid, 10_000)
    await removeLeftovers(dir)
    if (interruptedBy !== undefined) {
      process.stderr.write(`testenv: ${interruptedBy} while starting: stopped, nothing left in ${dir}\n`)
      process.exit(interruptedBy === "SIGINT" ? 130 : 143)
    }
    throw e
  }
}

/** The background process started by `up`: owns the control plane until SIGTERM or SIGINT. */
const serve = async (
  dir: string,
  clusters: number,
  users: number,
  assets: Pick<Assets, "kubeApiserver" | "etcd" | "kubeControllerManager">,
) => {
  const log = (line: string): void => {
    process.stdout.write(`${new Date().toISOString()} ${line}\n`)
  }
  const cp = await startControlPlane({
    clusters,
    users,
    dir: join(dir, RUN),
    assets,
    controllerManager: assets.kubeControllerManager !== undefined,
    log,
  })
  for (const cluster of cp.info.clusters) {
    const files = kubeconfigFiles(cluster.index)
    await writeFile(join(dir, files.admin), cluster.admin.kubeconfig, { mode: 0o600 })
    await writeFile(join(dir, files.noAccess), cluster.noAccess.kubeconfig, { mode: 0o600 })
  }
  const state: State = {
    status: "running",
    pid: process.pid,
    clusters,
    kubernetesVersion: cp.info.kubernetesVersion,
    startedAt: new Date().toISOString(),
  }
  await writeFile(join(dir, STATE), JSON.stringify(state, null, 2))
  // Stay alive; the control plane's exit handlers kill it on SIGTERM/SIGINT/SIGHUP, then we stop.
  const keepAlive = setInterval(() => {}, 1 << 30)
  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) {
    process.once(signal, () => {
      log(`${signal}: stopping`)
      cp.stop().then(
        () => {
          clearInterval(keepAlive)
          process.exit(0)
        },
        () => process.exit(1),
      )
    })
  }
  process.send?.({ info: cp.info, startupMs: cp.startupMs })
  process.disconnect?.()
  log(`ready: ${clusters} cluster(s) in ${(cp.startupMs / 1000).toFixed(1)} s`)
}

const down = async (dir: string): Promise<void> => {
  const state = await readState(dir)
  if (state === undefined) {
    await removeLeftovers(dir)
    process.stderr.write(`testenv: no control plane in ${dir}\n`)
    return
  }
  if (state.status === "starting" && isTestenv(state.pid)) {
    throw new CliError(
      `the control plane in ${dir} is still starting (pid ${state.pid}); run down once up has returned`,
    )
  }
  if (isTestenv(state.pid)) {
    killGroup(state.pid, "SIGTERM")
    if (!(await waitGone(state.pid, 30_000))) {
      process.stderr.write(`testenv: pid ${state.pid} did not stop within 30 s; killing it\n`)
      killGroup(state.pid, "SIGKILL")
      await waitGone(state.pid, 10_000)
    }
  }
  await removeLeftovers(dir)
  process.stdout.write(`control plane in ${dir} stopped (pid ${state.pid})\n`)
}

const main = async (argv: ReadonlyArray<string>): Promise<void> => {
  const { positionals, values } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    allowNegative: true,
    options: {
      dir: { type: "string" },
      clusters: { type: "string" },
      users: { type: "string" },
      "kube-apiserver": { type: "string" },
      etcd: { type: "string" },
      "kube-controller-manager": { type: "string" },
      "controller-manager": { type: "boolean", default: true },
      help: { type: "boolean", short: "h" },
    },
  })
  const command = positionals[0]
  if (values.help === true || command === "help" || command === undefined) {
    process.stdout.write(usage)
    return
  }
  switch (command) {
    case "install": {
      const assets = await ensureAssets()
      const where = assets.source === "KUBEBUILDER_ASSETS" ? "from KUBEBUILDER_ASSETS" : assets.source
      process.stdout.write(`kube-apiserver, etcd and kubectl in ${assets.dir} (${where})\n`)
      if (assets.kubeControllerManager !== undefined)
        process.stdout.write(`kube-controller-manager: ${assets.kubeControllerManager}\n`)
      const clusterctl = await ensureClusterctl((line) => process.stdout.write(`${line}\n`))
      process.stdout.write(`clusterctl ${CLUSTER_API_VERSION}: ${clusterctl}\n`)
      return
    }
    case "path": {
      process.stdout.write(`${(await ensureAssets()).dir}\n`)
      return
    }
    case "up":
      return up(
        requireDir(values.dir, "up"),
        positiveInt(values.clusters, "clusters", 1),
        positiveInt(values.users, "users", 20),
        values["controller-manager"] !== false,
      )
    case "down":
      return down(requireDir(values.dir, "down"))
    case "serve": {
      const kubeApiserver = values["kube-apiserver"]
      const etcd = values.etcd
      if (kubeApiserver === undefined || etcd === undefined)
        throw new CliError("serve needs --kube-apiserver and --etcd")
      return serve(
        requireDir(values.dir, "serve"),
        positiveInt(values.clusters, "clusters", 1),
        positiveInt(values.users, "users", 20),
        { kubeApiserver, etcd, kubeControllerManager: values["kube-controller-manager"] },
      )
    }
    default:
      throw new CliError(`unknown command ${command}\n\n${usage}`)
  }
}

main(process.argv.slice(2)).catch((e: unknown) => {
  const message =
    e instanceof CliError || e instanceof AssetsError
      ? e.message
      : e instanceof Error
        ? (e.stack ?? e.message)
        : String(e)
  process.stderr.write(`testenv: ${message}\n`)
  process.exit(1)
})
