/**
 * `krtt propagate`: the uniform fleet controller (issue 14, item 1). Every hub ConfigMap and
 * Secret labelled `krtt.io/propagate: "true"` is kept identical in the namespace of the same name
 * in every engaged cluster (docs/fleet.md).
 *
 * ```
 * krtt propagate --kubeconfig HUB --provider NAME [--provider-namespace NS]
 *                [--provider-kubeconfig FILE] [--namespace NS] [--retry-interval 5s]
 *                [--cluster-timeout 10s] [--permission-recheck-interval 10s] [manager flags]
 * ```
 *
 * The manager flags are `krtt run`'s own (`shell/manager/flags.ts`: upstream's names, defaults and
 * pflag syntax), the same subset as `krtt inventory` takes: leader election, metrics/diagnostics,
 * probes, graceful stop, hub client limits, logs. The Lease is `krtt-propagate` unless
 * `--leader-elect-id` says otherwise. An unknown flag is an error naming the closest known one;
 * a bad value names its flag; both exit 2.
 *
 * @module
 */
import { existsSync, readFileSync } from "node:fs"
import { Effect, Logger, References } from "effect"
import { Argument, Command } from "effect/cli"
import { PropagateDefaults } from "../../core/propagate/index.ts"
import { type PropagateRunOptions, runPropagate } from "../fleet/propagateRun.ts"
import { managerOptionsFromArgs } from "../manager/args.ts"
import { logLevelOf } from "../manager/command.ts"
import { closestFlag, FlagError, parseFlags, readDuration, UpstreamFlags } from "../manager/flags.ts"
import { resolveKubeconfig } from "../manager/kubeconfig.ts"
import { InventoryManagerFlags, InventoryOwnFlags } from "./inventory.ts"

/** The Lease of `krtt propagate` when `--leader-elect-id` is not given. */
export const PROPAGATE_LEASE = "krtt-propagate"

/** The manager flags (of `krtt run`) that `krtt propagate` takes: the fleet controllers' subset. */
export const PropagateManagerFlags: ReadonlyArray<string> = InventoryManagerFlags

const seconds = (ms: number) => `${ms / 1000}s`

/** The flags of the propagation itself (the provider's as `krtt clusters` and `krtt inventory`). */
export const PropagateOwnFlags = {
  provider: InventoryOwnFlags.provider,
  "provider-namespace": InventoryOwnFlags["provider-namespace"],
  "provider-kubeconfig": InventoryOwnFlags["provider-kubeconfig"],
  namespace:
    "The hub namespace of the ConfigMap krtt-propagate-pending (clusters still to clean); default $POD_NAMESPACE, the in-cluster namespace, else default",
  "retry-interval": `A source not in sync everywhere is looked at again after this (default ${seconds(PropagateDefaults.retryInterval)})`,
  "cluster-timeout": `One cluster's part of a source's reconcile may take this long (default ${seconds(PropagateDefaults.clusterTimeout)})`,
  "permission-recheck-interval": `Each cluster's informers' permissions are reviewed this often (default ${seconds(PropagateDefaults.permissionRecheckInterval)})`,
} as const
type Own = keyof typeof PropagateOwnFlags

/** What the command line asks for. */
export type PropagateArgs = PropagateRunOptions

const NAMESPACE_FILE = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"

/** The usage text. */
export const propagateUsage = (): string =>
  [
    "Usage: krtt propagate --provider NAME [flags]",
    "",
    ...Object.entries(PropagateOwnFlags).map(([name, usage]) => `      --${name} string\n        ${usage}`),
    "",
    "Manager flags (as krtt run):",
    ...UpstreamFlags.filter((s) => PropagateManagerFlags.includes(s.name)).map((s) => {
      const def = s.name === "leader-elect-id" ? PROPAGATE_LEASE : s.default
      const name = s.shorthand === undefined ? `    --${s.name}` : `-${s.shorthand}, --${s.name}`
      return `  ${name} ${s.type === "bool" ? "" : s.type}\n        ${s.usage}${def === "" ? "" : ` (default ${def})`}`
    }),
  ].join("\n")

/**
 * Parses the words after `krtt propagate`; `"help"` when help was asked. Throws
 * {@link FlagError} naming the flag on an unknown flag, a missing value, or a bad value.
 */
