/**
 * `krtt why cluster` as the command runs it: resolves the kubeconfig, makes the client, prints
 * the report on stdout; a usage error or a missing Cluster is one line on stderr and exit 2.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as References from "effect/References"
import { makeRestClient } from "../kube/restClient.ts"
import { resolveKubeconfig } from "../manager/kubeconfig.ts"
import { render, type WhyFlags, whyClusters } from "./run.ts"

/** Runs `krtt why cluster` with its parsed flags. */
export const whyMain = (flags: WhyFlags & { readonly kubeconfig: string | undefined }): Effect.Effect<void> =>
  Effect.gen(function* () {
    const usage = (message: string) =>
      Effect.sync(() => {
        process.stderr.write(`krtt why cluster: ${message}\n`)
        process.exitCode = 2
      })
    let resolved: ReturnType<typeof resolveKubeconfig>
    try {
      resolved = resolveKubeconfig(flags.kubeconfig)
    } catch (e) {
      return yield* usage(`--kubeconfig: ${(e as Error).message}`)
    }
    if (resolved === undefined)
      return yield* usage(
        "--kubeconfig: no management cluster is configured (no --kubeconfig, no $KUBECONFIG, no ~/.kube/config)",
      )
    const kubeconfig = resolved.kubeconfig
    yield* Effect.scoped(
      Effect.gen(function* () {
        const client = yield* makeRestClient(kubeconfig, { userAgent: "krtt-why" })
        const ds = yield* whyClusters(client, flags)
        yield* Effect.sync(() => void process.stdout.write(`${render(ds, flags)}\n`))
      }),
    ).pipe(
      Effect.catch((e) => usage(e.message)),
      Effect.provide(Logger.layer([Logger.withConsoleError(Logger.formatJson)])),
      Effect.provideService(References.MinimumLogLevel, "Warn"),
    )
  })
