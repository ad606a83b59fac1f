/**
 * The `kubeconfig-file` provider: every context of its kubeconfig files is a cluster (seed 003,
 * Examples: "Run a controller-runtime controller against a kubeconfig with arbitrary many
 * contexts, all being reconciled"). `--provider-kubeconfig` is repeatable and takes files,
 * directories (their files matching `globs`, upstream's `DefaultKubeconfigGlobs` by default) and
 * globs (`/etc/fleet/*.kubeconfig`), as upstream's file provider does.
 *
 * # Expected flow
 * List the files, read each, engage each context through the health-gated engine; watch the
 * folders of the files, the directories and the globs' folders (editors that write a new file
 * and rename it over the old one replace the inode, so a file itself cannot be watched) and
 * list and read again every `pollInterval` too (fs.watch is not reliable on every file system).
 * A file added to a directory engages its contexts, a file removed disengages them; a new
 * context engages, a removed one disengages, a context whose server or credentials changed is
 * disengaged and engaged again with the new ones.
 *
 * # Naming
 * One path that is a file: the clusters are named by their contexts (`east`). Otherwise, as
 * upstream: `<file>+<context>` with the file's absolute path (`/etc/fleet/a.kubeconfig+east`), so
 * contexts of the same name in two files are two clusters; the separator is an option.
 *
 * # Guarantees
 * - Reading an unchanged file changes nothing (each file's hash is compared first).
 * - A file that does not parse keeps its last good contexts; so does a file named explicitly
 *   that is briefly missing while an editor replaces it. A file found in a directory or by a
 *   glob that is gone takes its clusters with it. Problems are logged once per content, never
 *   quoted.
 *
 * # Caveats
 * - Exec and auth-provider plugins are allowed here (the files are the operator's own, unlike a
 *   Secret anyone with write access to a namespace could fill).
 *
 * @module
 */
import { watch as fsWatch } from "node:fs"
import { readFile } from "node:fs/promises"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import * as Result from "effect/Result"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import { informerCacheFactory } from "../../cache/informerCache.ts"
import type { CacheFactory } from "../../cache/types.ts"
import { ClusterName } from "../../workqueue/request.ts"
import type { Provider } from "../types.ts"
import { ClusterSetDefaults, type ClusterSink, makeClusterSet } from "./clusterSet.ts"
import { checkKeys, type Given, ProviderUsageError, withDefaults } from "./errors.ts"
import { HealthDefaults, type HealthOptions } from "./health.ts"
import {
  type ClientFactory,
  contextConfig,
  hashOf,
  makeClient,
  makeRestClientFactory,
  parseKubeconfigText,
} from "./kubeconfig.ts"
import {
  DefaultKubeconfigGlobs,
  type KubeconfigSource,
  listFiles,
  parseSources,
  watchedFolders,
} from "./kubeconfigSources.ts"

/** The provider's name, as `--provider` takes it. */
export const KubeconfigFileName = "kubeconfig-file"

/** Options of the kubeconfig-file provider. */
export interface KubeconfigFileOptions {
  /** Files, directories and globs (`--provider-kubeconfig`, repeatable). At least one. */
  readonly paths: ReadonlyArray<string>
  /** The files of a directory that are read. Default upstream's `DefaultKubeconfigGlobs`. */
  readonly globs: ReadonlyArray<string>
  /** Between a file's absolute path and a context in a cluster's name. Default `+` (upstream's). */
  readonly separator: string
  /**
   * How often the file is read again besides fs.watch events. Default 5 s (a derived number:
   * upstream's file provider watches only; polling covers file systems without events).
   */
  readonly pollInterval: Duration.Input
  readonly health: HealthOptions
  readonly cacheFactory: CacheFactory
  readonly clientFactory: ClientFactory
  readonly syncTimeout: Duration.Input
}

/** The defaults of every option but `paths`. */
export const KubeconfigFileDefaults: Omit<KubeconfigFileOptions, "paths"> = {
  globs: DefaultKubeconfigGlobs,
  separator: "+",
  pollInterval: "5 seconds",
  health: HealthDefaults,
  cacheFactory: informerCacheFactory,
  clientFactory: makeRestClientFactory(),
  syncTimeout: ClusterSetDefaults.syncTimeout,
}

/** What a caller gives. */
export type KubeconfigFileInput = Given<Omit<KubeconfigFileOptions, "health">> & {
  readonly health?: Given<HealthOptions> | undefined
}

const knownKeys = ["paths", ...Object.keys(KubeconfigFileDefaults)]

/** What one file gave at its last good read. */
interface FileState {
  readonly hash: string
  readonly names: ReadonlySet<ClusterName>
}

/**
 * One pass over the sources: lists the files, reads the changed ones and tells the engine what
 * changed (see the module's guarantees).
 */
