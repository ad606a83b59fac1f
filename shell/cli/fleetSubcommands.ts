/**
 * `krtt inventory` and `krtt propagate` as the command line knows them: a name, a description,
 * and the words after the name, handed on untouched (main() routes them past effect/cli, which
 * would take `-v=2` for `--version`). What parses and runs them (`inventory.ts`, `propagate.ts`)
 * is loaded when one runs.
 *
 * @module
 */

import * as Argument from "effect/cli/Argument"
import * as Command from "effect/cli/Command"
import * as Effect from "effect/Effect"

/** A fleet subcommand whose words `run` parses. */
export const fleetCommand = (
  command: string,
  description: string,
  run: (argv: ReadonlyArray<string>) => Effect.Effect<void>,
) =>
  Command.make(
    command,
    {
      flags: Argument.String("flags").pipe(
        Argument.withDescription(`krtt ${command} --help lists the flags`),
        Argument.variadic(),
      ),
    },
    ({ flags }) => run(flags),
  ).pipe(Command.withDescription(description))

/** The `inventory` subcommand (its words are parsed by inventory.ts's `parseInventoryArgs`). */
export const inventoryCommand = () =>
  fleetCommand(
    "inventory",
    "Keep the hub ConfigMap krtt-inventory: per engaged cluster its Kubernetes version, Nodes, Ready Nodes, engaged since, last change",
    (argv) =>
      Effect.flatMap(
        Effect.promise(() => import("./inventory.ts")),
        ({ inventoryArgs }) => inventoryArgs(argv),
      ),
  )

/** The `propagate` subcommand (its words are parsed by propagate.ts's `parsePropagateArgs`). */
export const propagateCommand = () =>
  fleetCommand(
    "propagate",
    'Keep every hub ConfigMap and Secret labelled krtt.io/propagate: "true" identical in every engaged cluster',
    (argv) =>
      Effect.flatMap(
        Effect.promise(() => import("./propagate.ts")),
        ({ propagateArgs }) => propagateArgs(argv),
      ),
  )
