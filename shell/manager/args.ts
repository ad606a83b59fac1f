/**
 * Upstream's manager command line (`flags.ts`) turned into the manager's options: defaults as
 * upstream's, upstream's own checks (`--remote-conditions-grace-period` longer than
 * `--remote-connection-grace-period` and at least 2 min), and the notices of what krtt accepts
 * but does not do (flags of controllers it does not run, feature gates it does not implement),
 * said once at start.
 *
 * @module
 */
import { existsSync, readFileSync } from "node:fs"
import { curveGroups } from "./curves.ts"
import {
  CipherSuites,
  closestFlag,
  FlagError,
  HonouredFeatureGates,
  parseFlags,
  readBool,
  readDuration,
  readFeatureGates,
  readFloat,
  readInt,
  readInt32List,
  readList,
  TlsVersions,
  UpstreamFeatureGates,
  UpstreamFlags,
} from "./flags.ts"
import { ManagerDefaults, type ManagerOptions } from "./options.ts"

const NAMESPACE_FILE = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"

/** The manager's namespace: `POD_NAMESPACE`, the in-cluster namespace, else `default`. */
export const managerNamespace = (
  env: NodeJS.ProcessEnv = process.env,
  namespaceFile: string = NAMESPACE_FILE,
): string =>
  env.POD_NAMESPACE !== undefined && env.POD_NAMESPACE !== ""
    ? env.POD_NAMESPACE
    : existsSync(namespaceFile)
      ? readFileSync(namespaceFile, "utf8").trim()
      : "default"

/** What the command line asks for: the options, or that help was asked. */
export type ManagerArgs =
  | { readonly _tag: "Run"; readonly options: ManagerOptions }
  | { readonly _tag: "Help" }

/** Typed reads of the given flags, each with its default when the flag is absent. */
const readerOf = (values: ReadonlyMap<string, string>) => {
  const given = (name: string) => values.get(name)
  const read =
    <A>(parse: (name: string, v: string) => A) =>
    (name: string, fallback: A): A => {
      const x = given(name)
      return x === undefined ? fallback : parse(name, x)
    }
  return {
    given,
    str: (name: string, fallback: string) => given(name) ?? fallback,
    int: read(readInt),
    float: read(readFloat),
    dur: read(readDuration),
    bool: read(readBool),
  }
}
type Reader = ReturnType<typeof readerOf>

/** Every value is checked, the flags of controllers krtt does not run too. */
const checkValues = ({ given }: Reader): void => {
  for (const spec of UpstreamFlags) {
    const x = given(spec.name)
    if (x === undefined) continue
    if (spec.type === "bool") readBool(spec.name, x)
    if (spec.type === "int") readInt(spec.name, x)
    if (spec.type === "float") readFloat(spec.name, x)
    if (spec.type === "duration") readDuration(spec.name, x)
    if (spec.type === "int32Slice") readInt32List(spec.name, x)
  }
}

/** The notice of flags given for what krtt does not run, if any. */
const notRunNotice = ({ given }: Reader): ReadonlyArray<string> => {
  const notRun = UpstreamFlags.filter((s) => s.use === "notRun" && given(s.name) !== undefined).map(
    (s) => `--${s.name}`,
  )
  return notRun.length > 0
    ? [
        `accepted, but krtt does not run what they configure (it runs the ClusterCache and the Cluster controller only): ${notRun.join(", ")}`,
      ]
    : []
}

/** The notice of feature gates set away from upstream's default that krtt does not implement, if any. */
const gatesNotice = (gates: Readonly<Record<string, boolean>>): ReadonlyArray<string> => {
  const unsupported = Object.keys(gates).filter(
    (g) =>
      !(HonouredFeatureGates as ReadonlyArray<string>).includes(g) && gates[g] !== UpstreamFeatureGates[g],
  )
  return unsupported.length > 0
    ? [
        `feature gates accepted but not implemented by krtt: ${unsupported.map((g) => `${g}=${gates[g]}`).join(", ")}`,
      ]
    : []
}

/** Upstream's checks of its grace periods; answers the connection grace period. */
const connectionGracePeriod = ({ dur }: Reader): number => {
  const connection = dur("remote-connection-grace-period", 50_000)
  const conditions = dur("remote-conditions-grace-period", 300_000)
  if (conditions <= connection)
    throw new FlagError(
      "--remote-conditions-grace-period must be greater than --remote-connection-grace-period",
    )
  if (conditions < 120_000) throw new FlagError("--remote-conditions-grace-period must be at least 2m")
  return connection
}

