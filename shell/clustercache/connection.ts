/**
 * A connection to one workload cluster: its clients, its cache and the scope that owns them,
 * how its clients are made (`ConnectionFactory`), and the kubeconfig Secret it came from.
 *
 * # Guarantees
 * - Kubeconfig contents are never logged nor kept: only a digest of the Secret (to tell a
 *   rotated one) and the server and CA (`endpointOf`).
 * - Closing a connection closes its scope: the cache, its informers and every watch stop.
 *
 * @module
 */
import { createHash } from "node:crypto"
import type { KubeConfig } from "@kubernetes/client-node"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import type { ClusterCacheConfig } from "../../core/clustercache/index.ts"
import type { Cache } from "../cache/types.ts"
import type { KubeClientShape } from "../kube/client.ts"
import type { KubeError } from "../kube/errors.ts"
import type { KubeObject } from "../kube/resource.ts"
import { makeRestClient } from "../kube/restClient.ts"
import type { CachedReader } from "./cachedClient.ts"
import { InvalidKubeconfigError } from "./kubeconfig.ts"
import type { RotatingClient } from "./rotatingClient.ts"

/** A connection to one workload cluster. */
export interface Connection {
  /** The REST config of the current credentials (replaced by a rotation that keeps the endpoint). */
  config: KubeConfig
  /** The live client the cache's informers, writes and probes use; its credentials can rotate. */
  readonly live: RotatingClient
  readonly uncached: RotatingClient
  /** `GetClient`'s client: reads from `cache`, writes on `live`. */
  readonly cached: KubeClientShape
  readonly reader: CachedReader
  /** Owns the cache and its watches; closed on disconnect. */
  readonly scope: Scope.Closeable
  /** The cluster's cache: Watch() takes its informers, the cached client reads its stores. */
  readonly cache: Cache
  /** A digest of the kubeconfig Secret the current credentials came from: a rotated Secret differs. */
  kubeconfigDigest: string
  /** The server and CA the connection was made to (`endpointOf`). */
  readonly endpoint: string
}

/** Builds the clients of a workload cluster from its kubeconfig; replaceable in tests. */
export type ConnectionFactory = (kc: KubeConfig, config: ClusterCacheConfig) => Effect.Effect<KubeClientShape>

/** Connects over HTTP with the REST client, at the configured timeout, QPS, burst and user agent. */
export const restConnectionFactory: ConnectionFactory = (kc, config) =>
  makeRestClient(kc, {
    timeout: config.client.timeout,
    qps: config.client.qps,
    burst: config.client.burst,
    userAgent: config.client.userAgent,
  })

/** Closes a connection, if any: its cache, informers and watches stop. */
export const closeConnection = (c: Connection | undefined): Effect.Effect<void> =>
  c === undefined ? Effect.void : Scope.close(c.scope, Exit.void)

/** A `<cluster>-kubeconfig` Secret. */
export type SecretObject = KubeObject & { data?: Record<string, string> }

/** A digest of a kubeconfig Secret's data (never logged, never the content itself). */
export const kubeconfigDigest = (secret: SecretObject): string =>
  createHash("sha256")
    .update(JSON.stringify(secret.data ?? {}))
    .digest("hex")

/** The error of a `GET /` with a kubeconfig's credentials, without the kubeconfig. */
export const refused =
  (secretName: string) =>
  (e: KubeError): InvalidKubeconfigError =>
    new InvalidKubeconfigError({
      message:
        e._tag === "Unauthorized" || e._tag === "Forbidden"
          ? `the workload cluster refused the credentials of secret ${secretName} (${e._tag})`
          : `cluster is not reachable: ${e.message}`,
    })

/** What can go wrong while a connection is made or its credentials are taken. */
export type ConnectionFailure = KubeError | InvalidKubeconfigError

/** A failure's message, for logs and the clusterAccessor table (never the kubeconfig). */
export const describeFailure = (e: ConnectionFailure): string => e.message
