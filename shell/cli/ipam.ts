/**
 * `krtt ipam --kubeconfig PATH --config NAME`: the IPAM controller (seed 004) with the manager's
 * flags (controller-runtime's names and defaults), JSON logs and a graceful SIGTERM. The command
 * line is read in `ipamCommand.ts`, which loads this module when the command runs.
 *
 * @module
 */

import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import { type IpamOptions, runIpam } from "../ipam/run.ts"
import { loggerOf } from "../log/index.ts"
import { managerNamespace } from "../manager/args.ts"
import { forceExitAfter } from "../manager/command.ts"
import { parseDuration } from "../manager/options.ts"
import type { IpamParsedFlags } from "./ipamCommand.ts"
import { prepareIpamCommand } from "./ipamPrepare.ts"

const positive = (flag: string, n: number): number => {
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${flag}: must be a positive integer, got ${n}`)
  return n
}

const nonEmpty = (flag: string, v: string): string => {
  if (v.trim() === "") throw new Error(`--${flag}: must not be empty`)
  return v
}

const port = (flag: string, n: number): number => {
  if (!Number.isInteger(n) || n < 1 || n > 65_535)
    throw new Error(`--${flag}: must be a port from 1 to 65535, got ${n}`)
  return n
}

/** Turns the parsed flags into options; a bad value throws an error naming the flag. */
export const toIpamOptions = (f: IpamParsedFlags): IpamOptions => {
  if (f.config.trim() === "") throw new Error("--config: give the name of the IPAMConfig to follow")
  return {
    ...(f.kubeconfig._tag === "Some" ? { kubeconfig: f.kubeconfig.value } : {}),
    config: f.config,
    providerName: f.providerName._tag === "Some" ? f.providerName.value : f.config,
    environment: f.environment,
    concurrency: positive("concurrency", f.concurrency),
    metricsBindAddress: f.metricsBindAddress,
    metricsSecure: f.metricsSecure,
    metricsCertPath: f.metricsCertPath,
    metricsCertName: nonEmpty("metrics-cert-name", f.metricsCertName),
    metricsCertKey: nonEmpty("metrics-cert-key", f.metricsCertKey),
    webhookCertPath: f.webhookCertPath,
    webhookCertName: nonEmpty("webhook-cert-name", f.webhookCertName),
    webhookCertKey: nonEmpty("webhook-cert-key", f.webhookCertKey),
    webhookPort: port("webhook-port", f.webhookPort),
    webhooks: !f.disableWebhooks,
    enableHttp2: f.enableHttp2,
    pprofBindAddress: f.pprofBindAddress,
    healthProbeBindAddress: f.healthProbeBindAddress,
    leaderElect: f.leaderElect,
    leaderElectNamespace:
      f.leaderElectNamespace._tag === "Some" ? f.leaderElectNamespace.value : managerNamespace(),
    leaderElectId: f.leaderElectId,
    leaseDuration: parseDuration("leader-elect-lease-duration", f.leaseDuration),
    renewDeadline: parseDuration("leader-elect-renew-deadline", f.renewDeadline),
    retryPeriod: parseDuration("leader-elect-retry-period", f.retryPeriod),
    kubeApiQps: positive("kube-api-qps", f.kubeApiQps),
    kubeApiBurst: positive("kube-api-burst", f.kubeApiBurst),
    gracefulShutdownTimeout: parseDuration("graceful-shutdown-timeout", f.gracefulShutdownTimeout),
  }
}

/**
 * Runs `krtt ipam` with its parsed flags: a bad value or a missing cluster exits 2 with one line
 * naming it; a controller that stops exits 1.
 */
export const ipamMain = (f: IpamParsedFlags): Effect.Effect<void> =>
  Effect.gen(function* () {
    const prepared = prepareIpamCommand(
      "krtt ipam",
      () => {
        const options = toIpamOptions(f)
        return { options, kubeconfig: options.kubeconfig }
      },
      f.dryRun,
    )
    if (prepared === undefined) return
    const { options, resolved } = prepared
    yield* Effect.scoped(
      Effect.andThen(
        forceExitAfter(options.gracefulShutdownTimeout, "krtt ipam"),
        runIpam(options, resolved),
      ),
    ).pipe(
      Effect.catch((e: Error) =>
        Effect.andThen(
          Effect.logError("the IPAM controller stopped").pipe(Effect.annotateLogs({ error: e.message })),
          Effect.sync(() => {
            process.exitCode = 1
          }),
        ),
      ),
      // zap's JSON on standard error, as controller-runtime's production logger writes it.
      Effect.provide(Logger.layer([loggerOf("json")])),
    )
  })
