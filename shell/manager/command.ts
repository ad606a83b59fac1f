/**
 * The `krtt run` command: upstream Cluster API core manager's command line, accepted unchanged
 * (`args.ts`, `flags.ts`), logs as `--logging-format` and `-v` say, graceful SIGTERM.
 *
 * effect/cli reads `-v` as `--version` and refuses flags it does not declare; upstream's flags
 * are pflag's. So the words after `run` are handed to the command untouched: `krtt run <flags>`
 * is read as `krtt run -- <flags>` ({@link passRunArgsThrough}) and parsed by `flags.ts`.
 *
 * @module
 */
import { existsSync, readFileSync } from "node:fs"
import { Effect, Logger, References } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import { managerOptionsFromArgs } from "./args.ts"
import { usage } from "./flags.ts"
import { resolveKubeconfig } from "./kubeconfig.ts"
import { ManagerDefaults, type ManagerOptions, parseDuration, parseFeatureGates } from "./options.ts"
import { type Runnable, runManager } from "./run.ts"

const NAMESPACE_FILE = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"

/** The namespace of the Lease when none is given: the pod's, else `default`. */
const defaultNamespace = (): string =>
  process.env.POD_NAMESPACE ??
  (existsSync(NAMESPACE_FILE) ? readFileSync(NAMESPACE_FILE, "utf8").trim() : "default")

const d = ManagerDefaults
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
const ms = (v: number) => (v % 1000 === 0 ? `${v / 1000}s` : `${v}ms`)

const flags = {
  kubeconfig: Flag.String("kubeconfig").pipe(
    Flag.optional,
    Flag.withDescription(
      "Path to a kubeconfig; else $KUBECONFIG, the in-cluster service account, ~/.kube/config",
    ),
  ),
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
  clusterConcurrency: int(
    "cluster-concurrency",
    d.clusterConcurrency,
    "Clusters the Cluster controller reconciles at a time",
  ),
  clusterCacheConcurrency: int(
    "clustercache-concurrency",
    d.clusterCacheConcurrency,
    "Clusters the ClusterCache reconciles at a time",
  ),
  kubeApiQps: int("kube-api-qps", d.kubeApiQps, "Requests per second to the management cluster"),
  kubeApiBurst: int("kube-api-burst", d.kubeApiBurst, "Burst of requests to the management cluster"),
  clusterCacheClientQps: int(
    "clustercache-client-qps",
    d.clusterCacheClientQps,
    "Requests per second to each workload cluster",
  ),
  clusterCacheClientBurst: int(
    "clustercache-client-burst",
    d.clusterCacheClientBurst,
    "Burst of requests to each workload cluster",
  ),
  clusterCacheClientTimeout: str(
    "clustercache-client-timeout",
    ms(d.clusterCacheClientTimeout),
    "Timeout of requests to workload clusters",
  ),
  featureGates: str(
    "feature-gates",
    "ClusterTopology=false,RuntimeSDK=false,MachinePool=true",
    "Cluster API feature gates the Cluster controller honours",
  ),
  gracefulShutdownTimeout: str(
    "graceful-shutdown-timeout",
    ms(d.gracefulShutdownTimeout),
    "How long a stop may take before the process exits anyway",
  ),
}

type Parsed = { readonly [K in keyof typeof flags]: (typeof flags)[K] extends Flag.Flag<infer A> ? A : never }

/** Turns the parsed flags into options; a bad value throws an error naming the flag. */
export const toOptions = (f: Parsed): ManagerOptions => ({
  ...(f.kubeconfig._tag === "Some" ? { kubeconfig: f.kubeconfig.value } : {}),
  metricsBindAddress: f.metricsBindAddress,
  healthProbeBindAddress: f.healthProbeBindAddress,
  leaderElect: f.leaderElect,
  leaderElectNamespace:
    f.leaderElectNamespace._tag === "Some" ? f.leaderElectNamespace.value : defaultNamespace(),
  leaderElectId: f.leaderElectId,
  leaseDuration: parseDuration("leader-elect-lease-duration", f.leaseDuration),
  renewDeadline: parseDuration("leader-elect-renew-deadline", f.renewDeadline),
  retryPeriod: parseDuration("leader-elect-retry-period", f.retryPeriod),
  clusterConcurrency: f.clusterConcurrency,
  clusterCacheConcurrency: f.clusterCacheConcurrency,
  kubeApiQps: f.kubeApiQps,
  kubeApiBurst: f.kubeApiBurst,
  clusterCacheClientQps: f.clusterCacheClientQps,
  clusterCacheClientBurst: f.clusterCacheClientBurst,
  clusterCacheClientTimeout: parseDuration("clustercache-client-timeout", f.clusterCacheClientTimeout),
  gracefulShutdownTimeout: parseDuration("graceful-shutdown-timeout", f.gracefulShutdownTimeout),
  featureGates: parseFeatureGates(f.featureGates, ManagerDefaults.featureGates),
})

export const NO_CLUSTER_MESSAGE = `krtt: no cluster is configured (no --kubeconfig, no $KUBECONFIG, not in a cluster, no ~/.kube/config).
To run the operator against a cluster:
  npm run krtt -- run --kubeconfig /path/to/kubeconfig
  (install the CRDs and RBAC first: kubectl apply -f deploy/crds -f deploy/rbac)
A local control plane for trying it: npm run --silent testenv -- up --clusters 2 --dir /tmp/krtt`

