/**
 * The `krtt` command line.
 *
 * @module
 */

import { readFile } from "node:fs/promises"
import { NodeRuntime, NodeServices } from "@effect/platform-node"
import * as Cause from "effect/Cause"
import * as Console from "effect/Console"
import { Argument, CliError, Command, Flag } from "effect/cli"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Runtime from "effect/Runtime"
import { liveCommand, simulate } from "../../sim/cli.ts"
import { live } from "../../sim/live.ts"
import { version } from "../krtt/version.ts"
import { passRunArgsThrough, runCommand } from "../manager/command.ts"
import { chaosCommand } from "./chaos.ts"
import { clustersCommand } from "./clusters.ts"
import {
  explainInput,
  explainReconcile,
  renderExplanation,
  renderReconcile,
  renderTables,
  tablesJson,
  UsageError,
} from "./explain.ts"
import { inventoryCommand } from "./inventory.ts"
import { ipamCommand } from "./ipam.ts"
import { propagateCommand } from "./propagate.ts"

const json = Flag.Boolean("json").pipe(
  Flag.withDescription("Print JSON instead of text"),
  Flag.withDefault(false),
)

const tables = Command.make("tables", { json }, ({ json }) =>
  Console.log(json ? JSON.stringify(tablesJson(), null, 2) : renderTables()),
).pipe(Command.withDescription("List the documented tables and their rows with the documented text"))

/** Runs a user-facing step: a UsageError becomes a one-line message and exit code 2, never a stack trace. */
export const userFacing = (f: () => Promise<void> | void): Effect.Effect<void> =>
  Effect.tryPromise({ try: async () => f(), catch: (e) => e }).pipe(
    Effect.catch((e) =>
      Effect.sync(() => {
        const message = e instanceof UsageError ? e.message : `unexpected error: ${String(e)}`
        process.stderr.write(`krtt: ${message}\n`)
        process.exitCode = 2
      }),
    ),
  )

const explain = Command.make(
  "explain",
  {
    table: Argument.String("table").pipe(
      Argument.withDescription("A table id, e.g. clustercache.reconciler"),
    ),
    input: Flag.String("input").pipe(
      Flag.withDescription("A JSON file with {observed, desired, trigger, now}"),
    ),
    reconcile: Flag.Boolean("reconcile").pipe(
      Flag.withDescription(
        "Run a whole ClusterCache reconcile through the core's driver and print every step's row (input {observed, desired, now, world: {connect, probe}})",
      ),
      Flag.withDefault(false),
    ),
    json,
  },
  ({ table, input, reconcile, json }) =>
    userFacing(async () => {
      let text: string
      try {
        text = await readFile(input, "utf8")
      } catch (e) {
        throw new UsageError(
          `cannot read the input file ${input}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`,
        )
      }
      if (reconcile) {
        const r = explainReconcile(table, text)
        process.stdout.write(`${json ? JSON.stringify(r, null, 2) : renderReconcile(r)}\n`)
        return
      }
      const e = explainInput(table, text)
      process.stdout.write(`${json ? JSON.stringify(e, null, 2) : renderExplanation(e)}\n`)
    }),
).pipe(Command.withDescription("Explain which documented row decides an input, with its actions and status"))

export const krtt = Command.make("krtt").pipe(
  Command.withDescription(
    "Kubernetes Reconciler Transition Tables: Cluster API's controllers as pure, documented tables",
  ),
  Command.withSubcommands([
    runCommand({
      controllers: [],
      // The embedded default: a small simulated fleet to watch (sim/live.ts).
      withoutCluster: Effect.promise(() => live()).pipe(
        Effect.flatMap((code) =>
          Effect.sync(() => {
            process.exitCode = code
          }),
        ),
      ),
    }),
    tables,
    explain,
    simulate,
    liveCommand,
    clustersCommand,
    ipamCommand,
    inventoryCommand(),
    propagateCommand(),
    chaosCommand,
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

export const main = (): void => {
  // These commands take upstream's manager flags verbatim (`-v=2` is a log level, not --version).
  passRunArgsThrough(process.argv, ["run", "inventory", "propagate"])
  krtt.pipe(Command.run({ version }), Effect.provide(NodeServices.layer), NodeRuntime.runMain({ teardown }))
}

if (import.meta.main) main()
