/**
 * `krtt ipam --kubeconfig PATH --config NAME`: the IPAM controller (seed 004) with the manager's
 * flags (controller-runtime's names and defaults), JSON logs and a graceful SIGTERM.
 *
 * @module
 */

import { Command, Flag } from "effect/cli"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import { IpamDefaults, type IpamOptions, runIpam } from "../ipam/run.ts"
import { managerNamespace } from "../manager/args.ts"
import { forceExitAfter } from "../manager/command.ts"
import { resolveKubeconfig } from "../manager/kubeconfig.ts"
import { parseDuration } from "../manager/options.ts"

const d = IpamDefaults
const ms = (v: number) => (v % 1000 === 0 ? `${v / 1000}s` : `${v}ms`)
const str = (name: string, fallback: string, description: string) =>
  Flag.String(name).pipe(
    Flag.withDefault(fallback),
    Flag.withDescription(`${description} (default ${fallback})`),
  )
const int = (name: string, fallback: number, description: string) =>
  Flag.Int(name).pipe(
    Flag.withDefault(fallback),
    Flag.withDescription(`${description} (default ${fallback})`),
  )

const flags = {
  kubeconfig: Flag.String("kubeconfig").pipe(
    Flag.optional,
    Flag.withDescription(
      "Path to a kubeconfig; else $KUBECONFIG, the in-cluster service account, ~/.kube/config",
    ),
  ),
  config: Flag.String("config").pipe(
    Flag.withDescription("Name of the IPAMConfig (gardener.clusters.openmcp.cloud/v1alpha1) to follow"),
  ),
  providerName: Flag.String("provider-name").pipe(
    Flag.optional,
    Flag.withDescription(
      "Value of the openmcp.cloud/managed-by label of the ClusterConfigs (default: --config)",
    ),
  ),
  environment: str(
    "environment",
    d.environment,
    "Value of the openmcp.cloud/environment label of the ClusterConfigs",
  ),
  concurrency: int("concurrency", d.concurrency, "Clusters reconciled at a time"),
  metricsBindAddress: str(
    "metrics-bind-address",
    d.metricsBindAddress,
    "Address of /metrics (host:port, :port; 0 turns it off)",
  ),
  healthProbeBindAddress: str(
    "health-probe-bind-address",
    d.healthProbeBindAddress,
    "Address of /healthz and /readyz (host:port, :port; 0 turns it off)",
  ),
  leaderElect: Flag.Boolean("leader-elect").pipe(
    Flag.withDefault(false),
    Flag.withDescription(
      "Lead through a coordination.k8s.io Lease, so that one replica acts at a time (default false)",
    ),
  ),
  leaderElectNamespace: Flag.String("leader-elect-namespace").pipe(
    Flag.optional,
    Flag.withDescription("Namespace of the Lease (default: the pod's namespace, else default)"),
  ),
  leaderElectId: str("leader-elect-id", d.leaderElectId, "Name of the Lease"),
  leaseDuration: str(
    "leader-elect-lease-duration",
    ms(d.leaseDuration),
    "How long a Lease holds without renewal",
  ),
  renewDeadline: str(
    "leader-elect-renew-deadline",
    ms(d.renewDeadline),
    "How long the leader tries to renew before it gives up",
  ),
  retryPeriod: str(
    "leader-elect-retry-period",
    ms(d.retryPeriod),
    "Time between attempts to acquire or renew",
  ),
  kubeApiQps: int("kube-api-qps", d.kubeApiQps, "Requests per second to the platform cluster"),
  kubeApiBurst: int("kube-api-burst", d.kubeApiBurst, "Burst of requests to the platform cluster"),
  gracefulShutdownTimeout: str(
    "graceful-shutdown-timeout",
    ms(d.gracefulShutdownTimeout),
    "How long a stop may take before the process exits anyway",
  ),
}

type Parsed = { readonly [K in keyof typeof flags]: (typeof flags)[K] extends Flag.Flag<infer A> ? A : never }

const positive = (flag: string, n: number): number => {
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${flag}: must be a positive integer, got ${n}`)
  return n
}

/** Turns the parsed flags into options; a bad value throws an error naming the flag. */
export const toIpamOptions = (f: Parsed): IpamOptions => {
  if (f.config.trim() === "") throw new Error("--config: give the name of the IPAMConfig to follow")
  return {
    ...(f.kubeconfig._tag === "Some" ? { kubeconfig: f.kubeconfig.value } : {}),
    config: f.config,
    providerName: f.providerName._tag === "Some" ? f.providerName.value : f.config,
    environment: f.environment,
    concurrency: positive("concurrency", f.concurrency),
    metricsBindAddress: f.metricsBindAddress,
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

export const ipamCommand = Command.make("ipam", flags, (f) =>
  Effect.gen(function* () {
    let options: IpamOptions
    let resolved: ReturnType<typeof resolveKubeconfig>
    try {
      options = toIpamOptions(f)
      resolved = resolveKubeconfig(options.kubeconfig)
    } catch (e) {
      process.stderr.write(`krtt ipam: ${(e as Error).message}\n`)
      process.exitCode = 2
      return
    }
    if (resolved === undefined) {
      process.stderr.write(
        "krtt ipam: no cluster is configured (no --kubeconfig, no $KUBECONFIG, not in a cluster, no ~/.kube/config)\n",
      )
      process.exitCode = 2
      return
    }
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
      Effect.provide(Logger.layer([Logger.consoleJson])),
    )
  }),
).pipe(
  Command.withDescription(
    "Run the IPAM controller: CIDRs for openmcp Clusters, injected through ClusterConfigs, as an IPAMConfig says (seed 004)",
  ),
)
