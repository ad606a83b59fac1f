/**
 * `krtt ipam init` with its parsed flags: connects to the platform cluster and runs
 * shell/ipam/init.ts. A bad value or a missing cluster exits 2 with one line naming it; a refused
 * write exits 1 naming the object.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import { type IpamInitOptions, ipamInit } from "../ipam/init.ts"
import { makeRestClient } from "../kube/restClient.ts"
import { loggerOf } from "../log/index.ts"
import { parseDuration } from "../manager/options.ts"
import type { IpamInitParsedFlags } from "./ipamCommand.ts"
import { prepareIpamCommand } from "./ipamPrepare.ts"

const port = (flag: string, n: number): number => {
  if (!Number.isInteger(n) || n < 1 || n > 65_535)
    throw new Error(`--${flag}: must be a port from 1 to 65535, got ${n}`)
  return n
}

/** Turns the parsed flags into options; a bad value throws an error naming the flag. */
export const toIpamInitOptions = (f: IpamInitParsedFlags): IpamInitOptions => {
  if (f.providerName.trim() === "") throw new Error("--provider-name: must not be empty")
  port("webhook-port", f.webhookPort)
  const baseUrl = f.webhooksBaseUrl._tag === "Some" ? f.webhooksBaseUrl.value : undefined
  if (baseUrl !== undefined && !/^https:\/\/[^/]+/.test(baseUrl))
    throw new Error(`--webhooks-base-url: must be an https:// URL, got ${JSON.stringify(baseUrl)}`)
  const namespace =
    f.namespace._tag === "Some" ? f.namespace.value : (process.env.POD_NAMESPACE ?? "") || "default"
  return {
    providerName: f.providerName,
    namespace,
    webhooks: !f.disableWebhooks,
    baseUrl,
    additionalSans: f.webhooksAdditionalSans
      .split(",")
      .map((s) => s.trim())
      .filter((s) => s !== ""),
    webhookPort: f.webhookPort,
    servicePort: port("webhooks-service-port", f.webhooksServicePort),
    certificateValidity: parseDuration("webhooks-certificate-validity", f.certificateValidity),
  }
}

/** Runs `krtt ipam init`. */
export const ipamInitMain = (f: IpamInitParsedFlags): Effect.Effect<void> =>
  Effect.gen(function* () {
    const prepared = prepareIpamCommand(
      "krtt ipam init",
      () => ({
        options: toIpamInitOptions(f),
        kubeconfig: f.kubeconfig._tag === "Some" ? f.kubeconfig.value : undefined,
      }),
      f.dryRun,
    )
    if (prepared === undefined) return
    const { options, resolved } = prepared
    const kubeconfig = resolved.kubeconfig
    yield* Effect.scoped(
      Effect.gen(function* () {
        const client = yield* makeRestClient(kubeconfig, { qps: 20, burst: 30, userAgent: "krtt-ipam-init" })
        yield* ipamInit(client, options)
      }),
    ).pipe(
      Effect.catch((e: Error) =>
        Effect.andThen(
          Effect.logError("krtt ipam init failed").pipe(Effect.annotateLogs({ error: e.message })),
          Effect.sync(() => {
            process.exitCode = 1
          }),
        ),
      ),
      Effect.provide(Logger.layer([loggerOf("json")])),
    )
  })
