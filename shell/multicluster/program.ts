/**
 * The entry point of a multi-cluster controller program: its command-line flags (the hub's
 * kubeconfig, the provider and its flags, sharding) and `runProgram`, which builds the hub, the
 * provider, the shard gate and the manager, lets the program add its controllers, and runs until
 * interrupted (SIGTERM, Ctrl-C). The examples in `examples/multicluster/` are such programs.
 *
 * Flags (strict: an unknown flag is an error naming the closest known one, exit code 2):
 * - `--kubeconfig FILE`: the hub; else `$KUBECONFIG`, the in-cluster service account, `~/.kube/config`.
 * - `--provider NAME`: kubeconfig-secrets, kubeconfig-file, namespaces, cluster-api,
 *   cluster-inventory-api (comma-separated: composed).
 * - `--provider-namespace NS`: the namespace of kubeconfig-secrets (and cluster-api's, optional).
 * - `--provider-kubeconfig PATH`, repeatable: kubeconfig-file's files, directories and globs.
 * - `--provider-access-config FILE`: cluster-inventory-api's access providers (JSON).
 * - `--provider-probe-interval DURATION`: kubeconfig-secrets' and kubeconfig-file's time between
 *   probes (`GET /`) of a cluster, default `10s`; `0` turns the probes of engaged clusters off.
 * - `--shard-lease-prefix PREFIX`: run sharded: replicas started with the same prefix split the
 *   provider clusters by rendezvous hashing over their Leases `<PREFIX>-<identity>`.
 * - `--shard-lease-namespace NS`: where those Leases live (default: `$POD_NAMESPACE`, else `default`).
 * - `--shard-identity ID`: this replica's identity (default: hostname plus a random suffix).
 * - `--metrics-bind-address ADDR`: serve `/metrics` (with the per-cluster series) on `host:port`
 *   or `:port`; default `0`, off (two replicas on one machine would fight over controller-runtime's
 *   `:8080`).
 * - `--health-probe-bind-address ADDR`: serve `/healthz` and `/readyz` (ready once started);
 *   default `0`, off.
 *
 * @module
 */
import { parseArgs } from "node:util"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import type * as Scope from "effect/Scope"
import type { KubeClientShape } from "../kube/client.ts"
import { makeRestClient } from "../kube/restClient.ts"
import { loggerOf } from "../log/index.ts"
import { healthRoutes, metricsRoutes, parseBindAddress, serveOn } from "../manager/http.ts"
import { resolveKubeconfig } from "../manager/kubeconfig.ts"
import { makeCluster } from "./cluster.ts"
import { type MultiClusterManager, make as makeManager } from "./manager.ts"
import { closest } from "./providers/errors.ts"
import { makeProvider } from "./providers/index.ts"
import { makeShardGate } from "./sharding.ts"

/** The program's flags, parsed. */
export interface ProgramFlags {
  readonly kubeconfig?: string | undefined
  readonly provider?: string | undefined
  readonly providerNamespace?: string | undefined
  readonly providerKubeconfig?: ReadonlyArray<string> | undefined
  readonly providerAccessConfig?: string | undefined
  readonly providerProbeInterval?: string | undefined
  readonly shardLeasePrefix?: string | undefined
  readonly shardLeaseNamespace?: string | undefined
  readonly shardIdentity?: string | undefined
  readonly metricsBindAddress?: string | undefined
  readonly healthProbeBindAddress?: string | undefined
}

/** A bad command line: the message names the flag. Exit code 2. */
export class ProgramUsageError extends Data.TaggedError("ProgramUsageError")<{
  readonly flag: string
  readonly message: string
}> {}

/** Flags that may be given more than once. */
const repeatable: ReadonlyArray<string> = ["provider-kubeconfig"]

const known = {
  kubeconfig: "kubeconfig",
  provider: "provider",
  "provider-namespace": "providerNamespace",
  "provider-kubeconfig": "providerKubeconfig",
  "provider-access-config": "providerAccessConfig",
  "provider-probe-interval": "providerProbeInterval",
  "shard-lease-prefix": "shardLeasePrefix",
  "shard-lease-namespace": "shardLeaseNamespace",
  "shard-identity": "shardIdentity",
  "metrics-bind-address": "metricsBindAddress",
  "health-probe-bind-address": "healthProbeBindAddress",
} as const

