/**
 * The `krtt` command tree and how it runs (`main.ts` is the entry point that loads it).
 *
 * Every subcommand is defined in a light module (its flags, arguments and descriptions, which
 * `--help` and parsing need) and loads what runs it when it runs, so that a command loads only
 * its own code: `--help` and a refused command line load none of it.
 *
 * @module
 */

import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Cause from "effect/Cause"
import * as Console from "effect/Console"
import * as CliConfig from "effect/cli/CliConfig"
import * as CliError from "effect/cli/CliError"
import * as CliOutput from "effect/cli/CliOutput"
import * as Command from "effect/cli/Command"
import * as GlobalFlag from "effect/cli/GlobalFlag"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Runtime from "effect/Runtime"
import { liveCommand, simulate } from "../../sim/commands.ts"
import { version } from "../krtt/version.ts"
import { passRunArgsThrough, runCommand } from "../manager/command.ts"
import { chaosCommand } from "./chaosCommand.ts"
import { clustersCommand } from "./clustersCommand.ts"
import { explainCommand, tablesCommand } from "./explainCommand.ts"
import { inventoryCommand, propagateCommand } from "./fleetSubcommands.ts"
import { ipamCommand } from "./ipamCommand.ts"
import { whyCommand } from "./whyCommand.ts"

export const krtt = Command.make("krtt").pipe(
  Command.withDescription(
    "Kubernetes Reconciler Transition Tables: Cluster API's controllers as pure, documented tables",
  ),
  Command.withSubcommands([
    runCommand({
      controllers: [],
      // The embedded default: a small simulated fleet to watch (sim/live.ts).
      withoutCluster: Effect.promise(async () => (await import("../../sim/live.ts")).live()).pipe(
        Effect.flatMap((code) =>
          Effect.sync(() => {
            process.exitCode = code
          }),
        ),
      ),
    }),
    tablesCommand,
    explainCommand,
    simulate,
    liveCommand,
    clustersCommand,
    ipamCommand,
    inventoryCommand(),
    propagateCommand(),
    chaosCommand,
    whyCommand,
  ]),
)

/**
 * SIGTERM and SIGINT end the program by interruption: that is a clean stop, exit code 0. A
 * command line the CLI refuses (a missing or unknown flag, a bad value) exits 2, like every
 * other input error; `--help` exits 0.
 */
const teardown: Runtime.Teardown = (exit, onExit) => {
  if (Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause)) return onExit(0)
  if (Exit.isFailure(exit)) {
    const error = Cause.squash(exit.cause)
    if (CliError.isCliError(error) && Runtime.getErrorExitCode(error) !== 0) return onExit(2)
  }
  return Runtime.defaultTeardown(exit, onExit)
}

/**
 * A refused command line is answered on standard error with one line per mistake and a pointer
 * to the command's help, so that nothing lands in a pipe reading standard output (the help in
 * full is `--help`'s). Help and the version are printed as effect/cli prints them.
 */
export const usageLines = (event: CliOutput.Presenter.InvalidInvocation): ReadonlyArray<string> => {
  const command = event.commandPath.join(" ")
  return [
    ...event.errors.map((e) => `${command}: ${oneLine(e.message)}`),
    `Run '${command} --help' for usage.`,
  ]
}

/** effect/cli's message of a mistake on one line: its suggestions as "did you mean …?". */
const oneLine = (message: string): string => {
  const [first = "", ...rest] = message
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "")
  if (rest.length === 0) return first
  return /^did you mean/i.test(rest[0] ?? "")
    ? `${first}; did you mean ${rest.slice(1).join(" or ")}?`
    : `${first}: ${rest.join("; ")}`
}

const presenter = CliOutput.layerPresenter({
  present: (event) =>
    event._tag === "InvalidInvocation"
      ? Effect.forEach(usageLines(event), (line) => Console.error(line), { discard: true })
      : CliOutput.defaultPresenter.present(event),
})

/**
 * The global flags: `--help` and `--version` only. Every other flag belongs to a subcommand;
 * `run`, `inventory` and `propagate` take upstream's manager command line as it is, where a
 * global flag of effect/cli's (`--log-level`, `--completions`, `--wizard`) would not be read.
 */
const cliConfig = CliConfig.layer({ builtIns: [GlobalFlag.Help, GlobalFlag.Version] })

/** Runs the command line of this process until the command ends (or SIGTERM/SIGINT). */
export const runCli = (): void => {
  // These commands take upstream's manager flags verbatim (`-v=2` is a log level, not --version).
  passRunArgsThrough(process.argv, ["run", "inventory", "propagate"])
  krtt.pipe(
    Command.run({ version }),
    Effect.provide(Layer.mergeAll(NodeServices.layer, presenter, cliConfig)),
    NodeRuntime.runMain({ teardown }),
  )
}
