/**
 * `krtt clusters`: runs a provider against the hub and prints each cluster's name, whether it is
 * engaged, its health and why, once after the initial sync or continuously with `--watch`.
 *
 * ```
 * krtt clusters --kubeconfig HUB --provider NAME [--provider-namespace NS]
 *               [--provider-kubeconfig FILE] [--provider-access-config FILE]
 *               [--provider-probe-interval DURATION] [--json] [--watch]
 *               [--timeout 2m]
 * ```
 *
 * Once: a cluster is printed as soon as it has a verdict (engaged, or failed its probes), so an
 * unreachable cluster delays no other's line; the command ends when every cluster has one, or
 * after `--timeout` (clusters still undecided are printed with the reason). `--json` prints one
 * document `{"clusters":[{"name","engaged","healthy","reason"}]}` at the end instead. `--watch`
 * prints the table (or one JSON document per line) on every change until interrupted.
 * Bad flags exit 2 with a message naming the flag. The command line is read in
 * `clustersCommand.ts`, which loads this module when the command runs.
 *
 * @module
 */
import * as Clock from "effect/Clock"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as References from "effect/References"
import type * as Scope from "effect/Scope"
import type { KubeClientShape } from "../kube/client.ts"
import { makeRestClient } from "../kube/restClient.ts"
import { resolveKubeconfig } from "../manager/kubeconfig.ts"
import { parseDuration } from "../manager/options.ts"
import { makeCluster } from "../multicluster/cluster.ts"
import { make as makeManager } from "../multicluster/manager.ts"
import { makeProvider, type ProviderFlags } from "../multicluster/providers/index.ts"
import type { ClusterState, Provider } from "../multicluster/types.ts"

/** The command's numbers. */
export const ClustersDefaults = {
  /** Once mode ends after this even if some cluster has no verdict yet. Default 2 min. */
  timeout: 120_000,
  /** Once mode with no cluster at all ends after this (the provider found none). Default 5 s. */
  emptyGrace: 5_000,
  /** How often the provider's view is read. Default 500 ms. */
  pollInterval: 500,
} as const

/** A usage error: exit code 2, the message names the flag. */
export class ClustersUsageError extends Data.TaggedError("ClustersUsageError")<{
  readonly message: string
}> {}

/** Whether a cluster has a verdict: engaged, or failed its probes. */
export const decided = (c: ClusterState): boolean => c.engaged || !c.healthy

const sorted = (cs: ReadonlyArray<ClusterState>) => [...cs].sort((a, b) => a.name.localeCompare(b.name))

/** The JSON document. */
export const clustersJson = (cs: ReadonlyArray<ClusterState>): string =>
  JSON.stringify({
    clusters: sorted(cs).map((c) => ({
      name: c.name,
      engaged: c.engaged,
      healthy: c.healthy,
      reason: c.reason,
    })),
  })

const columns = (name: string, engaged: string, healthy: string, reason: string, width: number) =>
  `${name.padEnd(width)}  ${engaged.padEnd(7)}  ${healthy.padEnd(7)}  ${reason}`.trimEnd()

/** The table header for names up to `width`. */
export const header = (width: number): string => columns("NAME", "ENGAGED", "HEALTHY", "REASON", width)

/** One table row. */
export const row = (c: ClusterState, width: number): string =>
  columns(c.name, String(c.engaged), String(c.healthy), c.reason, width)

/** The whole table. */
export const table = (cs: ReadonlyArray<ClusterState>): string => {
  const width = Math.max(4, ...cs.map((c) => c.name.length))
  return [header(width), ...sorted(cs).map((c) => row(c, width))].join("\n")
}

/** Where output goes (stdout in the command, an array in tests). */
export type Write = (line: string) => Effect.Effect<void>

/** What `report` is asked for. */
export interface ReportOptions {
  readonly json: boolean
  readonly watch: boolean
  readonly timeout?: number | undefined
  readonly emptyGrace?: number | undefined
  readonly pollInterval?: number | undefined
}

/**
 * Prints the provider's clusters as the options say (see the module doc). Returns when once mode
 * is done; runs until interrupted with `watch`.
 */
export const report = (provider: Provider, options: ReportOptions, write: Write): Effect.Effect<void> =>
  Effect.gen(function* () {
    const poll = Duration.millis(options.pollInterval ?? ClustersDefaults.pollInterval)
    const start = yield* Clock.currentTimeMillis
    if (options.watch) {
      let last = ""
      while (true) {
        const cs = yield* provider.clusters
        const text = options.json ? clustersJson(cs) : table(cs)
        if (text !== last) {
          last = text
          yield* write(options.json ? text : `${text}\n`)
        }
        yield* Effect.sleep(poll)
      }
    }
    const timeout = options.timeout ?? ClustersDefaults.timeout
    const grace = options.emptyGrace ?? ClustersDefaults.emptyGrace
    const printed = new Set<string>()
    let width = 0
    while (true) {
      const cs = yield* provider.clusters
      const now = yield* Clock.currentTimeMillis
      const done = cs.length > 0 ? cs.every(decided) : now - start >= grace
      const expired = now - start >= timeout
      if (!options.json) {
        const ready = sorted(cs).filter((c) => !printed.has(c.name) && (decided(c) || expired))
        if (ready.length > 0 || (printed.size === 0 && (done || expired))) {
          if (width === 0) {
            width = Math.max(4, ...cs.map((c) => c.name.length))
            yield* write(header(width))
          }
          for (const c of ready) {
            printed.add(c.name)
            const shown = decided(c)
              ? c
              : { ...c, reason: c.reason || `no verdict within ${Duration.format(Duration.millis(timeout))}` }
            yield* write(row(shown, width))
          }
        }
      }
      if (done || expired) {
        if (options.json)
          yield* write(
            clustersJson(
              cs.map((c) =>
                decided(c) || c.reason !== ""
                  ? c
                  : { ...c, reason: `no verdict within ${Duration.format(Duration.millis(timeout))}` },
              ),
            ),
          )
        return
      }
      yield* Effect.sleep(poll)
    }
  })

