/**
 * What `krtt run` does with upstream's command line (the words after `run`): parse it, find the
 * cluster, and run the manager there, or the embedded default when no cluster is configured.
 * Reading the kubeconfig (client-node) and the manager are loaded only once a cluster is found,
 * both at once.
 *
 * @module
 */

import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as References from "effect/References"
import { loggerOf } from "../log/index.ts"
import { managerOptionsFromArgs } from "./args.ts"
import { forceExitAfter, logLevelOf, NO_CLUSTER_MESSAGE, type RunCommandOptions } from "./command.ts"
import { usage } from "./flags.ts"
import type { ResolvedKubeconfig } from "./kubeconfig.ts"
import { findKubeconfig, type KubeconfigSource } from "./kubeconfigSource.ts"
import type { ManagerOptions } from "./options.ts"

/** A command line or kubeconfig the manager refuses: one line naming what is wrong, exit code 2. */
const refuse = (e: unknown) =>
  Effect.sync(() => {
    process.stderr.write(`krtt run: ${(e as Error).message}\n`)
    process.exitCode = 2
  })

/**
 * Runs the manager from upstream's command line (the words after `run`). A bad flag prints one
 * line naming it and sets exit code 2; `--help` prints every flag with its default.
 */
export const runArgs = (argv: ReadonlyArray<string>, opts: RunCommandOptions): Effect.Effect<void> =>
  Effect.gen(function* () {
    let options: ManagerOptions
    let source: KubeconfigSource | undefined
    try {
      const parsed = managerOptionsFromArgs(argv)
      if (parsed._tag === "Help") {
        process.stdout.write(`${usage()}\n`)
        return
      }
      options = parsed.options
      source = findKubeconfig(options.kubeconfig)
    } catch (e) {
      return yield* refuse(e)
    }
    if (source === undefined) {
      process.stderr.write(`${NO_CLUSTER_MESSAGE}\n`)
      return yield* opts.withoutCluster
    }
    const [{ loadKubeconfig }, { runManager }] = yield* Effect.promise(() =>
      Promise.all([import("./kubeconfig.ts"), import("./run.ts")]),
    )
    let resolved: ResolvedKubeconfig
    try {
      resolved = loadKubeconfig(source)
    } catch (e) {
      return yield* refuse(e)
    }
    const logger = loggerOf(options.loggingFormat ?? "text")
    yield* Effect.scoped(
      Effect.andThen(
        forceExitAfter(options.gracefulShutdownTimeout),
        runManager(options, resolved, opts.controllers),
      ),
    ).pipe(
      Effect.catch((e) =>
        Effect.andThen(
          Effect.logError("the manager stopped").pipe(Effect.annotateLogs({ error: e.message })),
          Effect.sync(() => {
            process.exitCode = 1
          }),
        ),
      ),
      Effect.provideService(References.MinimumLogLevel, logLevelOf(options.logVerbosity ?? 2)),
      Effect.provide(Logger.layer([logger])),
    )
  })