/** Parses the flags; an unknown or valueless flag fails naming it (and the closest known one). */
export const parseProgramFlags = (
  argv: ReadonlyArray<string>,
): Effect.Effect<ProgramFlags, ProgramUsageError> =>
  Effect.suspend(() => {
    try {
      const { values } = parseArgs({
        args: [...argv],
        strict: true,
        allowPositionals: false,
        options: Object.fromEntries(
          Object.keys(known).map((k) => [k, { type: "string" as const, multiple: repeatable.includes(k) }]),
        ),
      })
      const out: Record<string, string | ReadonlyArray<string> | undefined> = {}
      for (const [flag, key] of Object.entries(known)) out[key] = values[flag] as string | undefined
      return Effect.succeed(out as ProgramFlags)
    } catch (e) {
      const message = (e as Error).message
      const flag = /'(--?[^'\s]+)/.exec(message)?.[1] ?? "arguments"
      const near = closest(flag.replace(/^-+/, ""), Object.keys(known))
      return Effect.fail(
        new ProgramUsageError({
          flag,
          message: `${flag}: ${message}${near === undefined ? "" : ` (known flags: --${Object.keys(known).join(", --")}; closest: --${near})`}`,
        }),
      )
    }
  })

/** What `runProgram` hands the program's `setup`. */
export interface ProgramContext {
  readonly manager: MultiClusterManager
  readonly hubClient: KubeClientShape
}

/**
 * Builds the manager from `flags` (hub, provider, optional shard gate), calls `setup` to add the
 * controllers, starts it, and runs until interrupted.
 */
export const runProgram = <E>(
  flags: ProgramFlags,
  setup: (ctx: ProgramContext) => Effect.Effect<void, E, Scope.Scope>,
): Effect.Effect<never, ProgramUsageError | E, Scope.Scope> =>
  Effect.gen(function* () {
    if (flags.provider === undefined)
      return yield* new ProgramUsageError({
        flag: "--provider",
        message: "--provider is required (e.g. kubeconfig-secrets)",
      })
    let resolved: ReturnType<typeof resolveKubeconfig>
    try {
      resolved = resolveKubeconfig(flags.kubeconfig)
    } catch (e) {
      return yield* new ProgramUsageError({ flag: "--kubeconfig", message: (e as Error).message })
    }
    if (resolved === undefined)
      return yield* new ProgramUsageError({
        flag: "--kubeconfig",
        message: "--kubeconfig: no hub cluster is configured",
      })
    let metricsAddress: ReturnType<typeof parseBindAddress>
    let healthAddress: ReturnType<typeof parseBindAddress>
    try {
      metricsAddress = parseBindAddress("metrics-bind-address", flags.metricsBindAddress ?? "0")
      healthAddress = parseBindAddress("health-probe-bind-address", flags.healthProbeBindAddress ?? "0")
    } catch (e) {
      const message = (e as Error).message
      return yield* new ProgramUsageError({ flag: message.slice(0, message.indexOf(":")), message })
    }
    const hubClient = yield* makeRestClient(resolved.kubeconfig, { userAgent: "krtt-multicluster" })
    const provider = yield* makeProvider(flags.provider, hubClient, {
      ...(flags.providerNamespace === undefined ? {} : { providerNamespace: flags.providerNamespace }),
      ...(flags.providerKubeconfig === undefined ? {} : { providerKubeconfig: flags.providerKubeconfig }),
      ...(flags.providerAccessConfig === undefined
        ? {}
        : { providerAccessConfig: flags.providerAccessConfig }),
      ...(flags.providerProbeInterval === undefined
        ? {}
        : { providerProbeInterval: flags.providerProbeInterval }),
    }).pipe(Effect.mapError((e) => new ProgramUsageError({ flag: e.flag, message: e.message })))
    const gate =
      flags.shardLeasePrefix === undefined
        ? undefined
        : makeShardGate(hubClient, {
            namespace: flags.shardLeaseNamespace ?? process.env.POD_NAMESPACE ?? "default",
            leasePrefix: flags.shardLeasePrefix,
            identity: flags.shardIdentity,
          })
    const manager = yield* makeManager({ hub: yield* makeCluster({ client: hubClient }), provider, gate })
    yield* setup({ manager, hubClient })
    let ready = false
    yield* Layer.build(serveOn(metricsAddress, metricsRoutes)).pipe(Effect.orDie)
    yield* Layer.build(serveOn(healthAddress, healthRoutes(Effect.sync(() => ready)))).pipe(Effect.orDie)
    yield* manager.start
    ready = true
    return yield* Effect.never
  })

/**
 * The `main` of a program: parses `process.argv`, runs until interrupted with its logs in zap's
 * JSON on stderr (as the `krtt` commands' `--logging-format=json`); a usage error prints one line
 * to stderr and sets exit code 2.
 */
export const programMain = <E>(
  name: string,
  setup: (ctx: ProgramContext) => Effect.Effect<void, E, Scope.Scope>,
): Effect.Effect<void> =>
  Effect.scoped(
    Effect.flatMap(parseProgramFlags(process.argv.slice(2)), (flags) => runProgram(flags, setup)),
  ).pipe(
    Effect.catch((e) =>
      Effect.sync(() => {
        const message = e instanceof Error ? e.message : String(e)
        process.stderr.write(`${name}: ${message}\n`)
        process.exitCode = e instanceof ProgramUsageError ? 2 : 1
      }),
    ),
    Effect.provide(Logger.layer([loggerOf("json")])),
  )
