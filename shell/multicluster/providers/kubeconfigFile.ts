/**
 * The `kubeconfig-file` provider: every context of one kubeconfig file (`--provider-kubeconfig`)
 * is a cluster named by the context (seed 003, Examples: "Run a controller-runtime controller
 * against a kubeconfig with arbitrary many contexts, all being reconciled").
 *
 * # Expected flow
 * Read the file, engage each context through the health-gated engine; watch the file's folder
 * (editors that write a new file and rename it over the old one replace the inode, so the file
 * itself cannot be watched) and re-read every `pollInterval` too (fs.watch is not reliable on
 * every file system). A new context engages, a removed one disengages, a context whose server or
 * credentials changed is disengaged and engaged again with the new ones.
 *
 * # Guarantees
 * - Reading an unchanged file changes nothing (the file's hash is compared first).
 * - A file that does not parse, or is briefly missing while an editor replaces it, keeps the
 *   last good set of contexts; it is logged once per content, never quoted.
 *
 * # Caveats
 * - Exec and auth-provider plugins are allowed here (the file is the operator's own, unlike a
 *   Secret anyone with write access to a namespace could fill).
 *
 * @module
 */
import { watch as fsWatch } from "node:fs"
import { readFile } from "node:fs/promises"
import { basename, dirname } from "node:path"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import { informerCacheFactory } from "../../cache/informerCache.ts"
import type { CacheFactory } from "../../cache/types.ts"
import { ClusterName } from "../../workqueue/request.ts"
import type { Provider } from "../types.ts"
import { ClusterSetDefaults, makeClusterSet } from "./clusterSet.ts"
import { checkKeys, type Given, ProviderUsageError, withDefaults } from "./errors.ts"
import { HealthDefaults, type HealthOptions } from "./health.ts"
import {
  buildClient,
  type ClientFactory,
  contextConfig,
  hashOf,
  parseKubeconfigText,
  restClientFactory,
} from "./kubeconfig.ts"

/** The provider's name, as `--provider` takes it. */
export const KubeconfigFileName = "kubeconfig-file"

/** Options of the kubeconfig-file provider. */
export interface KubeconfigFileOptions {
  /** The kubeconfig file (`--provider-kubeconfig`). Required. */
  readonly path: string
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

/** The defaults of every option but `path`. */
export const KubeconfigFileDefaults: Omit<KubeconfigFileOptions, "path"> = {
  pollInterval: "5 seconds",
  health: HealthDefaults,
  cacheFactory: informerCacheFactory,
  clientFactory: restClientFactory(),
  syncTimeout: ClusterSetDefaults.syncTimeout,
}

/** What a caller gives. */
export type KubeconfigFileInput = Given<Omit<KubeconfigFileOptions, "health">> & {
  readonly health?: Given<HealthOptions> | undefined
}

const knownKeys = ["path", ...Object.keys(KubeconfigFileDefaults)]

/** Makes the provider; fails when `path` is missing or an option is unknown. */
export const makeKubeconfigFileProvider = (
  given: KubeconfigFileInput,
): Effect.Effect<Provider, ProviderUsageError> =>
  Effect.gen(function* () {
    yield* checkKeys(`${KubeconfigFileName} options`, given, knownKeys)
    if (given.path === undefined || given.path === "") {
      return yield* new ProviderUsageError({
        flag: "--provider-kubeconfig",
        message: `provider ${KubeconfigFileName} needs --provider-kubeconfig: the kubeconfig file whose contexts are the clusters`,
      })
    }
    const options: KubeconfigFileOptions = {
      ...withDefaults(KubeconfigFileDefaults, { ...given, health: undefined }),
      path: given.path,
      health: withDefaults(HealthDefaults, given.health ?? {}),
    }
    const path = options.path
    const set = makeClusterSet({
      provider: KubeconfigFileName,
      health: options.health,
      cacheFactory: options.cacheFactory,
      syncTimeout: options.syncTimeout,
    })

    const run: Provider["run"] = (aware) =>
      Effect.gen(function* () {
        const sink = yield* set.bind(aware)
        let lastHash: string | undefined
        let warned: string | undefined
        const warnOnce = (key: string, message: string) =>
          warned === key
            ? Effect.void
            : Effect.andThen(
                Effect.sync(() => {
                  warned = key
                }),
                Effect.logWarning(message).pipe(Effect.annotateLogs({ provider: KubeconfigFileName, path })),
              )

        /** Reads the file and tells the engine what changed. */
        const check = Effect.gen(function* () {
          const text = yield* Effect.tryPromise({
            try: () => readFile(path, "utf8"),
            catch: (e) => (e as NodeJS.ErrnoException).code ?? "unreadable",
          }).pipe(Effect.result)
          if (text._tag === "Failure") {
            return yield* warnOnce(
              `read ${text.failure}`,
              `kubeconfig file cannot be read (${text.failure}); keeping the last good contexts`,
            )
          }
          const hash = hashOf(text.success)
          if (hash === lastHash) return
          const parsed = parseKubeconfigText(text.success, `kubeconfig file ${path}`)
          if (!parsed.ok) return yield* warnOnce(hash, `${parsed.reason}; keeping the last good contexts`)
          lastHash = hash
          warned = undefined
          const contexts = parsed.kubeconfig.getContexts().map((c) => c.name)
          for (const name of sink.names()) if (!contexts.includes(name)) yield* sink.remove(name)
          for (const context of contexts) {
            const name = ClusterName(context)
            const one = contextConfig(parsed.kubeconfig, context, `kubeconfig file ${path}`, true)
            if (!one.ok) {
              yield* sink.reject(name, one.reason)
              continue
            }
            const { kubeconfig, generation } = one.config
            yield* sink.upsert({
              name,
              generation,
              connect: Effect.map(buildClient(options.clientFactory, kubeconfig, context), (client) => ({
                client,
              })),
            })
          }
        })

        // Checks are triggered by fs.watch events and by the poll; one at a time, coalesced.
        const triggers = yield* Queue.sliding<void>(1)
        const watcher = yield* Effect.acquireRelease(
          Effect.sync(() => {
            try {
              const file = basename(path)
              const w = fsWatch(dirname(path), { persistent: false }, (_event, name) => {
                if (name === null || name === file) Queue.offerUnsafe(triggers, undefined)
              })
              w.on("error", () => undefined)
              return w
            } catch {
              return undefined
            }
          }),
          (w) => Effect.sync(() => w?.close()),
        )
        if (watcher === undefined) {
          yield* Effect.logWarning("cannot watch the kubeconfig file's folder; polling only").pipe(
            Effect.annotateLogs({ provider: KubeconfigFileName, path }),
          )
        }
        yield* check
        yield* Effect.forkScoped(Stream.fromQueue(triggers).pipe(Stream.runForEach(() => check)))
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
