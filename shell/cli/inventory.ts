/**
 * `krtt inventory`: the aggregating fleet controller (seed 003, Goals 2). One hub ConfigMap
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
import type * as Effect from "effect/Effect"
import { InventoryDefaults } from "../../core/inventory/index.ts"
import { runInventory } from "../fleet/inventory/index.ts"
import { FlagError, readDuration } from "../manager/flags.ts"
import type { ManagerOptions } from "../manager/options.ts"
import type { ProviderFlags } from "../multicluster/providers/index.ts"
import {
  type FleetCommandSpec,
  FleetManagerFlags,
  fleetUsage,
  ProviderFlagUsage,
  parseFleetArgs,
  runFleetCommand,
} from "./fleetCommand.ts"

/** The Lease of `krtt inventory` when `--leader-elect-id` is not given. */
export const INVENTORY_LEASE = "krtt-inventory"

/** The manager flags (of `krtt run`) that `krtt inventory` takes: the fleet commands' subset. */
export const InventoryManagerFlags: ReadonlyArray<string> = FleetManagerFlags

/** The flags of the inventory itself. */
export const InventoryOwnFlags = {
  ...ProviderFlagUsage,
  namespace: "The hub namespace of the ConfigMap krtt-inventory (required)",
  debounce: `A change of a cluster's Nodes is written once it has been pending this long (default ${InventoryDefaults.debounce / 1000}s)`,
} as const
type Own = keyof typeof InventoryOwnFlags

const spec: FleetCommandSpec<Own> = {
  command: "inventory",
  own: InventoryOwnFlags,
  lease: INVENTORY_LEASE,
  typeOf: (flag) => (flag === "debounce" ? "duration" : "string"),
}

/** What the command line asks for. */
export interface InventoryArgs {
  readonly manager: ManagerOptions
  readonly provider: string
  readonly providerFlags: ProviderFlags
  readonly namespace: string
  readonly debounce: number
}

/** The usage text. */
export const inventoryUsage = (): string => fleetUsage(spec, "--provider NAME --namespace NS [flags]")

/**
 * Parses the words after `krtt inventory`; `"help"` when help was asked. Throws {@link FlagError}
 * naming the flag on an unknown flag, a missing value, or a bad value.
 */
export const parseInventoryArgs = (
  argv: ReadonlyArray<string>,
  env: NodeJS.ProcessEnv = process.env,
): InventoryArgs | "help" => {
  const parsed = parseFleetArgs(spec, argv, env)
  if (parsed === "help") return "help"
  const { own } = parsed
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
  return {
    manager: parsed.manager,
    provider: parsed.provider,
    providerFlags: parsed.providerFlags,
    namespace,
    debounce,
  }
}

/** Runs `krtt inventory` from its words. */
export const inventoryArgs = (argv: ReadonlyArray<string>): Effect.Effect<void> =>
  runFleetCommand("inventory", argv, parseInventoryArgs, inventoryUsage, (a, resolved) =>
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
  )
