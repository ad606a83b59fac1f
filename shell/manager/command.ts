/**
 * The `krtt run` command: upstream Cluster API core manager's command line, accepted unchanged
 * (`args.ts`, `flags.ts`), logs as `--logging-format` and `-v` say, graceful SIGTERM.
 *
 * effect/cli reads `-v` as `--version` and refuses flags it does not declare; upstream's flags
 * are pflag's. So the words after `run` are handed to the command untouched: `krtt run <flags>`
 * is read as `krtt run -- <flags>` ({@link passRunArgsThrough}) and parsed by `flags.ts`.
 *
 * This module only defines the command: what runs it (`runArgs.ts`) is loaded when it runs, so
 * that the other commands and `--help` never load the manager.
 *
 * @module
 */

import * as Argument from "effect/cli/Argument"
import * as Command from "effect/cli/Command"
import * as Effect from "effect/Effect"
import type { Runnable } from "./run.ts"

/** What `krtt run` says when no cluster is configured, before it runs the embedded default. */
export const NO_CLUSTER_MESSAGE = `krtt: no cluster is configured (no --kubeconfig, no $KUBECONFIG, not in a cluster, no ~/.kube/config).
To run the operator against a cluster:
  npm run krtt -- run --kubeconfig /path/to/kubeconfig
  (install the CRD and RBAC first: kubectl apply -k config/crd && kubectl apply -k config/rbac)
A local control plane for trying it: npm run --silent testenv -- up --clusters 2 --dir /tmp/krtt`

/** Options for the run command: what runs beside the ClusterCache, and what runs without a cluster. */
export interface RunCommandOptions {
  readonly controllers: ReadonlyArray<Runnable>
  /** Runs when no cluster is configured (the embedded default). */
  readonly withoutCluster: Effect.Effect<void>
}

/**
 * Exits the process after the graceful shutdown timeout once a stop began, whatever is still
 * running. `who` names the command in the message.
 */
export const forceExitAfter = (timeout: number, who = "krtt") =>
  Effect.addFinalizer(() =>
    Effect.sync(() => {
      setTimeout(() => {
        process.stderr.write(`${who}: shutdown took longer than ${timeout} ms; exiting\n`)
        process.exit(1)
      }, timeout).unref()
    }),
  )

/** The Effect log level of a klog verbosity: 4 and above add debug logs, 6 and above traces. */
export const logLevelOf = (verbosity: number): "Info" | "Debug" | "Trace" =>
  verbosity >= 6 ? "Trace" : verbosity >= 4 ? "Debug" : "Info"

/**
 * Hands the words after `krtt run` to the command untouched, by reading `krtt run <flags>` as
 * `krtt run -- <flags>` before effect/cli parses the command line (it would take `-v=2` for
 * `--version` and refuse upstream's flags). Only `process.argv` of a `krtt run` invocation is
 * changed, and only once.
 */
export const passRunArgsThrough = (
  argv: Array<string> = process.argv,
  commands: ReadonlyArray<string> = ["run"],
): void => {
  if (commands.includes(argv[2] ?? "") && argv[3] !== "--" && argv.length > 3) argv.splice(3, 0, "--")
}

/** `krtt run`: upstream's manager flags after `run`, unchanged (see the module doc). */
export const runCommand = (opts: RunCommandOptions) =>
  Command.make(
    "run",
    {
      flags: Argument.String("flags").pipe(
        Argument.withDescription("Upstream Cluster API core manager's flags (krtt run --help lists them)"),
        Argument.variadic(),
      ),
    },
    ({ flags }) =>
      Effect.flatMap(
        Effect.promise(() => import("./runArgs.ts")),
        ({ runArgs }) => runArgs(flags, opts),
      ),
  ).pipe(
    Command.withDescription(
      "Run Cluster API's Cluster controller and ClusterCache (and the Cluster's webhooks) with upstream's core manager flags. Machines, MachineSets and the other kinds still need upstream's manager (docs/operator.md#scope)",
    ),
  )
