/**
 * `krtt propagate`: the uniform fleet controller (seed 003, Goals 1). Every hub ConfigMap and
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
import type * as Effect from "effect/Effect"
import { PropagateDefaults } from "../../core/propagate/index.ts"
import { type PropagateRunOptions, runPropagate } from "../fleet/propagate/index.ts"
import { FlagError, readDuration } from "../manager/flags.ts"
import {
  type FleetCommandSpec,
  FleetManagerFlags,
  fleetUsage,
  ProviderFlagUsage,
  parseFleetArgs,
  runFleetCommand,
} from "./fleetCommand.ts"

/** The Lease of `krtt propagate` when `--leader-elect-id` is not given. */
export const PROPAGATE_LEASE = "krtt-propagate"

/** The manager flags (of `krtt run`) that `krtt propagate` takes: the fleet commands' subset. */
export const PropagateManagerFlags: ReadonlyArray<string> = FleetManagerFlags

const seconds = (ms: number) => `${ms / 1000}s`

/** The flags of the propagation itself (the provider's as `krtt clusters` and `krtt inventory`). */
export const PropagateOwnFlags = {
  ...ProviderFlagUsage,
  namespace:
    "The hub namespace of the ConfigMap krtt-propagate-pending (clusters still to clean); default $POD_NAMESPACE, the in-cluster namespace, else default",
  "retry-interval": `A source not in sync everywhere is looked at again after this (default ${seconds(PropagateDefaults.retryInterval)})`,
  "cluster-timeout": `One cluster's part of a source's reconcile may take this long (default ${seconds(PropagateDefaults.clusterTimeout)})`,
  "permission-recheck-interval": `Each cluster's informers' permissions are reviewed this often (default ${seconds(PropagateDefaults.permissionRecheckInterval)})`,
} as const
type Own = keyof typeof PropagateOwnFlags

const spec: FleetCommandSpec<Own> = { command: "propagate", own: PropagateOwnFlags, lease: PROPAGATE_LEASE }

/** What the command line asks for. */
export type PropagateArgs = PropagateRunOptions

const NAMESPACE_FILE = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"

/** The usage text. */
export const propagateUsage = (): string => fleetUsage(spec, "--provider NAME [flags]")

/**
 * Parses the words after `krtt propagate`; `"help"` when help was asked. Throws
 * {@link FlagError} naming the flag on an unknown flag, a missing value, or a bad value.
 */
export const parsePropagateArgs = (
  argv: ReadonlyArray<string>,
  env: NodeJS.ProcessEnv = process.env,
): PropagateArgs | "help" => {
  const parsed = parseFleetArgs(spec, argv, env)
  if (parsed === "help") return "help"
  const { own } = parsed
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
  return {
    manager: parsed.manager,
    provider: parsed.provider,
    providerFlags: parsed.providerFlags,
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

/** Runs `krtt propagate` from its words. */
export const propagateArgs = (argv: ReadonlyArray<string>): Effect.Effect<void> =>
  runFleetCommand("propagate", argv, parsePropagateArgs, propagateUsage, runPropagate)
