/**
 * The manager's options: upstream Cluster API core manager's flags and defaults (the
 * Lease `controller-leader-election-capi`, `/metrics` on :8443 over authenticated HTTPS, probes on
 * :9440), Cluster API's concurrency and client limits. Durations are milliseconds.
 *
 * @module
 */
import type { FeatureGates } from "../../core/cluster/types.ts"
import { parseGoDuration } from "../../core/krtt/duration.ts"
import { LeaderElectionDefaults } from "./leaderelection.ts"

/** Everything `krtt run` is configured with: upstream's manager flags, parsed. */
export interface ManagerOptions {
  /** Path of a kubeconfig; else `KUBECONFIG`, in-cluster, `~/.kube/config`. */
  readonly kubeconfig?: string | undefined
  /** `/metrics`; `"0"` turns it off. Default `:8080`. */
  readonly metricsBindAddress: string
  /** `/healthz` and `/readyz`; `"0"` turns it off. Default `:8081`. */
  readonly healthProbeBindAddress: string
  readonly leaderElect: boolean
  readonly leaderElectNamespace: string
  readonly leaderElectId: string
  /** Default 15 s. */
  readonly leaseDuration: number
  /** Default 10 s. */
  readonly renewDeadline: number
  /** Default 2 s. */
  readonly retryPeriod: number
  /** Cluster controller reconciles at a time. Default 50 (Cluster API's manager). */
  readonly clusterConcurrency: number
  /** ClusterCache reconciles at a time. Default 100 (Cluster API's manager). */
  readonly clusterCacheConcurrency: number
  /** Management cluster client. Defaults QPS 100, burst 200 (Cluster API's manager). */
  readonly kubeApiQps: number
  readonly kubeApiBurst: number
  /** Workload cluster clients (seed 000 ClientOptions). Defaults QPS 20, burst 30, timeout 10 s. */
  readonly clusterCacheClientQps: number
  readonly clusterCacheClientBurst: number
  readonly clusterCacheClientTimeout: number
  /** How long a stop may take before the process exits anyway. Default 30 s. */
  readonly gracefulShutdownTimeout: number
  /** Cluster API feature gates the Cluster controller honours. */
  readonly featureGates: FeatureGates
  /**
   * Whether `/metrics` is served over HTTPS with TokenReview/SubjectAccessReview authentication
   * and authorization (upstream's `--diagnostics-address` without `--insecure-diagnostics`).
   * Absent: plain HTTP.
   */
  readonly metricsSecure?: boolean | undefined
  /** Minimum TLS version of the HTTPS servers (Node's name, e.g. `TLSv1.2`). Default TLS 1.2. */
  readonly tlsMinVersion?: "TLSv1" | "TLSv1.1" | "TLSv1.2" | "TLSv1.3" | undefined
  /** OpenSSL names of the allowed TLS 1.2 cipher suites; absent or empty: Node's defaults. */
  readonly tlsCipherSuites?: ReadonlyArray<string> | undefined
  /**
   * OpenSSL names of the allowed key exchange groups (`--tls-curve-preferences`), in Go's order
   * of preference; absent or empty: Node's defaults.
   */
  readonly tlsCurvePreferences?: ReadonlyArray<string> | undefined
  /** Reconcile only Clusters of this namespace (`--namespace`); absent: all namespaces. */
  readonly watchNamespace?: string | undefined
  /** Reconcile only Clusters labelled `cluster.x-k8s.io/watch-filter=<value>` (`--watch-filter`). */
  readonly watchFilter?: string | undefined
  /** Every Cluster is reconciled again at least this often (`--sync-period`). Default 10 min. */
  readonly syncPeriod?: number | undefined
  /** `RemoteConnectionProbe` stays True this long after the last successful probe. Default 50 s. */
  readonly remoteConnectionGracePeriod?: number | undefined
  /** The webhook server (`--webhook-*`): port 9443, certificates in the cert dir. */
  readonly webhookPort?: number | undefined
  readonly webhookCertDir?: string | undefined
  readonly webhookCertName?: string | undefined
  readonly webhookKeyName?: string | undefined
  /** klog verbosity (`-v`): 4 and above add debug logs. Default 2 (upstream's). */
  readonly logVerbosity?: number | undefined
  /** `--logging-format`: `text` (klog's text format) or `json` (zap's JSON, as component-base). Default text. */
  readonly loggingFormat?: "text" | "json" | undefined
  /** What the command line asked that krtt does not do, said once at start. */
  readonly notices?: ReadonlyArray<string> | undefined
}

