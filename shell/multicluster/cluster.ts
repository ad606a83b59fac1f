/**
 * Building a `Cluster` from a client: its cache made by a `CacheFactory` (the informer cache by
 * default) and living in the caller's scope. The manager's hub is built this way; providers may
 * build theirs this way too.
 *
 * @module
 */
import type * as Effect from "effect/Effect"
import * as E from "effect/Effect"
import type * as Scope from "effect/Scope"
import { informerCacheFactory } from "../cache/informerCache.ts"
import type { CacheFactory } from "../cache/types.ts"
import type { KubeClientShape } from "../kube/client.ts"
import { type Cluster, type ClusterName, HubCluster } from "./types.ts"

/** What a cluster is built from. */
export interface ClusterOptions {
  /** Default: the hub, `""`. */
  readonly name?: ClusterName | undefined
  readonly client: KubeClientShape
  /** Default: `informerCacheFactory`. */
  readonly cacheFactory?: CacheFactory | undefined
  /** Identifies the credentials (see `Cluster.generation`). Default `"0"`. */
  readonly generation?: string | undefined
}

/** A cluster whose cache runs until the scope closes. */
export const makeCluster = (options: ClusterOptions): Effect.Effect<Cluster, never, Scope.Scope> =>
  E.gen(function* () {
    const name = options.name ?? HubCluster
    const cache = yield* (options.cacheFactory ?? informerCacheFactory)(options.client, { cluster: name })
    return { name, client: options.client, cache, generation: options.generation ?? "0" }
  })