export const parsePropagateArgs = (
  argv: ReadonlyArray<string>,
  env: NodeJS.ProcessEnv = process.env,
): PropagateArgs | "help" => {
  const own = new Map<Own, string>()
  const rest: Array<string> = []
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string
    const m = /^--?([^=]+)(?:=(.*))?$/s.exec(arg)
    const name = m?.[1]?.replaceAll("_", "-")
    if (m === null || name === undefined || !(name in PropagateOwnFlags)) {
      rest.push(arg)
      continue
    }
    let value = m[2]
    if (value === undefined) {
      value = argv[i + 1]
      if (value === undefined) throw new FlagError(`flag needs an argument: --${name}`)
      i++
    }
    own.set(name as Own, value)
  }
  const parsed = parseFlags(rest)
  if (parsed.help) return "help"
  if (parsed.args.length > 0)
    throw new FlagError(
      `unexpected argument "${parsed.args[0]}": krtt propagate takes flags only (--name=value)`,
    )
  const known = [...Object.keys(PropagateOwnFlags), ...PropagateManagerFlags]
  for (const flag of parsed.values.keys())
    if (!PropagateManagerFlags.includes(flag))
      throw new FlagError(
        `unknown flag: --${flag} (krtt propagate does not take it; did you mean --${closestFlag(flag, known)}?)`,
      )
  const run = managerOptionsFromArgs(rest, env)
  if (run._tag === "Help") return "help"
  const provider = own.get("provider")
  if (provider === undefined || provider.trim() === "")
    throw new FlagError("--provider is required (e.g. --provider kubeconfig-secrets)")
  const duration = (flag: Own, fallback: number) => {
    const text = own.get(flag)
    if (text === undefined) return fallback
    const ms = readDuration(flag, text)
    if (ms <= 0) throw new FlagError(`invalid argument "${text}" for --${flag}: must be positive`)
    return ms
  }
  const namespace =
    own.get("namespace") ??
    env.POD_NAMESPACE ??
    (existsSync(NAMESPACE_FILE) ? readFileSync(NAMESPACE_FILE, "utf8").trim() : "default")
  if (namespace.trim() === "") throw new FlagError("--namespace: must not be empty")
  const providerNamespace = own.get("provider-namespace")
  const providerKubeconfig = own.get("provider-kubeconfig")
  return {
    manager: { ...run.options, leaderElectId: parsed.values.get("leader-elect-id") ?? PROPAGATE_LEASE },
    provider,
    providerFlags: {
      ...(providerNamespace === undefined ? {} : { providerNamespace }),
      ...(providerKubeconfig === undefined ? {} : { providerKubeconfig }),
    },
    namespace,
    config: {
      retryInterval: duration("retry-interval", PropagateDefaults.retryInterval),
      clusterTimeout: duration("cluster-timeout", PropagateDefaults.clusterTimeout),
      permissionRecheckInterval: duration(
        "permission-recheck-interval",
        PropagateDefaults.permissionRecheckInterval,
      ),
    },
  }
}

/** Hands the words after `krtt propagate` to the parser untouched, as `krtt run` does. */
export const passPropagateArgsThrough = (argv: Array<string> = process.argv): void => {
  if (argv[2] === "propagate" && argv[3] !== "--" && argv.length > 3) argv.splice(3, 0, "--")
}

/** Exits the process after the graceful shutdown timeout once a stop began, whatever still runs. */
const forceExitAfter = (timeout: number) =>
  Effect.addFinalizer(() =>
    Effect.sync(() => {
      setTimeout(() => {
        process.stderr.write(`krtt propagate: shutdown took longer than ${timeout} ms; exiting\n`)
        process.exit(1)
      }, timeout).unref()
    }),
  )

/** Runs `krtt propagate` from its words. */
export const propagateArgs = (argv: ReadonlyArray<string>): Effect.Effect<void> =>
  Effect.gen(function* () {
    let args: PropagateArgs | "help"
    let resolved: ReturnType<typeof resolveKubeconfig>
    try {
      args = parsePropagateArgs(argv)
      if (args === "help") {
        process.stdout.write(`${propagateUsage()}\n`)
        return
      }
      resolved = resolveKubeconfig(args.manager.kubeconfig)
    } catch (e) {
      process.stderr.write(`krtt propagate: ${(e as Error).message}\n`)
      process.exitCode = 2
      return
    }
    if (resolved === undefined) {
      process.stderr.write(
        "krtt propagate: --kubeconfig: no hub cluster is configured (no --kubeconfig, no $KUBECONFIG, not in a cluster, no ~/.kube/config)\n",
      )
      process.exitCode = 2
      return
    }
    const a = args
    const logger = a.manager.loggingFormat === "json" ? Logger.consoleJson : Logger.consoleLogFmt
    yield* Effect.scoped(
      Effect.andThen(forceExitAfter(a.manager.gracefulShutdownTimeout), runPropagate(a, resolved)),
    ).pipe(
      Effect.catch((e: Error) =>
        Effect.andThen(
          Effect.logError("krtt propagate stopped").pipe(Effect.annotateLogs({ error: e.message })),
          Effect.sync(() => {
            process.exitCode = /^--/.test(e.message) ? 2 : 1
          }),
        ),
      ),
      Effect.provideService(References.MinimumLogLevel, logLevelOf(a.manager.logVerbosity ?? 2)),
      Effect.provide(Logger.layer([logger])),
    )
  })

/** The `propagate` subcommand (its words are parsed by {@link parsePropagateArgs}). */
export const propagateCommand = () => {
  passPropagateArgsThrough()
  return Command.make(
    "propagate",
    {
      flags: Argument.String("flags").pipe(
        Argument.withDescription("krtt propagate --help lists the flags"),
        Argument.variadic(),
      ),
    },
    ({ flags }) => propagateArgs(flags),
  ).pipe(
    Command.withDescription(
      'Keep every hub ConfigMap and Secret labelled krtt.io/propagate: "true" identical in every engaged cluster (issue 14)',
    ),
  )
}
