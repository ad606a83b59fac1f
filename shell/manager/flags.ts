/**
 * The command line of upstream's core manager (Cluster API v1.13, `sigs.k8s.io/cluster-api`
 * main.go), accepted unchanged: every flag it defines, with its default, parsed as pflag does
 * (`--name=value`, `--name value`, `--bool`, `--bool=false`, `-v=2`, `-v 2`, `_` read as `-`,
 * lists comma-separated or repeated), plus the few of krtt's own.
 *
 * Each flag is one of:
 * - `used`: krtt acts on it;
 * - `notRun`: it configures a controller or facility of upstream's manager that krtt does not
 *   run (Machine, MachineSet, ClusterClass, topology, ...): accepted, and reported once at start.
 *
 * An unknown flag is an error naming the closest known one; a bad value is an error naming the
 * flag. Both exit 2, as pflag does.
 *
 * @module
 */

import { parseGoDuration } from "../../core/krtt/duration.ts"
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

/** A command line krtt refuses: the message names the flag. Exit code 2. */
export class FlagError extends Error {
  override readonly name = "FlagError"
}

/** The parsed values, by flag name, as strings (lists joined by commas); only flags given. */
export interface ParsedFlags {
  readonly values: ReadonlyMap<string, string>
  /** Positional arguments (pflag keeps them; the manager takes none). */
  readonly args: ReadonlyArray<string>
  readonly help: boolean
}

const byName = new Map(UpstreamFlags.map((s) => [s.name, s]))
const byShorthand = new Map(
  UpstreamFlags.filter((s) => s.shorthand !== undefined).map((s) => [s.shorthand, s]),
)

/** Levenshtein distance, for "did you mean". */
const distance = (a: string, b: string): number => {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0] as number
    row[0] = i
    for (let j = 1; j <= b.length; j++) {
      const cur = row[j] as number
      row[j] = Math.min(
        (row[j] as number) + 1,
        (row[j - 1] as number) + 1,
        prev + (a[i - 1] === b[j - 1] ? 0 : 1),
      )
      prev = cur
    }
  }
  return row[b.length] as number
}

/** The known name closest to `name`. */
export const closestFlag = (name: string, names: Iterable<string> = byName.keys()): string => {
  let best = ""
  let bestD = Number.POSITIVE_INFINITY
  for (const n of names) {
    const d = distance(name, n)
    if (d < bestD) {
      best = n
      bestD = d
    }
  }
  return best
}

const BOOL = /^(true|false|1|0|t|f|TRUE|FALSE|True|False|T|F)$/

/** pflag's reading of a command line against {@link UpstreamFlags}. */
export const parseFlags = (argv: ReadonlyArray<string>): ParsedFlags => {
  const values = new Map<string, string>()
  const args: Array<string> = []
  let help = false
  const set = (spec: FlagSpec, value: string) => {
    if (spec.type === "stringSlice" || spec.type === "int32Slice" || spec.type === "mapBool") {
      const before = values.get(spec.name)
      values.set(spec.name, before === undefined || before === "" ? value : `${before},${value}`)
    } else values.set(spec.name, value)
  }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string
    if (arg === "--") {
      args.push(...argv.slice(i + 1))
      break
    }
    if (!arg.startsWith("-") || arg === "-") {
      args.push(arg)
      continue
    }
    const long = arg.startsWith("--")
    const body = arg.slice(long ? 2 : 1)
    const eq = body.indexOf("=")
    const rawName = (eq === -1 ? body : body.slice(0, eq)).replaceAll("_", "-")
    if (rawName === "help" || rawName === "h") {
      help = true
      continue
    }
    // A single dash names a shorthand (`-v`) or, as Go's flag package allows, a long name.
    const spec = long ? byName.get(rawName) : (byShorthand.get(rawName) ?? byName.get(rawName))
    if (spec === undefined)
      throw new FlagError(`unknown flag: ${arg.split("=")[0]} (did you mean --${closestFlag(rawName)}?)`)
    let value: string
    if (eq !== -1) value = body.slice(eq + 1)
    else if (spec.type === "bool") value = "true"
    else {
      const next = argv[i + 1]
      if (next === undefined) throw new FlagError(`flag needs an argument: --${spec.name}`)
      value = next
      i++
    }
    set(spec, value)
  }
  return { values, args, help }
}