/** Upstream's defaults of the options of its command line. */
export const UpstreamManagerDefaults = {
  diagnosticsAddress: ":8443",
  healthAddr: ":9440",
  leaderElectId: "controller-leader-election-capi",
  syncPeriod: 600_000,
  remoteConnectionGracePeriod: 50_000,
  webhookPort: 9443,
  webhookCertDir: "/tmp/k8s-webhook-server/serving-certs/",
  webhookCertName: "tls.crt",
  webhookKeyName: "tls.key",
  tlsMinVersion: "TLSv1.2",
  logVerbosity: 2,
  loggingFormat: "text",
} as const

/** The manager's defaults: upstream's, except where docs/operator.md lists a difference. */
export const ManagerDefaults: Omit<ManagerOptions, "kubeconfig" | "leaderElectNamespace"> = {
  metricsBindAddress: UpstreamManagerDefaults.diagnosticsAddress,
  metricsSecure: true,
  healthProbeBindAddress: UpstreamManagerDefaults.healthAddr,
  leaderElect: false,
  leaderElectId: UpstreamManagerDefaults.leaderElectId,
  ...LeaderElectionDefaults,
  clusterConcurrency: 50,
  clusterCacheConcurrency: 100,
  kubeApiQps: 100,
  kubeApiBurst: 200,
  clusterCacheClientQps: 20,
  clusterCacheClientBurst: 30,
  clusterCacheClientTimeout: 10_000,
  gracefulShutdownTimeout: 30_000,
  featureGates: { runtimeSDK: false, clusterTopology: false, machinePool: true },
  syncPeriod: UpstreamManagerDefaults.syncPeriod,
  remoteConnectionGracePeriod: UpstreamManagerDefaults.remoteConnectionGracePeriod,
  webhookPort: UpstreamManagerDefaults.webhookPort,
  webhookCertDir: UpstreamManagerDefaults.webhookCertDir,
  webhookCertName: UpstreamManagerDefaults.webhookCertName,
  webhookKeyName: UpstreamManagerDefaults.webhookKeyName,
  tlsMinVersion: UpstreamManagerDefaults.tlsMinVersion,
  logVerbosity: UpstreamManagerDefaults.logVerbosity,
  loggingFormat: UpstreamManagerDefaults.loggingFormat,
}

/** Parses `--feature-gates`: `ClusterTopology=true,RuntimeSDK=false,MachinePool=true`. */
export const parseFeatureGates = (value: string, defaults: FeatureGates): FeatureGates => {
  const names: Record<string, keyof FeatureGates> = {
    ClusterTopology: "clusterTopology",
    RuntimeSDK: "runtimeSDK",
    MachinePool: "machinePool",
  }
  const gates = { ...defaults }
  for (const item of value.split(",").filter((x) => x.trim() !== "")) {
    const [name, setting] = item.split("=").map((x) => x.trim())
    const key = names[name ?? ""]
    if (key === undefined || (setting !== "true" && setting !== "false")) {
      throw new Error(
        `--feature-gates: "${item}" is not one of ${Object.keys(names)
          .map((n) => `${n}=true|false`)
          .join(", ")}`,
      )
    }
    gates[key] = setting === "true"
  }
  return gates
}

/** Parses a duration flag as Go's time.ParseDuration does: `500ms`, `10s`, `5m`, `1h30m`, `0`. */
export const parseDuration = (flag: string, value: string): number => {
  const ms = parseGoDuration(value)
  if (ms === undefined)
    throw new Error(`--${flag}: "${value}" is not a duration (e.g. 500ms, 10s, 5m, 1h30m)`)
  return ms
}
