/**
 * `krtt inventory`: the aggregating fleet controller (issue 14, item 2). One hub ConfigMap
 * `krtt-inventory` in `--namespace` holds a key per engaged cluster: Kubernetes version, Node
 * count, Ready Node count, engaged since, last change; unreachable while disengaged by health;
 * removed when the cluster leaves the provider.
 *
 * ```
 * krtt inventory --kubeconfig HUB --provider NAME [--provider-namespace NS]
 *                [--provider-kubeconfig FILE] --namespace NS [--debounce 2s] [manager flags]
 * ```
 *
 * The manager's flags are `krtt run`'s own (`shell/manager/flags.ts`, upstream Cluster API's
 * names, defaults and pflag syntax), limited to those that concern this process: leader
 * election, metrics/diagnostics, probes, graceful stop, hub client limits, logs. The Lease is
 * `krtt-inventory` unless `--leader-elect-id` says otherwise (not upstream's, so that `krtt
 * run` and `krtt inventory` never share one). An unknown flag is an error naming the closest
 * known one; a bad value names its flag; both exit 2.
 *
 * @module
 */
import { Effect, Logger, References } from "effect"
import { Argument, Command } from "effect/cli"
import { InventoryDefaults } from "../../core/inventory/index.ts"
import { runInventory } from "../fleet/inventoryRun.ts"
import { managerOptionsFromArgs } from "../manager/args.ts"
import { logLevelOf } from "../manager/command.ts"
import { closestFlag, FlagError, parseFlags, readDuration, UpstreamFlags } from "../manager/flags.ts"
import { resolveKubeconfig } from "../manager/kubeconfig.ts"
import type { ManagerOptions } from "../manager/options.ts"
import type { ProviderFlags } from "../multicluster/providers/index.ts"

/** The Lease of `krtt inventory` when `--leader-elect-id` is not given. */
export const INVENTORY_LEASE = "krtt-inventory"

/** The manager flags (of `krtt run`) that `krtt inventory` takes. */
export const InventoryManagerFlags: ReadonlyArray<string> = [
  "kubeconfig",
  "leader-elect",
  "leader-elect-namespace",
  "leader-elect-id",
  "leader-elect-lease-duration",
  "leader-elect-renew-deadline",
  "leader-elect-retry-period",
  "diagnostics-address",
  "insecure-diagnostics",
  "metrics-bind-address",
  "health-addr",
  "health-probe-bind-address",
  "tls-min-version",
  "tls-cipher-suites",
  "graceful-shutdown-timeout",
  "kube-api-qps",
  "kube-api-burst",
  "v",
  "logging-format",
]

/** The flags of the inventory itself. */
export const InventoryOwnFlags = {
  provider:
    "The cluster provider: kubeconfig-secrets, kubeconfig-file, namespaces, cluster-api (comma-separated: composed)",
  "provider-namespace":
    "kubeconfig-secrets: the namespace of the Secrets; cluster-api: only Clusters of this namespace",
  "provider-kubeconfig": "kubeconfig-file: the file whose contexts are the clusters",
  namespace: "The hub namespace of the ConfigMap krtt-inventory (required)",
  debounce: `A change of a cluster's Nodes is written once it has been pending this long (default ${InventoryDefaults.debounce / 1000}s)`,
} as const
type Own = keyof typeof InventoryOwnFlags

/** What the command line asks for. */
export interface InventoryArgs {
  readonly manager: ManagerOptions
  readonly provider: string
  readonly providerFlags: ProviderFlags
  readonly namespace: string
  readonly debounce: number
}

/** The usage text. */
export const inventoryUsage = (): string =>
  [
    "Usage: krtt inventory --provider NAME --namespace NS [flags]",
    "",
    ...Object.entries(InventoryOwnFlags).map(
      ([name, usage]) => `      --${name} ${name === "debounce" ? "duration" : "string"}\n        ${usage}`,
    ),
    "",
    "Manager flags (as krtt run):",
    ...UpstreamFlags.filter((s) => InventoryManagerFlags.includes(s.name)).map((s) => {
      const def = s.name === "leader-elect-id" ? INVENTORY_LEASE : s.default
      const name = s.shorthand === undefined ? `    --${s.name}` : `-${s.shorthand}, --${s.name}`
      return `  ${name} ${s.type === "bool" ? "" : s.type}\n        ${s.usage}${def === "" ? "" : ` (default ${def})`}`
    }),
  ].join("\n")

/**
 * Parses the words after `krtt inventory`; `"help"` when help was asked. Throws {@link FlagError}
 * naming the flag on an unknown flag, a missing value, or a bad value.
 */
