/**
 * The command line of upstream's core manager (Cluster API v1.13, `sigs.k8s.io/cluster-api`
 * main.go), accepted unchanged: every flag it defines, with its default, parsed as pflag does
 * (`--name=value`, `--name value`, `--bool`, `--bool=false`, `-v=2`, `-v 2`, `_` read as `-`,
 * lists comma-separated or repeated), plus the few of krtt's own.
 *
 * Each flag is one of:
 * - `used`: krtt acts on it;
 * - `notRun`: it configures a controller or facility of upstream's manager that krtt does not
 *   run (Machine, MachineSet, ClusterClass, topology, ...): accepted, and reported once at start.
 *
 * An unknown flag is an error naming the closest known one; a bad value is an error naming the
 * flag. Both exit 2, as pflag does.
 *
 * This module parses the command line and prints the usage; the table of flags is
 * `flagTable.ts`, the typed readers of their values `flagValues.ts` (both re-exported here).
 *
 * @module
 */

import { type FlagSpec, UpstreamFlags } from "./flagTable.ts"
import { closestFlag, FlagError } from "./flagValues.ts"

export {
  CipherSuites,
  type FlagSpec,
  type FlagType,
  HonouredFeatureGates,
  TlsVersions,
  UpstreamFeatureGates,
  UpstreamFlags,
} from "./flagTable.ts"
export {
  closestFlag,
  FlagError,
  readBool,
  readDuration,
  readFeatureGates,
  readFloat,
  readInt,
  readInt32List,
  readList,
} from "./flagValues.ts"

/** The parsed values, by flag name, as strings (lists joined by commas); only flags given. */
export interface ParsedFlags {
  readonly values: ReadonlyMap<string, string>
  /** Positional arguments (pflag keeps them; the manager takes none). */
  readonly args: ReadonlyArray<string>
  readonly help: boolean
}

const byName = new Map(UpstreamFlags.map((s) => [s.name, s]))
const byShorthand = new Map(
  UpstreamFlags.filter((s) => s.shorthand !== undefined).map((s) => [s.shorthand, s]),
)

/** pflag's reading of a command line against {@link UpstreamFlags}. */
export const parseFlags = (argv: ReadonlyArray<string>): ParsedFlags => {
  const values = new Map<string, string>()
  const args: Array<string> = []
  let help = false
  const set = (spec: FlagSpec, value: string) => {
    if (spec.type === "stringSlice" || spec.type === "int32Slice" || spec.type === "mapBool") {
      const before = values.get(spec.name)
      values.set(spec.name, before === undefined || before === "" ? value : `${before},${value}`)
    } else values.set(spec.name, value)
  }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string
    if (arg === "--") {
      args.push(...argv.slice(i + 1))
      break
    }
    if (!arg.startsWith("-") || arg === "-") {
      args.push(arg)
      continue
    }
    const long = arg.startsWith("--")
    const body = arg.slice(long ? 2 : 1)
    const eq = body.indexOf("=")
    const rawName = (eq === -1 ? body : body.slice(0, eq)).replaceAll("_", "-")
    if (rawName === "help" || rawName === "h") {
      help = true
      continue
    }
    // A single dash names a shorthand (`-v`) or, as Go's flag package allows, a long name.
    const spec = long ? byName.get(rawName) : (byShorthand.get(rawName) ?? byName.get(rawName))
    if (spec === undefined)
      throw new FlagError(`unknown flag: ${arg.split("=")[0]} (did you mean --${closestFlag(rawName)}?)`)
    let value: string
    if (eq !== -1) value = body.slice(eq + 1)
    else if (spec.type === "bool") value = "true"
    else {
      const next = argv[i + 1]
      if (next === undefined) throw new FlagError(`flag needs an argument: --${spec.name}`)
      value = next
      i++
    }
    set(spec, value)
  }
  return { values, args, help }
}

/** The usage text, as `--help` prints it. */
export const usage = (): string =>
  [
    "Usage: krtt run [flags]   (upstream Cluster API core manager's flags are accepted unchanged)",
    "",
    "Runs the Cluster controller and the ClusterCache of Cluster API's core manager, and the Cluster's",
    "webhooks. Machines, MachineSets, MachineDeployments and the other kinds still need upstream's",
    "manager (docs/operator.md#scope).",
    "",
    ...UpstreamFlags.map((s) => {
      const name = s.shorthand === undefined ? `    --${s.name}` : `-${s.shorthand}, --${s.name}`
      const def = s.default === "" ? "" : ` (default ${s.default})`
      const note = s.use === "notRun" ? " [accepted; krtt does not run this]" : ""
      return `  ${name} ${s.type === "bool" ? "" : s.type}\n        ${s.usage}${def}${note}`
    }),
  ].join("\n")
