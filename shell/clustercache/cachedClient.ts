/**
 * The cached client of a workload cluster (seed 000, ClusterCache Interface: `GetClient` "returns
 * a cached client", `GetReader` "a cached read-only client"): reads are answered from the
 * connection's cache, writes go to the API server.
 *
 * - `get` and `list` read the cache. The cache starts the resource's informer on first use
 *   (the informer cache; the scoped cache serves only informers that exist) and waits for its
 *   first list up to the client timeout (10 s by default), as upstream's `clientWithTimeout`
 *   bounds cached reads by the REST config's timeout; then the read fails with `Timeout`.
 * - A read the cache has no informer for (`InformerNotFound`: a scoped cache without that
 *   informer, or a resource in `disableFor`) goes to the API server.
 * - A list that asks for an API page or a point in time (`limit`, `continue`, `resourceVersion`)
 *   or for a field selector goes to the API server: a cache keeps no pages and no history.
 * - `listAll`, writes, status, watches, `probe` and `raw` go to the API server.
 *
 * @module
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type { Cache, CacheError } from "../cache/types.ts"
import type { KubeClientShape, ListOptions } from "../kube/client.ts"
import { type KubeError, Timeout } from "../kube/errors.ts"
import {
  type KubeObject,
  type ObjectKey,
  type ObjectList,
  type ResourceRef,
  resourcePath,
} from "../kube/resource.ts"

/** Reads of a workload cluster served from its cache (seed 000: `GetReader`). */
export interface CachedReader {
  readonly get: <T extends KubeObject = KubeObject>(
    resource: ResourceRef,
    key: ObjectKey,
  ) => Effect.Effect<T, KubeError>
  readonly list: <T extends KubeObject = KubeObject>(
    resource: ResourceRef,
    options?: ListOptions,
  ) => Effect.Effect<ObjectList<T>, KubeError>
}

/** Where the cached client reads and how long a read may wait for its informer. */
export interface CachedClientOptions {
  readonly live: KubeClientShape
  readonly cache: Cache
  /** How long a cached read waits for its informer's first list (the client timeout). */
  readonly timeout: Duration.Input
  /** Resources always read from the API server (upstream's `Client.Cache.DisableFor`). */
  readonly disableFor?: ReadonlyArray<ResourceRef> | undefined
}

const sameResource = (a: ResourceRef, b: ResourceRef) => a.group === b.group && a.resource === b.resource

/** Whether a list must go to the API server: the cache answers none of these. */
const needsServer = (o: ListOptions | undefined) =>
  o !== undefined &&
  (o.limit !== undefined ||
    o.continue !== undefined ||
    o.resourceVersion !== undefined ||
    o.resourceVersionMatch !== undefined ||
    (o.fieldSelector !== undefined && o.fieldSelector !== ""))

/** The reader of `options.cache`, falling back to `options.live` where the cache cannot answer. */
export const makeCachedReader = (options: CachedClientOptions): CachedReader => {
  const { live, cache } = options
  const timeout = Duration.fromInputUnsafe(options.timeout)
  const disabled = (r: ResourceRef) => (options.disableFor ?? []).some((d) => sameResource(d, r))
  const bounded = <A>(r: ResourceRef, namespace: string | undefined, read: Effect.Effect<A, CacheError>) =>
    read.pipe(
      Effect.timeoutOrElse({
        duration: timeout,
        orElse: () =>
          Effect.fail(
            new Timeout({
              verb: "list",
              path: resourcePath(r, { namespace }),
              message: `the cache's informer did not sync within ${Duration.format(timeout)}`,
            }),
          ),
      }),
    )
  return {
    get: <T extends KubeObject = KubeObject>(r: ResourceRef, key: ObjectKey) =>
      disabled(r)
        ? live.get<T>(r, key)
        : bounded(r, key.namespace, cache.get<T>(r, key)).pipe(
            Effect.catchTag("InformerNotFound", () => live.get<T>(r, key)),
          ),
    list: <T extends KubeObject = KubeObject>(r: ResourceRef, o?: ListOptions) =>
      disabled(r) || needsServer(o)
        ? live.list<T>(r, o)
        : bounded(
            r,
            o?.namespace,
            Effect.map(
              cache.list<T>(r, { namespace: o?.namespace, labelSelector: o?.labelSelector }),
              (items): ObjectList<T> => ({ items, resourceVersion: "" }),
            ),
          ).pipe(Effect.catchTag("InformerNotFound", () => live.list<T>(r, o))),
  }
}

/** The cached client: `makeCachedReader`'s reads, everything else on `options.live`. */
export const makeCachedClient = (options: CachedClientOptions): KubeClientShape => ({
  ...options.live,
  ...makeCachedReader(options),
})