export const parseInventoryArgs = (
  argv: ReadonlyArray<string>,
  env: NodeJS.ProcessEnv = process.env,
): InventoryArgs | "help" => {
  const own = new Map<Own, string>()
  const rest: Array<string> = []
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string
    const m = /^--?([^=]+)(?:=(.*))?$/s.exec(arg)
    const name = m?.[1]?.replaceAll("_", "-")
    if (m === null || name === undefined || !(name in InventoryOwnFlags)) {
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
      `unexpected argument "${parsed.args[0]}": krtt inventory takes flags only (--name=value)`,
    )
  const known = [...Object.keys(InventoryOwnFlags), ...InventoryManagerFlags]
  for (const flag of parsed.values.keys())
    if (!InventoryManagerFlags.includes(flag))
      throw new FlagError(
        `unknown flag: --${flag} (krtt inventory does not take it; did you mean --${closestFlag(flag, known)}?)`,
      )
  const run = managerOptionsFromArgs(rest, env)
  if (run._tag === "Help") return "help"
  const provider = own.get("provider")
  if (provider === undefined || provider.trim() === "")
    throw new FlagError("--provider is required (e.g. --provider kubeconfig-secrets)")
  const namespace = own.get("namespace")
  if (namespace === undefined || namespace.trim() === "")
    throw new FlagError("--namespace is required: the hub namespace of the ConfigMap krtt-inventory")
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(namespace) || namespace.length > 63)
    throw new FlagError(
      `invalid argument "${namespace}" for --namespace: not a namespace name (lower-case letters, digits and '-', at most 63)`,
    )
  const debounceText = own.get("debounce")
  const debounce =
    debounceText === undefined ? InventoryDefaults.debounce : readDuration("debounce", debounceText)
  const providerNamespace = own.get("provider-namespace")
  const providerKubeconfig = own.get("provider-kubeconfig")
  return {
    manager: {
      ...run.options,
      leaderElectId: parsed.values.get("leader-elect-id") ?? INVENTORY_LEASE,
    },
    provider,
    providerFlags: {
      ...(providerNamespace === undefined ? {} : { providerNamespace }),
      ...(providerKubeconfig === undefined ? {} : { providerKubeconfig }),
    },
    namespace,
    debounce,
  }
}

/**
 * Hands the words after `krtt inventory` to the parser untouched (effect/cli would take `-v=2`
 * for `--version` and refuse the manager's flags), as `krtt run` does.
 */
export const passInventoryArgsThrough = (argv: Array<string> = process.argv): void => {
  if (argv[2] === "inventory" && argv[3] !== "--" && argv.length > 3) argv.splice(3, 0, "--")
}

/** Exits the process after the graceful shutdown timeout once a stop began, whatever still runs. */
const forceExitAfter = (timeout: number) =>
  Effect.addFinalizer(() =>
    Effect.sync(() => {
      setTimeout(() => {
        process.stderr.write(`krtt inventory: shutdown took longer than ${timeout} ms; exiting\n`)
        process.exit(1)
      }, timeout).unref()
    }),
  )

/** Runs `krtt inventory` from its words. */
export const inventoryArgs = (argv: ReadonlyArray<string>): Effect.Effect<void> =>
  Effect.gen(function* () {
    let args: InventoryArgs | "help"
    let resolved: ReturnType<typeof resolveKubeconfig>
    try {
      args = parseInventoryArgs(argv)
      if (args === "help") {
        process.stdout.write(`${inventoryUsage()}\n`)
        return
      }
      resolved = resolveKubeconfig(args.manager.kubeconfig)
    } catch (e) {
      process.stderr.write(`krtt inventory: ${(e as Error).message}\n`)
      process.exitCode = 2
      return
    }
    if (resolved === undefined) {
      process.stderr.write(
        "krtt inventory: --kubeconfig: no hub cluster is configured (no --kubeconfig, no $KUBECONFIG, not in a cluster, no ~/.kube/config)\n",
      )
      process.exitCode = 2
      return
    }
    const a = args
    const logger = a.manager.loggingFormat === "json" ? Logger.consoleJson : Logger.consoleLogFmt
    yield* Effect.scoped(
      Effect.andThen(
        forceExitAfter(a.manager.gracefulShutdownTimeout),
        runInventory(
          {
            manager: a.manager,
            provider: a.provider,
            providerFlags: a.providerFlags,
            namespace: a.namespace,
            config: { debounce: a.debounce },
          },
          resolved,
        ),
      ),
    ).pipe(
      Effect.catch((e: Error) =>
        Effect.andThen(
          Effect.logError("krtt inventory stopped").pipe(Effect.annotateLogs({ error: e.message })),
          Effect.sync(() => {
            process.exitCode = /^--/.test(e.message) ? 2 : 1
          }),
        ),
      ),
      Effect.provideService(References.MinimumLogLevel, logLevelOf(a.manager.logVerbosity ?? 2)),
      Effect.provide(Logger.layer([logger])),
    )
  })

/** The `inventory` subcommand (its words are parsed by {@link parseInventoryArgs}). */
export const inventoryCommand = () => {
  passInventoryArgsThrough()
  return Command.make(
    "inventory",
    {
      flags: Argument.String("flags").pipe(
        Argument.withDescription("krtt inventory --help lists the flags"),
        Argument.variadic(),
      ),
    },
    ({ flags }) => inventoryArgs(flags),
  ).pipe(
    Command.withDescription(
      "Keep the hub ConfigMap krtt-inventory: per engaged cluster its Kubernetes version, Nodes, Ready Nodes, engaged since, last change (issue 14)",
    ),
  )
}