/** `--tls-min-version`, `--tls-cipher-suites` and `--tls-curve-preferences`, checked. */
const tlsOptions = ({ given, str }: Reader) => {
  const tlsName = str("tls-min-version", "VersionTLS12")
  const tlsMinVersion = TlsVersions[tlsName]
  if (tlsMinVersion === undefined)
    throw new FlagError(
      `invalid argument "${tlsName}" for --tls-min-version: one of ${Object.keys(TlsVersions).join(", ")}`,
    )
  const tlsCipherSuites = readList(str("tls-cipher-suites", "")).map((name) => {
    const openssl = CipherSuites[name]
    if (openssl === undefined)
      throw new FlagError(
        `invalid argument "${name}" for --tls-cipher-suites: unknown cipher suite (did you mean ${closestFlag(name, Object.keys(CipherSuites))}?)`,
      )
    return openssl
  })
  const curves = given("tls-curve-preferences")
  const tlsCurvePreferences = (() => {
    if (curves === undefined) return []
    try {
      return curveGroups(readInt32List("tls-curve-preferences", curves))
    } catch (e) {
      if (e instanceof FlagError) throw e
      throw new FlagError(`invalid argument "${curves}" for --tls-curve-preferences: ${(e as Error).message}`)
    }
  })()
  return { tlsMinVersion, tlsCipherSuites, tlsCurvePreferences }
}

/** `--logging-format`: text or json. */
const loggingFormat = ({ str }: Reader): "text" | "json" => {
  const format = str("logging-format", "text")
  if (format !== "text" && format !== "json")
    throw new FlagError(`invalid argument "${format}" for --logging-format: text or json`)
  return format
}

/** Where diagnostics are served, and whether over TLS. */
const diagnostics = ({ given, str, bool }: Reader) => {
  // krtt's former flags still work: --metrics-bind-address serves plain HTTP, as it always did.
  const legacyMetrics = given("metrics-bind-address")
  const insecure = bool("insecure-diagnostics", false)
  return {
    metricsBindAddress: legacyMetrics ?? str("diagnostics-address", ":8443"),
    metricsSecure: legacyMetrics === undefined && !insecure,
  }
}

/**
 * The options of a command line as upstream's manager takes it. Throws {@link FlagError} naming
 * the flag on an unknown flag or a bad value.
 */
export const managerOptionsFromArgs = (
  argv: ReadonlyArray<string>,
  env: NodeJS.ProcessEnv = process.env,
  namespaceFile?: string,
): ManagerArgs => {
  const parsed = parseFlags(argv)
  if (parsed.help) return { _tag: "Help" }
  if (parsed.args.length > 0)
    throw new FlagError(
      `unexpected argument "${parsed.args[0]}": the manager takes flags only (--name=value)`,
    )
  const r = readerOf(parsed.values)
  const { given, str, int, float, dur, bool } = r
  checkValues(r)
  const gates = readFeatureGates(str("feature-gates", ""))
  const notices = [...notRunNotice(r), ...gatesNotice(gates)]
  const remoteConnectionGracePeriod = connectionGracePeriod(r)
  const tls = tlsOptions(r)
  const format = loggingFormat(r)
  const d = ManagerDefaults
  const options: ManagerOptions = {
    ...(given("kubeconfig") === undefined ? {} : { kubeconfig: given("kubeconfig") }),
    ...diagnostics(r),
    healthProbeBindAddress: given("health-probe-bind-address") ?? str("health-addr", ":9440"),
    leaderElect: bool("leader-elect", false),
    leaderElectNamespace: given("leader-elect-namespace") ?? managerNamespace(env, namespaceFile),
    leaderElectId: str("leader-elect-id", d.leaderElectId),
    leaseDuration: dur("leader-elect-lease-duration", d.leaseDuration),
    renewDeadline: dur("leader-elect-renew-deadline", d.renewDeadline),
    retryPeriod: dur("leader-elect-retry-period", d.retryPeriod),
    clusterConcurrency: int("cluster-concurrency", d.clusterConcurrency),
    clusterCacheConcurrency: int("clustercache-concurrency", d.clusterCacheConcurrency),
    kubeApiQps: float("kube-api-qps", d.kubeApiQps),
    kubeApiBurst: int("kube-api-burst", d.kubeApiBurst),
    clusterCacheClientQps: float("clustercache-client-qps", d.clusterCacheClientQps),
    clusterCacheClientBurst: int("clustercache-client-burst", d.clusterCacheClientBurst),
    clusterCacheClientTimeout: dur("clustercache-client-timeout", d.clusterCacheClientTimeout),
    gracefulShutdownTimeout: dur("graceful-shutdown-timeout", d.gracefulShutdownTimeout),
    featureGates: {
      clusterTopology: gates.ClusterTopology ?? d.featureGates.clusterTopology,
      runtimeSDK: gates.RuntimeSDK ?? d.featureGates.runtimeSDK,
      machinePool: gates.MachinePool ?? d.featureGates.machinePool,
    },
    ...tls,
    ...(str("namespace", "") === "" ? {} : { watchNamespace: str("namespace", "") }),
    ...(str("watch-filter", "") === "" ? {} : { watchFilter: str("watch-filter", "") }),
    syncPeriod: dur("sync-period", 600_000),
    remoteConnectionGracePeriod,
    webhookPort: int("webhook-port", 9443),
    webhookCertDir: str("webhook-cert-dir", "/tmp/k8s-webhook-server/serving-certs/"),
    webhookCertName: str("webhook-cert-name", "tls.crt"),
    webhookKeyName: str("webhook-key-name", "tls.key"),
    logVerbosity: int("v", 2),
    loggingFormat: format,
    notices,
  }
  return { _tag: "Run", options }
}
