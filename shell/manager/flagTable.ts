/**
 * Upstream's manager flags as data: every flag of Cluster API v1.13's core manager (main.go), of
 * component-base's logging and of controller-runtime, with its type, default and usage, marked
 * `used` or `notRun` (see flags.ts), plus upstream's feature gates and the TLS names its flags
 * take.
 *
 * One table on purpose: `UpstreamFlags` is in main.go's order, which `--help` prints; split by
 * group, that order would live in a second place. The file is long because upstream has that
 * many flags; each entry is one flag and nothing else.
 *
 * @module
 */
import { TlsCurves } from "./curves.ts"

/** The kinds of value a flag takes. */
export type FlagType =
  | "bool"
  | "int"
  | "float"
  | "string"
  | "duration"
  | "stringSlice"
  | "int32Slice"
  | "mapBool"

export interface FlagSpec {
  readonly name: string
  readonly type: FlagType
  /** The default as upstream prints it (`--help`). */
  readonly default: string
  readonly usage: string
  readonly use: "used" | "notRun"
  /** A one-letter alias (`-v`). */
  readonly shorthand?: string
}

const f = (
  name: string,
  type: FlagType,
  def: string,
  usage: string,
  use: FlagSpec["use"] = "used",
  shorthand?: string,
): FlagSpec =>
  shorthand === undefined
    ? { name, type, default: def, usage, use }
    : { name, type, default: def, usage, use, shorthand }

/**
 * Upstream's flags, in main.go's order, then component-base's logging flags, the feature gates,
 * controller-runtime's `--kubeconfig`, and krtt's own.
 */
export const UpstreamFlags: ReadonlyArray<FlagSpec> = [
  f("leader-elect", "bool", "false", "Lead through the Lease, so that one manager acts at a time"),
  f("leader-elect-lease-duration", "duration", "15s", "How long a Lease holds without renewal"),
  f("leader-elect-renew-deadline", "duration", "10s", "How long the leader tries to renew before giving up"),
  f("leader-elect-retry-period", "duration", "2s", "Time between attempts to acquire or renew"),
  f("namespace", "string", "", "Namespace whose Clusters are reconciled; empty: all namespaces"),
  f("watch-filter", "string", "", "Reconcile only objects labelled cluster.x-k8s.io/watch-filter=<value>"),
  f("profiler-address", "string", "", "Bind address of the pprof profiler", "notRun"),
  f("contention-profiling", "bool", "false", "Block profiling", "notRun"),
  f(
    "remote-connection-grace-period",
    "duration",
    "50s",
    "How long RemoteConnectionProbe stays True after the last successful probe",
  ),
  f(
    "remote-conditions-grace-period",
    "duration",
    "5m0s",
    "Grace period of remote conditions (Machine controller)",
    "notRun",
  ),
  f(
    "clustertopology-concurrency",
    "int",
    "50",
    "Clusters the topology controller reconciles at a time",
    "notRun",
  ),
  f("clusterclass-concurrency", "int", "10", "ClusterClasses reconciled at a time", "notRun"),
  f("cluster-concurrency", "int", "50", "Clusters the Cluster controller reconciles at a time"),
  f("clustercache-concurrency", "int", "100", "Clusters the ClusterCache reconciles at a time"),
  f("extensionconfig-concurrency", "int", "10", "ExtensionConfigs reconciled at a time", "notRun"),
  f("machine-concurrency", "int", "100", "Machines reconciled at a time", "notRun"),
  f("machineset-concurrency", "int", "50", "MachineSets reconciled at a time", "notRun"),
  f("machinedeployment-concurrency", "int", "50", "MachineDeployments reconciled at a time", "notRun"),
  f("machinepool-concurrency", "int", "50", "MachinePools reconciled at a time", "notRun"),
  f("clusterresourceset-concurrency", "int", "10", "ClusterResourceSets reconciled at a time", "notRun"),
  f("machinehealthcheck-concurrency", "int", "50", "MachineHealthChecks reconciled at a time", "notRun"),
  f("machineset-preflight-checks", "stringSlice", "[All]", "MachineSet preflight checks", "notRun"),
  f("skip-crd-migration-phases", "stringSlice", "[]", "CRD migration phases to skip", "notRun"),
  f("sync-period", "duration", "10m0s", "Every object is reconciled again at least this often"),
  f("kube-api-qps", "float", "100", "Requests per second to the management cluster"),
  f("kube-api-burst", "int", "200", "Burst of requests to the management cluster"),
  f("clustercache-client-qps", "float", "20", "Requests per second to each workload cluster"),
  f("clustercache-client-burst", "int", "30", "Burst of requests to each workload cluster"),
  f("webhook-port", "int", "9443", "Port of the webhook server"),
  f(
    "webhook-cert-dir",
    "string",
    "/tmp/k8s-webhook-server/serving-certs/",
    "Directory of the webhook's certificate",
  ),
  f("webhook-cert-name", "string", "tls.crt", "File name of the webhook's certificate in --webhook-cert-dir"),
  f("webhook-key-name", "string", "tls.key", "File name of the webhook's key in --webhook-cert-dir"),
  f(
    "runtime-extension-client-cert-file",
    "string",
    "",
    "Client certificate for runtime extensions",
    "notRun",
  ),
  f("runtime-extension-client-key-file", "string", "", "Client key for runtime extensions", "notRun"),
  f("health-addr", "string", ":9440", "Address of /healthz and /readyz"),
  f("additional-sync-machine-labels", "stringSlice", "[]", "Machine labels synced to Nodes", "notRun"),
  f(
    "additional-sync-machine-annotations",
    "stringSlice",
    "[]",
    "Machine annotations synced to Nodes",
    "notRun",
  ),
  f(
    "tls-min-version",
    "string",
    "VersionTLS12",
    "Minimum TLS version of the webhook and diagnostics servers",
  ),
  f(
    "tls-cipher-suites",
    "stringSlice",
    "[]",
    "Cipher suites of the webhook and diagnostics servers (IANA names)",
  ),
  f(
    "tls-curve-preferences",
    "int32Slice",
    "[]",
    `Key exchange groups of the webhook and diagnostics servers, as Go crypto/tls CurveIDs (${TlsCurves.map(
      (c) => `${c.id} ${c.openssl}`,
    ).join(", ")}), used in Go's order of preference whatever the order given; empty: Node's defaults`,
  ),
  f(
    "diagnostics-address",
    "string",
    ":8443",
    "Address of /metrics: HTTPS with authentication and authorization unless --insecure-diagnostics",
  ),
  f("insecure-diagnostics", "bool", "false", "Serve /metrics over plain HTTP without authentication"),
  // component-base logs (logsv1.AddFlags) and klog's verbosity.
  f("v", "int", "2", "Log verbosity (2 is upstream's default; 4 and above add debug logs)", "used", "v"),
  f("vmodule", "string", "", "Per-file verbosity (accepted; krtt logs by level only)", "notRun"),
  f("logging-format", "string", "text", "Log format: text (klog) or json (zap)"),
  f("log-flush-frequency", "duration", "5s", "Log flush interval (krtt writes each line at once)", "notRun"),
  f("log-json-split-stream", "bool", "false", "Info to stdout, errors to stderr (json)", "notRun"),
  f("log-json-info-buffer-size", "string", "0", "Info buffer size (json)", "notRun"),
  f("log-text-split-stream", "bool", "false", "Info to stdout, errors to stderr (text)", "notRun"),
  f("log-text-info-buffer-size", "string", "0", "Info buffer size (text)", "notRun"),
  f("feature-gates", "mapBool", "", "Feature gates, e.g. ClusterTopology=true,MachinePool=false"),
  // controller-runtime.
  f("kubeconfig", "string", "", "Path to a kubeconfig; else $KUBECONFIG, in-cluster, ~/.kube/config"),
  // krtt's own.
  f(
    "leader-elect-namespace",
    "string",
    "",
    "Namespace of the Lease (default: $POD_NAMESPACE, the in-cluster namespace, else default)",
  ),
  f(
    "leader-elect-id",
    "string",
    "controller-leader-election-capi",
    "Name of the Lease (upstream's, so that krtt and upstream never act together)",
  ),
  f("clustercache-client-timeout", "duration", "10s", "Timeout of requests to workload clusters"),
  f(
    "graceful-shutdown-timeout",
    "duration",
    "30s",
    "How long a stop may take before the process exits anyway",
  ),
  f(
    "metrics-bind-address",
    "string",
    "",
    "krtt's former metrics flag: plain HTTP /metrics on this address (prefer --diagnostics-address)",
  ),
  f("health-probe-bind-address", "string", "", "krtt's former name of --health-addr"),
]