const makeScan = (
  options: KubeconfigFileOptions,
  sources: ReadonlyArray<KubeconfigSource>,
  sink: ClusterSink,
  nameOf: (file: string, context: string) => ClusterName,
): Effect.Effect<void> => {
  const files = new Map<string, FileState>()
  const warned = new Map<string, string>()
  const warnOnce = (path: string, key: string, message: string) =>
    warned.get(path) === key
      ? Effect.void
      : Effect.andThen(
          Effect.sync(() => warned.set(path, key)),
          Effect.logWarning(message).pipe(Effect.annotateLogs({ provider: KubeconfigFileName, path })),
        )

  const readOne = (path: string, explicit: boolean) =>
    Effect.gen(function* () {
      const text = yield* Effect.tryPromise({
        try: () => readFile(path, "utf8"),
        catch: (e) => (e as NodeJS.ErrnoException).code ?? "unreadable",
      }).pipe(Effect.result)
      if (text._tag === "Failure") {
        // A missing file named explicitly keeps its contexts; one found by listing takes them along.
        if (!explicit) return false
        yield* warnOnce(
          path,
          `read ${text.failure}`,
          `kubeconfig file cannot be read (${text.failure}); keeping the last good contexts`,
        )
        return files.has(path)
      }
      const hash = hashOf(text.success)
      const before = files.get(path)
      if (hash === before?.hash) return true
      const parsed = parseKubeconfigText(text.success, `kubeconfig file ${path}`)
      if (Result.isFailure(parsed)) {
        yield* warnOnce(path, hash, `${parsed.failure.message}; keeping the last good contexts`)
        return before !== undefined
      }
      warned.delete(path)
      const contexts = parsed.success.getContexts().map((c) => c.name)
      const names = new Set(contexts.map((c) => nameOf(path, c)))
      for (const name of before?.names ?? []) if (!names.has(name)) yield* sink.remove(name)
      files.set(path, { hash, names })
      for (const context of contexts) {
        const name = nameOf(path, context)
        const one = contextConfig(parsed.success, context, `kubeconfig file ${path}`, true)
        if (Result.isFailure(one)) {
          yield* sink.reject(name, one.failure.message)
          continue
        }
        const { kubeconfig, generation } = one.success
        yield* sink.upsert({
          name,
          generation,
          connect: Effect.map(makeClient(options.clientFactory, kubeconfig, context), (client) => ({
            client,
          })),
        })
      }
      return true
    })

  return Effect.gen(function* () {
    const present = new Set<string>()
    for (const f of yield* listFiles(sources)) if (yield* readOne(f.path, f.explicit)) present.add(f.path)
    for (const [path, state] of [...files]) {
      if (present.has(path)) continue
      files.delete(path)
      warned.delete(path)
      for (const name of state.names) yield* sink.remove(name)
    }
  })
}

/** Watches `folders`; every event offers a trigger. Returns how many folders could not be watched. */
const watchFolders = (folders: ReadonlyArray<string>, triggers: Queue.Queue<void>) =>
  Effect.acquireRelease(
    Effect.sync(() =>
      folders.map((folder) => {
        try {
          const w = fsWatch(folder, { persistent: false }, () => Queue.offerUnsafe(triggers, undefined))
          w.on("error", () => undefined)
          return w
        } catch {
          return undefined
        }
      }),
    ),
    (ws) =>
      Effect.sync(() => {
        for (const w of ws) w?.close()
      }),
  ).pipe(Effect.map((ws) => folders.filter((_, i) => ws[i] === undefined)))

/** Makes the provider; fails when no path is given, a glob is malformed or an option is unknown. */
export const makeKubeconfigFileProvider = (
  given: KubeconfigFileInput,
): Effect.Effect<Provider, ProviderUsageError> =>
  Effect.gen(function* () {
    yield* checkKeys(`${KubeconfigFileName} options`, given, knownKeys)
    const paths = (given.paths ?? []).filter((p) => p !== "")
    if (paths.length === 0) {
      return yield* new ProviderUsageError({
        flag: "--provider-kubeconfig",
        message: `provider ${KubeconfigFileName} needs --provider-kubeconfig: a kubeconfig file, a directory or a glob whose contexts are the clusters (repeatable)`,
      })
    }
    const options: KubeconfigFileOptions = {
      ...withDefaults(KubeconfigFileDefaults, { ...given, health: undefined }),
      paths,
      health: withDefaults(HealthDefaults, given.health ?? {}),
    }
    const sources = yield* parseSources(options.paths, options.globs)
    const single = sources.length === 1 && sources[0]?._tag === "File"
    const nameOf = (file: string, context: string) =>
      ClusterName(single ? context : `${file}${options.separator}${context}`)
    const set = makeClusterSet({
      provider: KubeconfigFileName,
      health: options.health,
      cacheFactory: options.cacheFactory,
      syncTimeout: options.syncTimeout,
    })

    const run: Provider["run"] = (aware) =>
      Effect.gen(function* () {
        const sink = yield* set.bind(aware)
        const scan = makeScan(options, sources, sink, nameOf)
        // Scans are triggered by fs.watch events and by the poll; one at a time, coalesced.
        const triggers = yield* Queue.sliding<void>(1)
        const unwatched = yield* watchFolders(watchedFolders(sources), triggers)
        if (unwatched.length > 0) {
          yield* Effect.logWarning("cannot watch some kubeconfig folders; polling them only").pipe(
            Effect.annotateLogs({ provider: KubeconfigFileName, folders: unwatched.join(", ") }),
          )
        }
        yield* scan
        yield* Effect.forkScoped(Stream.fromQueue(triggers).pipe(Stream.runForEach(() => scan)))
        yield* Effect.forkScoped(
          Effect.repeat(Queue.offer(triggers, undefined), Schedule.spaced(options.pollInterval)),
        )
      })

    return {
      name: KubeconfigFileName,
      get: set.get,
      indexField: set.indexField,
      run,
      clusters: set.clusters,
    } satisfies Provider
  })
