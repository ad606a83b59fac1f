/**
 * `krtt ipam`: the IPAM controller as a process. Connects to the platform cluster, serves
 * metrics and probes, optionally waits to lead, then runs the controller until SIGTERM, with the
 * manager's pieces (shell/manager: kubeconfig, HTTP servers, Lease).
 *
 * Expected flow: resolve the kubeconfig → check the three CRDs → start the probe and metrics
 * servers and the webhook server (unless `--disable-webhooks`) → (leader election) → reflectors, config, state restore, workers → `/readyz` ready →
 * on SIGTERM the workers finish in-flight reconciles (at most the graceful shutdown timeout) and
 * the Lease is released. A lost Lease ends the process with an error.
 *
 * @module
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import type * as Scope from "effect/Scope"
import { KubeClient } from "../kube/client.ts"
import { Resources } from "../kube/resource.ts"
import { makeRestClient } from "../kube/restClient.ts"
import { parseBindAddress } from "../manager/http.ts"
import type { ResolvedKubeconfig } from "../manager/kubeconfig.ts"
import { LeaderElectionDefaults } from "../manager/leaderelection.ts"
import { lead, serveMetricsAndHealth } from "../manager/serve.ts"
import { type IpamController, IpamControllerDefaults, makeIpamController } from "./controller.ts"
import { requiredCrds } from "./resources.ts"
import { type IpamWebhookError, serveIpamWebhooks } from "./webhooks.ts"

/** The errors of the manager's servers and leader election (shell/manager/serve.ts), untagged there. */
type ManagerError = Error

/** `krtt ipam`'s options (durations in milliseconds). */
export interface IpamOptions {
  readonly kubeconfig?: string | undefined
  /** The IPAMConfig to follow. */
  readonly config: string
  /** `openmcp.cloud/managed-by` of the ClusterConfigs; upstream: the PlatformService's name (default: `config`). */
  readonly providerName: string
  /** `openmcp.cloud/environment` of the ClusterConfigs. */
  readonly environment: string
  readonly concurrency: number
  readonly metricsBindAddress: string
  /** HTTPS with TokenReview and SubjectAccessReview per request (upstream's default), else HTTP. */
  readonly metricsSecure: boolean
  /** Directory of the metrics certificate; empty: self-signed. */
  readonly metricsCertPath: string
  readonly metricsCertName: string
  readonly metricsCertKey: string
  /** Directory of the webhook certificate; empty: controller-runtime's default directory. */
  readonly webhookCertPath: string
  readonly webhookCertName: string
  readonly webhookCertKey: string
  readonly webhookPort: number
  /** Serve the Cluster defaulting and IPAMConfig validating webhooks. */
  readonly webhooks: boolean
  /** Accepted as upstream's flag; Node's servers here speak HTTP/1.1. */
  readonly enableHttp2: boolean
  /** Accepted as upstream's flag; there is no pprof in Node (a value is logged). */
  readonly pprofBindAddress: string
  readonly healthProbeBindAddress: string
  readonly leaderElect: boolean
  readonly leaderElectNamespace: string
  readonly leaderElectId: string
  readonly leaseDuration: number
  readonly renewDeadline: number
  readonly retryPeriod: number
  readonly kubeApiQps: number
  readonly kubeApiBurst: number
  readonly gracefulShutdownTimeout: number
}

/**
 * The documented defaults of `krtt ipam`: upstream's `run` for the flags it has (metrics off, and
 * secure when on; certificates `tls.crt`/`tls.key`; probes on :8081), controller-runtime's for the
 * manager's others.
 */
export const IpamDefaults = {
  concurrency: IpamControllerDefaults.concurrency,
  environment: IpamControllerDefaults.environment,
  metricsBindAddress: "0",
  metricsSecure: true,
  metricsCertPath: "",
  metricsCertName: "tls.crt",
  metricsCertKey: "tls.key",
  webhookCertPath: "",
  webhookCertName: "tls.crt",
  webhookCertKey: "tls.key",
  webhookPort: 9443,
  enableHttp2: false,
  pprofBindAddress: "",
  healthProbeBindAddress: ":8081",
  leaderElect: false,
  leaderElectId: "krtt-ipam-leader-election",
  ...LeaderElectionDefaults,
  kubeApiQps: 100,
  kubeApiBurst: 200,
  gracefulShutdownTimeout: 30_000,
} as const

