/**
 * `krtt ipam` on the command line: its flags with their defaults. What runs it (`ipam.ts`, the
 * IPAM controller) is loaded when it runs.
 *
 * @module
 */

import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Effect from "effect/Effect"

/**
 * The defaults the flags show and take: shell/ipam/run.ts's `IpamDefaults` (the controller's
 * concurrency and environment, controller-runtime's addresses and Lease timing), written out here
 * so that reading the command line does not load the controller; ipamCommand.test.ts holds the
 * two equal.
 */
export const IpamFlagDefaults = {
  concurrency: 10,
  environment: "default",
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
  leaseDuration: 15_000,
  renewDeadline: 10_000,
  retryPeriod: 2_000,
  kubeApiQps: 100,
  kubeApiBurst: 200,
  gracefulShutdownTimeout: 30_000,
} as const

const d = IpamFlagDefaults
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

const bool = (name: string, fallback: boolean, description: string) =>
  Flag.Boolean(name).pipe(
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
  metricsSecure: bool(
    "metrics-secure",
    d.metricsSecure,
    "Serve /metrics over HTTPS to callers the API server authenticates (TokenReview) and authorizes (SubjectAccessReview); --metrics-secure=false: plain HTTP",
  ),
  metricsCertPath: str(
    "metrics-cert-path",
    d.metricsCertPath,
    "Directory of the metrics server's certificate; empty: a self-signed one",
  ),
  metricsCertName: str("metrics-cert-name", d.metricsCertName, "File name of the metrics certificate"),
  metricsCertKey: str("metrics-cert-key", d.metricsCertKey, "File name of the metrics certificate's key"),
  webhookCertPath: str(
    "webhook-cert-path",
    d.webhookCertPath,
    "Directory of the webhook server's certificate; empty: /tmp/k8s-webhook-server/serving-certs",
  ),
  webhookCertName: str("webhook-cert-name", d.webhookCertName, "File name of the webhook certificate"),
  webhookCertKey: str("webhook-cert-key", d.webhookCertKey, "File name of the webhook certificate's key"),
  webhookPort: int("webhook-port", d.webhookPort, "Port of the webhook server (HTTPS)"),
  enableHttp2: bool(
    "enable-http2",
    d.enableHttp2,
    "Accepted for upstream's command line; the metrics and webhook servers speak HTTP/1.1",
  ),
  pprofBindAddress: str(
    "pprof-bind-address",
    d.pprofBindAddress,
    "Accepted for upstream's command line; Node has no pprof, a value is logged and ignored",
  ),
  disableWebhooks: bool("disable-webhooks", false, "Do not serve the Cluster and IPAMConfig webhooks"),
  dryRun: bool("dry-run", false, "Print the options the flags give and exit"),
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

/** The flags as the command line gives them. */
export type IpamParsedFlags = {
  readonly [K in keyof typeof flags]: (typeof flags)[K] extends Flag.Flag<infer A> ? A : never
}

const initFlags = {
  kubeconfig: flags.kubeconfig,
  providerName: str(
    "provider-name",
    "ipam",
    "Names the webhook Secret <name>-webhook-tls and Service <name>-webhook (upstream: the PlatformService's name)",
  ),
  namespace: Flag.String("namespace").pipe(
    Flag.optional,
    Flag.withDescription(
      "Namespace of the webhook Secret and Service (default: $POD_NAMESPACE, else default)",
    ),
  ),
  environment: flags.environment,
  disableWebhooks: bool("disable-webhooks", false, "Install no webhooks, and remove those installed before"),
  dryRun: bool("dry-run", false, "Print the options the flags give and exit"),
  webhooksBaseUrl: Flag.String("webhooks-base-url").pipe(
    Flag.optional,
    Flag.withDescription(
      "Base URL of the webhook server, instead of the Service (e.g. https://localhost:9443)",
    ),
  ),
  webhooksAdditionalSans: str(
    "webhooks-additional-sans",
    "",
    "More DNS names (comma-separated) for the self-signed webhook certificate",
  ),
  webhookPort: int("webhook-port", d.webhookPort, "Port the webhook Service forwards to"),
  webhooksServicePort: int(
    "webhooks-service-port",
    443,
    "Port of the webhook Service, which the webhook configurations call",
  ),
  certificateValidity: str(
    "webhooks-certificate-validity",
    "87600h",
    "How long a new self-signed webhook certificate is valid",
  ),
}

/** The flags of `krtt ipam init` as the command line gives them. */
export type IpamInitParsedFlags = {
  readonly [K in keyof typeof initFlags]: (typeof initFlags)[K] extends Flag.Flag<infer A> ? A : never
}

/** `krtt ipam init`: upstream's `init` subcommand. */
export const ipamInitCommand = Command.make("init", initFlags, (f) =>
  Effect.flatMap(
    Effect.promise(() => import("./ipamInit.ts")),
    ({ ipamInitMain }) => ipamInitMain(f),
  ),
).pipe(
  Command.withDescription(
    "Install the IPAM CRDs and the webhooks (a self-signed certificate in a Secret, the Service, the webhook configurations), as upstream's init does",
  ),
)

/** The `ipam` subcommand. */
export const ipamCommand = Command.make("ipam", flags, (f) =>
  Effect.flatMap(
    Effect.promise(() => import("./ipam.ts")),
    ({ ipamMain }) => ipamMain(f),
  ),
).pipe(
  Command.withDescription(
    "Run the IPAM controller: CIDRs for openmcp Clusters, injected through ClusterConfigs, as an IPAMConfig says (seed 004)",
  ),
  Command.withSubcommands([ipamInitCommand]),
)