/** The usage text, as `--help` prints it. */
export const usage = (): string =>
  [
    "Usage: krtt run [flags]   (upstream Cluster API core manager's flags are accepted unchanged)",
    "",
    "Runs the Cluster controller and the ClusterCache of Cluster API's core manager, and the Cluster's",
    "webhooks. Machines, MachineSets, MachineDeployments and the other kinds still need upstream's",
    "manager (docs/operator.md#scope).",
    "",
    ...UpstreamFlags.map((s) => {
      const name = s.shorthand === undefined ? `    --${s.name}` : `-${s.shorthand}, --${s.name}`
      const def = s.default === "" ? "" : ` (default ${s.default})`
      const note = s.use === "notRun" ? " [accepted; krtt does not run this]" : ""
      return `  ${name} ${s.type === "bool" ? "" : s.type}\n        ${s.usage}${def}${note}`
    }),
  ].join("\n")

// ---------------------------------------------------------------------------------------------
// Typed readers: each names its flag in the error.

export const readBool = (flag: string, v: string): boolean => {
  if (!BOOL.test(v))
    throw new FlagError(`invalid argument "${v}" for --${flag}: not a boolean (true or false)`)
  return /^(true|1|t)$/i.test(v)
}

export const readInt = (flag: string, v: string): number => {
  if (!/^[+-]?\d+$/.test(v)) throw new FlagError(`invalid argument "${v}" for --${flag}: not an integer`)
  return Number(v)
}

export const readFloat = (flag: string, v: string): number => {
  const n = Number(v)
  if (v.trim() === "" || !Number.isFinite(n))
    throw new FlagError(`invalid argument "${v}" for --${flag}: not a number`)
  return n
}

/** Go's time.ParseDuration: `300ms`, `1.5h`, `2h45m`, `10m0s`, `0`. Milliseconds. */
export const readDuration = (flag: string, v: string): number => {
  const ms = parseGoDuration(v)
  if (ms === undefined)
    throw new FlagError(`invalid argument "${v}" for --${flag}: not a duration (e.g. 500ms, 10s, 5m, 1h30m)`)
  return ms
}

/**
 * pflag's int32 list: comma-separated, each item an integer literal as Go's
 * `strconv.ParseInt(item, 0, 32)` reads it (decimal, `0x`/`0o`/`0b` or a leading `0` for octal,
 * an optional sign, `_` between digits), within int32's range. Items are not trimmed.
 */
export const readInt32List = (flag: string, v: string): ReadonlyArray<number> =>
  v.split(",").map((item) => {
    const g = GO_INT.exec(item)?.groups
    if (g === undefined)
      throw new FlagError(`invalid argument "${v}" for --${flag}: "${item}" is not an integer`)
    const [digits, base] =
      g.hex !== undefined
        ? [g.hex, 16]
        : g.bin !== undefined
          ? [g.bin, 2]
          : g.dec !== undefined
            ? [g.dec, 10]
            : [g.oct ?? g.zero ?? "", 8]
    const magnitude = digits === "" ? 0 : Number.parseInt(digits.replaceAll("_", ""), base)
    const n = g.sign === "-" ? -magnitude : magnitude
    if (n < -(2 ** 31) || n > 2 ** 31 - 1)
      throw new FlagError(`invalid argument "${v}" for --${flag}: ${item} is out of the range of int32`)
    return n
  })

/** Go's integer literals as `strconv.ParseInt` with base 0 reads them. */
const GO_INT =
  /^(?<sign>[+-]?)(?:0[xX](?<hex>(?:_?[0-9a-fA-F])+)|0[bB](?<bin>(?:_?[01])+)|0[oO](?<oct>(?:_?[0-7])+)|0(?<zero>(?:_?[0-7])*)|(?<dec>[1-9](?:_?[0-9])*))$/

export const readList = (v: string): ReadonlyArray<string> =>
  v
    .split(",")
    .map((x) => x.trim())
    .filter((x) => x !== "")

/** `--feature-gates`: known gates only, values true or false. */
export const readFeatureGates = (v: string): Readonly<Record<string, boolean>> => {
  const out: Record<string, boolean> = {}
  for (const item of readList(v)) {
    const [name = "", setting = ""] = item.split("=").map((x) => x.trim())
    if (!(name in UpstreamFeatureGates))
      throw new FlagError(
        `invalid argument "${item}" for --feature-gates: unrecognized feature gate ${name} (did you mean ${closestFlag(name, Object.keys(UpstreamFeatureGates))}?)`,
      )
    if (!BOOL.test(setting))
      throw new FlagError(`invalid argument "${item}" for --feature-gates: ${name} must be true or false`)
    out[name] = readBool("feature-gates", setting)
  }
  return out
}

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
