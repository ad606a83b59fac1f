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
import * as CliError from "effect/cli/CliError"
import * as Command from "effect/cli/Command"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
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

/** Runs the command line of this process until the command ends (or SIGTERM/SIGINT). */
export const runCli = (): void => {
  // These commands take upstream's manager flags verbatim (`-v=2` is a log level, not --version).
  passRunArgsThrough(process.argv, ["run", "inventory", "propagate"])
  krtt.pipe(Command.run({ version }), Effect.provide(NodeServices.layer), NodeRuntime.runMain({ teardown }))
}