/** Options for the run command: what runs beside the ClusterCache, and what runs without a cluster. */
export interface RunCommandOptions {
  readonly controllers: ReadonlyArray<Runnable>
  /** Runs when no cluster is configured (the embedded default). */
  readonly withoutCluster: Effect.Effect<void>
}

/**
 * Exits the process after the graceful shutdown timeout once a stop began, whatever is still
 * running. `who` names the command in the message.
 */
export const forceExitAfter = (timeout: number, who = "krtt") =>
  Effect.addFinalizer(() =>
    Effect.sync(() => {
      setTimeout(() => {
        process.stderr.write(`${who}: shutdown took longer than ${timeout} ms; exiting\n`)
        process.exit(1)
      }, timeout).unref()
    }),
  )

/** The Effect log level of a klog verbosity: 4 and above add debug logs, 6 and above traces. */
export const logLevelOf = (verbosity: number): "Info" | "Debug" | "Trace" =>
  verbosity >= 6 ? "Trace" : verbosity >= 4 ? "Debug" : "Info"

/**
 * Runs the manager from upstream's command line (the words after `run`). A bad flag prints one
 * line naming it and sets exit code 2; `--help` prints every flag with its default.
 */
export const runArgs = (argv: ReadonlyArray<string>, opts: RunCommandOptions): Effect.Effect<void> =>
  Effect.gen(function* () {
    let options: ManagerOptions
    let resolved: ReturnType<typeof resolveKubeconfig>
    try {
      const parsed = managerOptionsFromArgs(argv)
      if (parsed._tag === "Help") {
        process.stdout.write(`${usage()}\n`)
        return
      }
      options = parsed.options
      resolved = resolveKubeconfig(options.kubeconfig)
    } catch (e) {
      process.stderr.write(`krtt run: ${(e as Error).message}\n`)
      process.exitCode = 2
      return
    }
    if (resolved === undefined) {
      process.stderr.write(`${NO_CLUSTER_MESSAGE}\n`)
      return yield* opts.withoutCluster
    }
    const logger = options.loggingFormat === "json" ? Logger.consoleJson : Logger.consoleLogFmt
    yield* Effect.scoped(
      Effect.andThen(
        forceExitAfter(options.gracefulShutdownTimeout),
        runManager(options, resolved, opts.controllers),
      ),
    ).pipe(
      Effect.catch((e) =>
        Effect.andThen(
          Effect.logError("the manager stopped").pipe(Effect.annotateLogs({ error: e.message })),
          Effect.sync(() => {
            process.exitCode = 1
          }),
        ),
      ),
      Effect.provideService(References.MinimumLogLevel, logLevelOf(options.logVerbosity ?? 2)),
      Effect.provide(Logger.layer([logger])),
    )
  })

/**
 * Hands the words after `krtt run` to {@link runArgs} untouched, by reading `krtt run <flags>`
 * as `krtt run -- <flags>` before effect/cli parses the command line (it would take `-v=2` for
 * `--version` and refuse upstream's flags). Only `process.argv` of a `krtt run` invocation is
 * changed, and only once.
 */
export const passRunArgsThrough = (
  argv: Array<string> = process.argv,
  commands: ReadonlyArray<string> = ["run"],
): void => {
  if (commands.includes(argv[2] ?? "") && argv[3] !== "--" && argv.length > 3) argv.splice(3, 0, "--")
}

/** `krtt run`: upstream's manager flags after `run`, unchanged (see the module doc). */
export const runCommand = (opts: RunCommandOptions) => {
  return Command.make(
    "run",
    {
      flags: Argument.String("flags").pipe(
        Argument.withDescription("Upstream Cluster API core manager's flags (krtt run --help lists them)"),
        Argument.variadic(),
      ),
    },
    ({ flags }) => runArgs(flags, opts),
  ).pipe(
    Command.withDescription(
      "Run the operator (the ClusterCache and the Cluster controller) with upstream Cluster API's manager flags",
    ),
  )
}

/** The former effect/cli form of `krtt run`, kept for its exports' users; {@link runCommand} replaces it. */
export const legacyRunCommand = (opts: RunCommandOptions) =>
  Command.make("run", flags, (f) =>
    Effect.gen(function* () {
      let options: ManagerOptions
      let resolved: ReturnType<typeof resolveKubeconfig>
      try {
        options = toOptions(f)
        resolved = resolveKubeconfig(options.kubeconfig)
      } catch (e) {
        process.stderr.write(`krtt run: ${(e as Error).message}\n`)
        process.exitCode = 2
        return
      }
      if (resolved === undefined) {
        process.stderr.write(`${NO_CLUSTER_MESSAGE}\n`)
        return yield* opts.withoutCluster
      }
      const program = Effect.scoped(
        Effect.andThen(
          forceExitAfter(options.gracefulShutdownTimeout),
          runManager(options, resolved, opts.controllers),
        ),
      )
      yield* program.pipe(
        Effect.catch((e) =>
          Effect.andThen(
            Effect.logError("the manager stopped").pipe(Effect.annotateLogs({ error: e.message })),
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
      "Run the operator: the ClusterCache and the Cluster controller against the management cluster",
    ),
  )
