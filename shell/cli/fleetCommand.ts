/**
 * What the fleet commands (`krtt inventory`, `krtt propagate`) share: the subset of `krtt run`'s
 * manager flags they take, the provider flags of `krtt clusters`, their own flags split off
 * before the manager's parser sees the rest, the usage text, and running: the hub kubeconfig
 * resolved, logs as `--logging-format` asks, a stop bounded by `--graceful-shutdown-timeout`,
 * exit code 2 for a bad command line and 1 for a failure. The subcommands themselves, as the
 * command line knows them, are in `fleetSubcommands.ts`.
 *
 * @module
 */

import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as References from "effect/References"
import type * as Scope from "effect/Scope"
import { loggerOf } from "../log/index.ts"
import { managerOptionsFromArgs } from "../manager/args.ts"
import { forceExitAfter, logLevelOf } from "../manager/command.ts"
import { closestFlag, FlagError, parseFlags, UpstreamFlags } from "../manager/flags.ts"
import { type ResolvedKubeconfig, resolveKubeconfig } from "../manager/kubeconfig.ts"
import type { ManagerOptions } from "../manager/options.ts"
import type { ProviderFlags } from "../multicluster/providers/index.ts"

/** The manager flags (of `krtt run`) that the fleet commands take. */
export const FleetManagerFlags: ReadonlyArray<string> = [
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

/** The provider flags, as `krtt clusters` has them. */
export const ProviderFlagUsage = {
  provider:
    "The cluster provider: kubeconfig-secrets, kubeconfig-file, namespaces, cluster-api, cluster-inventory-api (comma-separated: composed)",
  "provider-namespace":
    "kubeconfig-secrets: the namespace of the Secrets; cluster-api: only Clusters of this namespace",
  "provider-kubeconfig": "kubeconfig-file: the file whose contexts are the clusters",
  "provider-access-config":
    "cluster-inventory-api: the JSON file naming the access providers of the ClusterProfiles",
  "provider-probe-interval":
    "kubeconfig-secrets, kubeconfig-file: time between health probes of an engaged cluster (default 10s; 0 turns them off)",
} as const

/** A fleet command: its name, its own flags with their usage, and its Lease. */
export interface FleetCommandSpec<Own extends string> {
  readonly command: string
  readonly own: Readonly<Record<Own, string>>
  readonly lease: string
  /** The value type a flag's usage names; default `string`. */
  readonly typeOf?: ((flag: Own) => string) | undefined
}

/** The usage text of a fleet command. */
export const fleetUsage = <Own extends string>(spec: FleetCommandSpec<Own>, synopsis: string): string =>
  [
    `Usage: krtt ${spec.command} ${synopsis}`,
    "",
    ...(Object.entries(spec.own) as Array<[Own, string]>).map(
      ([name, usage]) => `      --${name} ${spec.typeOf?.(name) ?? "string"}\n        ${usage}`,
    ),
    "",
    "Manager flags (as krtt run):",
    ...UpstreamFlags.filter((s) => FleetManagerFlags.includes(s.name)).map((s) => {
      const def = s.name === "leader-elect-id" ? spec.lease : s.default
      const name = s.shorthand === undefined ? `    --${s.name}` : `-${s.shorthand}, --${s.name}`
      return `  ${name} ${s.type === "bool" ? "" : s.type}\n        ${s.usage}${def === "" ? "" : ` (default ${def})`}`
    }),
  ].join("\n")

/** The parts every fleet command's arguments have; `own` holds its own flags' values. */
export interface FleetArgs<Own extends string> {
  readonly manager: ManagerOptions
  readonly provider: string
  readonly providerFlags: ProviderFlags
  readonly own: ReadonlyMap<Own, string>
}

/**
 * Parses a fleet command's words: its own flags, then the manager flags it takes (anything else
 * is an error naming the closest known flag); `--provider` is required. `"help"` when asked.
 * Throws {@link FlagError} naming the flag.
 */
export const parseFleetArgs = <Own extends string>(
  spec: FleetCommandSpec<Own>,
  argv: ReadonlyArray<string>,
  env: NodeJS.ProcessEnv,
): FleetArgs<Own> | "help" => {
  const own = new Map<Own, string>()
  const rest: Array<string> = []
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string
    const m = /^--?([^=]+)(?:=(.*))?$/s.exec(arg)
    const name = m?.[1]?.replaceAll("_", "-")
    if (m === null || name === undefined || !(name in spec.own)) {
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
      `unexpected argument "${parsed.args[0]}": krtt ${spec.command} takes flags only (--name=value)`,
    )
  const known = [...Object.keys(spec.own), ...FleetManagerFlags]
  for (const flag of parsed.values.keys())
    if (!FleetManagerFlags.includes(flag))
      throw new FlagError(
        `unknown flag: --${flag} (krtt ${spec.command} does not take it; did you mean --${closestFlag(flag, known)}?)`,
      )
  const run = managerOptionsFromArgs(rest, env)
  if (run._tag === "Help") return "help"
  const provider = own.get("provider" as Own)
  if (provider === undefined || provider.trim() === "")
    throw new FlagError("--provider is required (e.g. --provider kubeconfig-secrets)")
  const providerNamespace = own.get("provider-namespace" as Own)
  const providerKubeconfig = own.get("provider-kubeconfig" as Own)
  const providerAccessConfig = own.get("provider-access-config" as Own)
  const providerProbeInterval = own.get("provider-probe-interval" as Own)
  return {
    manager: { ...run.options, leaderElectId: parsed.values.get("leader-elect-id") ?? spec.lease },
    provider,
    providerFlags: {
      ...(providerNamespace === undefined ? {} : { providerNamespace }),
      ...(providerKubeconfig === undefined ? {} : { providerKubeconfig }),
      ...(providerAccessConfig === undefined ? {} : { providerAccessConfig }),
      ...(providerProbeInterval === undefined ? {} : { providerProbeInterval }),
    },
    own,
  }
}

/**
 * Runs a fleet command from its words: parse (usage on `--help`; a bad command line exits 2
 * with one line), resolve the hub kubeconfig, then `run` with the manager's logging and a stop
 * bounded by the graceful shutdown timeout.
 */
export const runFleetCommand = <A extends { readonly manager: ManagerOptions }>(
  command: string,
  argv: ReadonlyArray<string>,
  parse: (argv: ReadonlyArray<string>) => A | "help",
  usage: () => string,
  run: (args: A, resolved: ResolvedKubeconfig) => Effect.Effect<void, Error, Scope.Scope>,
): Effect.Effect<void> =>
  Effect.gen(function* () {
    let args: A | "help"
    let resolved: ReturnType<typeof resolveKubeconfig>
    try {
      args = parse(argv)
      if (args === "help") {
        process.stdout.write(`${usage()}\n`)
        return
      }
      resolved = resolveKubeconfig(args.manager.kubeconfig)
    } catch (e) {
      process.stderr.write(`krtt ${command}: ${(e as Error).message}\n`)
      process.exitCode = 2
      return
    }
    if (resolved === undefined) {
      process.stderr.write(
        `krtt ${command}: --kubeconfig: no hub cluster is configured (no --kubeconfig, no $KUBECONFIG, not in a cluster, no ~/.kube/config)\n`,
      )
      process.exitCode = 2
      return
    }
    const a = args
    const logger = loggerOf(a.manager.loggingFormat ?? "text")
    yield* Effect.scoped(
      Effect.andThen(forceExitAfter(a.manager.gracefulShutdownTimeout, `krtt ${command}`), run(a, resolved)),
    ).pipe(
      Effect.catch((e: Error) =>
        Effect.andThen(
          Effect.logError(`krtt ${command} stopped`).pipe(Effect.annotateLogs({ error: e.message })),
          Effect.sync(() => {
            process.exitCode = /^--/.test(e.message) ? 2 : 1
          }),
        ),
      ),
      Effect.provideService(References.MinimumLogLevel, logLevelOf(a.manager.logVerbosity ?? 2)),
      Effect.provide(Logger.layer([logger])),
    )
  })
