/**
 * `krtt tables` and `krtt explain` on the command line: their arguments and flags. What they
 * print (`explain.ts`, with every table of the registry) is loaded when one runs.
 *
 * @module
 */

import { readFile } from "node:fs/promises"
import * as Console from "effect/Console"
import * as Argument from "effect/cli/Argument"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Effect from "effect/Effect"
import { UsageError } from "./usageError.ts"

const json = Flag.Boolean("json").pipe(
  Flag.withDescription("Print JSON instead of text"),
  Flag.withDefault(false),
)

const explainModule = Effect.promise(() => import("./explain.ts"))

/** `krtt tables [--json]`. */
export const tablesCommand = Command.make("tables", { json }, ({ json }) =>
  Effect.flatMap(explainModule, ({ renderTables, tablesJson }) =>
    Console.log(json ? JSON.stringify(tablesJson(), null, 2) : renderTables()),
  ),
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

const readInput = async (input: string): Promise<string> => {
  try {
    return await readFile(input, "utf8")
  } catch (e) {
    throw new UsageError(
      `cannot read the input file ${input}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`,
    )
  }
}

/** `krtt explain TABLE --input FILE [--reconcile] [--json]`. */
export const explainCommand = Command.make(
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
      const text = await readInput(input)
      const m = await import("./explain.ts")
      if (reconcile) {
        const r = m.explainReconcile(table, text)
        process.stdout.write(`${json ? JSON.stringify(r, null, 2) : m.renderReconcile(r)}\n`)
        return
      }
      const e = m.explainInput(table, text)
      process.stdout.write(`${json ? JSON.stringify(e, null, 2) : m.renderExplanation(e)}\n`)
    }),
).pipe(Command.withDescription("Explain which documented row decides an input, with its actions and status"))