/** `krtt ipam` could not start: a certificate, a CustomResourceDefinition, or the controller's first reads. */
export class IpamStartError extends Data.TaggedError("IpamStartError")<{ readonly message: string }> {}

/** Reads a certificate and its key from a directory, naming the file that cannot be read. */
export const readCertificate = (dir: string, certName: string, keyName: string) =>
  Effect.try({
    try: () => ({
      cert: readFileSync(join(dir, certName), "utf8"),
      key: readFileSync(join(dir, keyName), "utf8"),
    }),
    catch: (e) =>
      new IpamStartError({ message: `cannot read the certificate in ${dir}: ${(e as Error).message}` }),
  })

/** Logs the upstream flags that have no effect here. */
const noteUnsupported = (options: IpamOptions) =>
  Effect.gen(function* () {
    if (options.pprofBindAddress !== "")
      yield* Effect.logWarning("--pprof-bind-address is ignored: Node has no pprof").pipe(
        Effect.annotateLogs({ address: options.pprofBindAddress }),
      )
    if (options.enableHttp2) yield* Effect.logWarning("--enable-http2 is ignored: the servers speak HTTP/1.1")
  })

/** Runs the IPAM controller until interrupted; `onStarted` sees the controller (tests, benchmarks). */
export const runIpam = (
  options: IpamOptions,
  resolved: ResolvedKubeconfig,
  onStarted: (c: IpamController) => Effect.Effect<void> = () => Effect.void,
): Effect.Effect<void, IpamStartError | IpamWebhookError | ManagerError, Scope.Scope> =>
  Effect.gen(function* () {
    const metricsAddress = parseBindAddress("metrics-bind-address", options.metricsBindAddress)
    const healthAddress = parseBindAddress("health-probe-bind-address", options.healthProbeBindAddress)
    const client = yield* makeRestClient(resolved.kubeconfig, {
      qps: options.kubeApiQps,
      burst: options.kubeApiBurst,
      userAgent: "krtt-ipam",
    })
    const server = resolved.kubeconfig.getCurrentCluster()?.server ?? "the cluster"
    yield* Effect.logInfo("starting the IPAM controller").pipe(
      Effect.annotateLogs({ kubeconfig: resolved.source, server, config: options.config }),
    )
    for (const crd of requiredCrds) {
      const installed = yield* client.get(Resources.customResourceDefinitions, { name: crd }).pipe(
        Effect.as(true),
        Effect.catchTag("NotFound", () => Effect.succeed(false)),
        Effect.mapError(
          (e) =>
            new IpamStartError({
              message: `cannot read CustomResourceDefinition ${crd}: ${e._tag}: ${e.message}`,
            }),
        ),
      )
      if (!installed)
        return yield* Effect.fail(
          new IpamStartError({
            message: `the CustomResourceDefinition ${crd} is not installed in ${server}: install it with kubectl apply -k config/ipam`,
          }),
        )
    }
    const ready = yield* Ref.make<Effect.Effect<boolean>>(Effect.succeed(false))
    yield* noteUnsupported(options)
    const metricsCertificate =
      options.metricsCertPath === ""
        ? undefined
        : yield* readCertificate(options.metricsCertPath, options.metricsCertName, options.metricsCertKey)
    yield* serveMetricsAndHealth(
      client,
      { metricsAddress, healthAddress, metricsSecure: options.metricsSecure, metricsCertificate },
      Effect.flatten(Ref.get(ready)),
    )
    // Every replica answers admissions, leading or not (controller-runtime's webhook server).
    if (options.webhooks)
      yield* serveIpamWebhooks(client, options.config, {
        port: options.webhookPort,
        certPath: options.webhookCertPath,
        certName: options.webhookCertName,
        keyName: options.webhookCertKey,
      })
    const lost = yield* lead(client, options)
    const { controller, start } = yield* makeIpamController(client, {
      config: options.config,
      identity: { managedBy: options.providerName, environment: options.environment },
      concurrency: options.concurrency,
      gracefulShutdownTimeout: options.gracefulShutdownTimeout,
      component: "krtt-ipam",
    }).pipe(Effect.provideService(KubeClient, client))
    yield* start.pipe(
      Effect.mapError(
        (e) => new IpamStartError({ message: `starting the IPAM controller: ${e._tag}: ${e.message}` }),
      ),
    )
    yield* Ref.set(ready, controller.ready)
    yield* Effect.logInfo("IPAM controller started").pipe(Effect.annotateLogs({ config: options.config }))
    yield* onStarted(controller)
    yield* lost
  })