/** Parsed flags. */
export interface ClustersFlags {
  readonly kubeconfig: string | undefined
  readonly provider: string | undefined
  readonly providerNamespace: string | undefined
  readonly providerKubeconfig: string | undefined
  /** cluster-inventory-api's access providers (JSON file). */
  readonly providerAccessConfig?: string | undefined
  /** kubeconfig-secrets' and kubeconfig-file's time between health probes (`0`: none). */
  readonly providerProbeInterval?: string | undefined
  readonly json: boolean
  readonly watch: boolean
  readonly timeout: string
}

/** Checks the flags that need no I/O; throws ClustersUsageError naming the flag. */
export const checkFlags = (f: ClustersFlags): { readonly timeout: number; readonly provider: string } => {
  if (f.provider === undefined || f.provider.trim() === "")
    throw new ClustersUsageError({ message: "--provider is required (e.g. --provider kubeconfig-secrets)" })
  let timeout: number
  try {
    timeout = parseDuration("timeout", f.timeout)
  } catch (e) {
    throw new ClustersUsageError({ message: (e as Error).message })
  }
  if (timeout <= 0) throw new ClustersUsageError({ message: `--timeout must be positive, got ${f.timeout}` })
  return { timeout, provider: f.provider }
}

/** Runs the provider against `hub` and reports; a ProviderUsageError becomes a ClustersUsageError. */
export const runClusters = (
  hub: KubeClientShape,
  flags: ClustersFlags,
  write: Write,
): Effect.Effect<void, ClustersUsageError, Scope.Scope> =>
  Effect.gen(function* () {
    const checked = yield* Effect.try({ try: () => checkFlags(flags), catch: (e) => e as ClustersUsageError })
    const providerFlags: ProviderFlags = {
      ...(flags.providerNamespace === undefined ? {} : { providerNamespace: flags.providerNamespace }),
      ...(flags.providerKubeconfig === undefined ? {} : { providerKubeconfig: flags.providerKubeconfig }),
      ...(flags.providerAccessConfig === undefined
        ? {}
        : { providerAccessConfig: flags.providerAccessConfig }),
      ...(flags.providerProbeInterval === undefined
        ? {}
        : { providerProbeInterval: flags.providerProbeInterval }),
    }
    const provider = yield* makeProvider(checked.provider, hub, providerFlags).pipe(
      Effect.mapError((e) => new ClustersUsageError({ message: e.message })),
    )
    // A manager with no controllers is the Aware the provider engages clusters with.
    const manager = yield* makeManager({ hub: yield* makeCluster({ client: hub }), provider })
    yield* manager.start
    yield* report(provider, { json: flags.json, watch: flags.watch, timeout: checked.timeout }, write)
  })

/**
 * Runs `krtt clusters` with its parsed flags: a bad flag or a missing hub exits 2 with one line
 * naming it; logs go to stderr, the report to stdout.
 */
export const clustersMain = (parsed: ClustersFlags): Effect.Effect<void> =>
  Effect.gen(function* () {
    const usage = (message: string) =>
      Effect.sync(() => {
        process.stderr.write(`krtt clusters: ${message}\n`)
        process.exitCode = 2
      })
    let resolved: ReturnType<typeof resolveKubeconfig>
    try {
      checkFlags(parsed)
      resolved = resolveKubeconfig(parsed.kubeconfig)
    } catch (e) {
      return yield* usage((e as Error).message)
    }
    if (resolved === undefined)
      return yield* usage(
        "--kubeconfig: no hub cluster is configured (no --kubeconfig, no $KUBECONFIG, no ~/.kube/config)",
      )
    const kubeconfig = resolved.kubeconfig
    yield* Effect.scoped(
      Effect.gen(function* () {
        const hub = yield* makeRestClient(kubeconfig, { userAgent: "krtt-clusters" })
        yield* runClusters(hub, parsed, (line) => Effect.sync(() => void process.stdout.write(`${line}\n`)))
      }),
    ).pipe(
      Effect.catch((e) => usage(e.message)),
      // Logs go to stderr as JSON at warning level and above: stdout is the report.
      Effect.provide(Logger.layer([Logger.withConsoleError(Logger.formatJson)])),
      Effect.provideService(References.MinimumLogLevel, "Warn"),
    )
  })