/**
 * Upstream v1.13's feature gates (feature/feature.go) with their defaults; `AllAlpha` and
 * `AllBeta` are component-base's. krtt honours the first three; the others are accepted, with
 * one warning.
 */
export const UpstreamFeatureGates: Readonly<Record<string, boolean>> = {
  MachinePool: true,
  ClusterTopology: false,
  RuntimeSDK: false,
  KubeadmBootstrapFormatIgnition: false,
  MachineSetPreflightChecks: true,
  MachineWaitForVolumeDetachConsiderVolumeAttachments: true,
  PriorityQueue: true,
  ReconcilerRateLimiting: true,
  InPlaceUpdates: false,
  MachineTaintPropagation: false,
  AllAlpha: false,
  AllBeta: false,
}
export const HonouredFeatureGates = ["MachinePool", "ClusterTopology", "RuntimeSDK"] as const

/** Go's TLS version names (`cliflag.TLSPossibleVersions`) and Node's. */
export const TlsVersions: Readonly<Record<string, "TLSv1" | "TLSv1.1" | "TLSv1.2" | "TLSv1.3">> = {
  VersionTLS10: "TLSv1",
  VersionTLS11: "TLSv1.1",
  VersionTLS12: "TLSv1.2",
  VersionTLS13: "TLSv1.3",
}

/**
 * IANA cipher suite names (as `--tls-cipher-suites` takes them) and OpenSSL's, for the suites
 * Node's TLS offers. TLS 1.3 suites are not configurable in Go either.
 */
export const CipherSuites: Readonly<Record<string, string>> = {
  TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256: "ECDHE-ECDSA-AES128-GCM-SHA256",
  TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384: "ECDHE-ECDSA-AES256-GCM-SHA384",
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305: "ECDHE-ECDSA-CHACHA20-POLY1305",
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256: "ECDHE-ECDSA-CHACHA20-POLY1305",
  TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256: "ECDHE-RSA-AES128-GCM-SHA256",
  TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384: "ECDHE-RSA-AES256-GCM-SHA384",
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305: "ECDHE-RSA-CHACHA20-POLY1305",
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256: "ECDHE-RSA-CHACHA20-POLY1305",
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA: "ECDHE-ECDSA-AES128-SHA",
  TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA: "ECDHE-ECDSA-AES256-SHA",
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA: "ECDHE-RSA-AES128-SHA",
  TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA: "ECDHE-RSA-AES256-SHA",
  TLS_RSA_WITH_AES_128_GCM_SHA256: "AES128-GCM-SHA256",
  TLS_RSA_WITH_AES_256_GCM_SHA384: "AES256-GCM-SHA384",
  TLS_RSA_WITH_AES_128_CBC_SHA: "AES128-SHA",
  TLS_RSA_WITH_AES_256_CBC_SHA: "AES256-SHA",
}
